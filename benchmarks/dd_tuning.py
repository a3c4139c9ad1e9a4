"""Time tuning variants of the DD kernel (cells per thread, register budget) on one GPU.

The variants compute the same lattice (tests/test_kpz_gpu.py checks cells per thread);
this only says which is fastest.   python3 benchmarks/dd_tuning.py [L]
"""

from __future__ import annotations

import statistics
import sys

import cupy as cp
import numpy as np

from simcore.models.kpz.geometry import Geometry
from simcore.models.kpz.gpu import DDKernel
from simcore.models.kpz.lattice import flat_lattice
from simcore.rng import uniform_threshold

L = int(sys.argv[1]) if len(sys.argv) > 1 else 65536
VARIANTS = [  # (domain, cells per thread, extra -D options)
    (128, 1, ()), (128, 2, ()), (64, 1, ()), (64, 2, ()), (64, 2, ("-DMINB=32",)),
    (32, 1, ()),
]  # fmt: skip
for blk in ("DT", "DB"):
    for p, q in ((1.0, 0.0), (0.6, 0.3)):
        params = (np.uint64(uniform_threshold(p)), np.uint64(uniform_threshold(q)))
        for D, cpt, tuning in VARIANTS:
            geo = Geometry(L=L, device="DTr", block=blk, Dx=D, Dy=D, a=1, b=1, t_async=1.0,
                           border=0)  # fmt: skip
            k = DDKernel(geo, params, cpt, tuning)
            lat = cp.asarray(flat_lattice(2, L))[None, :].copy()
            net = cp.zeros(1, dtype=cp.int64)
            k.sweeps(lat, net, 0, 2, 0, 1, 2)
            rates = []
            for r in range(3):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                k.sweeps(lat, net, 2 + 3 * r, 3, 0, 1, 2)
                b.record()
                b.synchronize()
                rates.append(3 * L * L / (cp.cuda.get_elapsed_time(a, b) * 1e6))
            med = statistics.median(rates)
            print(
                f"DTr{blk} p={p} q={q} domain={D} cpt={cpt} {' '.join(tuning):10s} "
                f"{med:7.1f} att/ns"
            )
