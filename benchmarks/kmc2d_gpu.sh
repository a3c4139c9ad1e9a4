#!/usr/bin/env bash
# GPU check and benchmark of exact 2D KMC (darkins2024), in one go:
#   1. the GPU tests (the tile kernel against its numba twin, bit for bit);
#   2. darkins2024 Fig. 3: real events/s of the tile algorithm (tiles of 8, and of 4) and
#      of serial BKL on this host's CPU, n = 64 .. 4096, phi = 0 .. 3.
# Usage: benchmarks/kmc2d_gpu.sh OUTDIR   (CSV tables and markdown reports land in OUTDIR)
set -uo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
python3 -m pytest -m gpu -q -x tests/test_kmc2d_gpu.py > "$out/pytest_gpu.log" 2>&1
tail -3 "$out/pytest_gpu.log"
python3 -m simcore.cli bench kmc2d --L 64 128 256 512 1024 2048 4096 --phi 0 1 2 3 --tile 8 \
  --relax 2 --measure 5 --repeats 3 --bkl-events 1000000 \
  --csv "$out/kmc2d_tile8.csv" --append "$out/bench.md" > /dev/null
python3 -m simcore.cli bench kmc2d --L 4096 --phi 0 1 2 3 --tile 4 \
  --relax 2 --measure 5 --repeats 3 --bkl-events 0 \
  --csv "$out/kmc2d_tile4.csv" --append "$out/bench.md" > /dev/null
cat "$out/bench.md"
