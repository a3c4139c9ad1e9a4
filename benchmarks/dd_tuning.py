"""Time tuning variants of the DD kernel (cells per thread, register budget) on one GPU.

The variants compute the same lattice (tests/test_kpz_gpu.py checks cells per thread;
an atomic XOR with 0 changes nothing); this only says which is fastest.

    python3 benchmarks/dd_tuning.py [--L L]          # DT and DB, p = 1 and p = 0.6, q = 0.3
    python3 benchmarks/dd_tuning.py --snapshot       # DBs (snapshot hits), p = 1, DB and DT beside

``--snapshot`` made docs/data/bench/round4_h100/dbs_tuning.txt: two rounds over the
variants, each the median of 5 timings of 3 MCS.
"""

from __future__ import annotations

import argparse
import statistics

import cupy as cp
import numpy as np

from simcore.models.kpz.geometry import Geometry
from simcore.models.kpz.gpu import DDKernel
from simcore.models.kpz.lattice import flat_lattice
from simcore.rng import uniform_threshold

VARIANTS = [  # (domain, cells per thread, extra -D options)
    (128, 1, ()), (128, 2, ()), (64, 1, ()), (64, 2, ()), (64, 2, ("-DMINB=32",)),
    (32, 1, ()),
]  # fmt: skip
#: (block layer, domain, cells per thread, extra -D options) of ``--snapshot``
SNAPSHOT_VARIANTS = [
    ("DB", 128, 1, ()), ("DT", 128, 2, ()), ("DBs", 128, 1, ()), ("DBs", 128, 2, ()),
    ("DBs", 128, 1, ("-DSNAP_UNCOND=0",)), ("DBs", 64, 1, ()), ("DBs", 64, 2, ()),
    ("DBs", 128, 1, ("-DMINB=8",)),
]  # fmt: skip


def rate(L: int, blk: str, D: int, cpt: int, tuning: tuple[str, ...], p: float, q: float,
         repeats: int) -> float:  # fmt: skip
    """Median attempts per ns of ``repeats`` timings of 3 MCS after 2 MCS of warm-up."""
    params = (np.uint64(uniform_threshold(p)), np.uint64(uniform_threshold(q)))
    geo = Geometry(L=L, device="DTr", block=blk, Dx=D, Dy=D, a=1, b=1, t_async=1.0, border=0)
    k = DDKernel(geo, params, cpt, tuning)
    lat = cp.asarray(flat_lattice(2, L))[None, :].copy()
    net = cp.zeros(1, dtype=cp.int64)
    k.sweeps(lat, net, 0, 2, 0, 1, 2)
    rates = []
    for r in range(repeats):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        k.sweeps(lat, net, 2 + 3 * r, 3, 0, 1, 2)
        b.record()
        b.synchronize()
        rates.append(3 * L * L / (cp.cuda.get_elapsed_time(a, b) * 1e6))
    return statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--L", type=int, default=65536)
    ap.add_argument("--snapshot", action="store_true", help="the DBs variants at p = 1")
    args = ap.parse_args()
    if args.snapshot:
        for rnd in range(2):
            for blk, D, cpt, tuning in SNAPSHOT_VARIANTS:
                med = rate(args.L, blk, D, cpt, tuning, 1.0, 0.0, 5)
                print(f"round {rnd} DTr{blk} domain={D} cpt={cpt} {' '.join(tuning):18s} "
                      f"{med:7.1f} att/ns")  # fmt: skip
        return
    for blk in ("DT", "DB"):
        for p, q in ((1.0, 0.0), (0.6, 0.3)):
            for D, cpt, tuning in VARIANTS:
                med = rate(args.L, blk, D, cpt, tuning, p, q, 3)
                print(f"DTr{blk} p={p} q={q} domain={D} cpt={cpt} {' '.join(tuning):10s} "
                      f"{med:7.1f} att/ns")  # fmt: skip


if __name__ == "__main__":
    main()
