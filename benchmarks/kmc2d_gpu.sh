#!/usr/bin/env bash
# GPU check and quick timing of the kmc2d tile kernel, in one go:
#   1. the GPU tests (the tile kernel against its numba twin, bit for bit);
#   2. real events/s at n = 4096 for phi = 0..3, and patches per block at phi = 0.
# Usage: benchmarks/kmc2d_gpu.sh OUTDIR
set -uo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
python3 -m pytest -m gpu -q -x tests/test_kmc2d_gpu.py > "$out/pytest_gpu.log" 2>&1
tail -15 "$out/pytest_gpu.log"
python3 - <<'PY' 2>&1 | tee "$out/quick.txt"
from simcore.models.kmc2d.bench import bench_gpu
for n, phi, dpb, nt in [(4096, 0.0, 1, 32), (4096, 0.0, 2, 64), (4096, 0.0, 4, 128),
                        (4096, 0.0, 4, 64), (4096, 0.0, 8, 128), (4096, 1.0, 4, 128),
                        (4096, 2.0, 4, 128), (4096, 3.0, 4, 128), (1024, 0.0, 4, 128)]:
    r = bench_gpu(n, phi, 8, relax=2.0, measure=5.0, dpb=dpb, nt=nt)
    print(f"n={n} phi={phi} dpb={dpb} nt={nt}: {r['events_per_s']:.3e} ev/s "
          f"events={r['events']} s={r['seconds']:.2f} acc={r['accepted']} "
          f"rej={r['rejected']} ev/tile/step={r['events_per_tile_step']:.2f} "
          f"steps={r['step_density']:.2f}", flush=True)
PY
