#!/usr/bin/env bash
# GPU check and benchmark of the KPZ domain-decomposition kernels, in one go:
#   1. the GPU tests (every GPU kernel against its numba twin, bit for bit);
#   2. attempts/ns of DTrDT and DTrDB at L = 2^16 for several thread cells, for
#      p=1, q=0 and for general p, q (kelling2017 Fig. 7);
#   3. attempts/ns and time per MCS vs L (kelling2012 Figs. 4/5).
# Usage: benchmarks/kpz_dd_gpu.sh OUTDIR   (CSV rows and logs land in OUTDIR)
set -uo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv \
  > "$out/gpu.txt"
python3 -m pytest -m gpu -q -x tests/test_kpz_gpu.py tests/test_gpu_observables.py \
  > "$out/pytest_gpu.log" 2>&1
tail -3 "$out/pytest_gpu.log"
csv="$out/bench.csv"
bench() { python3 -m simcore.cli bench dd --backend gpu --csv "$csv" --append "$out/bench.md" "$@" \
  > /dev/null; }
for pq in "-p 1 -q 0" "-p 0.6 -q 0.3"; do
  bench --scheme DTrDT DTrDB --tc 1,1 --domain 128,128 --L 65536 --mcs 4 --repeats 5 $pq
  bench --scheme DTrDT DTrDB --tc 1,1 --domain 256,256 --L 65536 --mcs 4 --repeats 5 $pq
  bench --scheme DTrDT DTrDB --tc 2,1 --domain 256,128 --L 65536 --mcs 4 --repeats 5 $pq
  bench --scheme DTrDT DTrDB --tc 2,2 --domain 256,256 --L 65536 --mcs 4 --repeats 5 $pq
  bench --scheme DTrDT DTrDB --tc 3,2 --domain 512,256 --L 65536 --mcs 4 --repeats 5 $pq
done
bench --scheme DTrDT DTrDB cDBDT --tc 1,1 --domain 128,128 --L 1024 4096 16384 65536 \
  --mcs 4 --repeats 5 -p 1 -q 0
cat "$out/bench.md"
