#!/usr/bin/env bash
# GPU check and quick timing of the kmc2d tile kernel, in one go:
#   1. the GPU tests (the tile kernel against its numba twin, bit for bit);
#   2. real events/s at n = 4096 for phi = 0..3 and several patches per block.
# Usage: benchmarks/kmc2d_gpu.sh OUTDIR
set -uo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
python3 -m pytest -m gpu -q -x tests/test_kmc2d_gpu.py > "$out/pytest_gpu.log" 2>&1
tail -15 "$out/pytest_gpu.log"
python3 - "$@" <<'PY' 2>&1 | tee "$out/quick.txt"
import sys
from simcore.models.kmc2d.bench import bench_gpu, bench_bkl
for n, phi, dpb in [(4096, 0.0, 1), (4096, 0.0, 2), (4096, 0.0, 4), (4096, 0.0, 8),
                    (4096, 1.0, 4), (4096, 2.0, 4), (4096, 3.0, 4), (1024, 0.0, 4), (256, 0.0, 4)]:
    r = bench_gpu(n, phi, 8, relax=2.0, measure=5.0, dpb=dpb)
    print(f"n={n} phi={phi} dpb={dpb}: {r['events_per_s']:.3e} ev/s  events={r['events']} "
          f"s={r['seconds']:.2f} acc={r['accepted']} rej={r['rejected']} "
          f"ev/tile/step={r['events_per_tile_step']:.1f} steps={r['step_density']:.2f}", flush=True)
    if n == 4096 and dpb == 4:
        b = bench_bkl(r["x"], phi, 2_000_000)
        print(f"   bkl: {b['events_per_s']:.3e} ev/s", flush=True)
PY
