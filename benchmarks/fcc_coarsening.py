"""Domain growth L(t) of the fcc alloy after a quench, on the GPU (dt, both species active):
the data behind the late-time coarsening exponent quoted in BENCHMARKS.md and checked by
tests/test_fcc_gpu.py.  Usage: python benchmarks/fcc_coarsening.py --L 64 128 --t-max 100000
--samples 4 --csv out.csv"""

from __future__ import annotations

import argparse
import csv

import numpy as np

from simcore.models.fcc.gpu import DTKernel
from simcore.models.fcc.lattice import random_mixture
from simcore.models.fcc.observables import domain_size, open_bonds_per_b, structure_factor
from simcore.models.fcc.rule import thresholds
from simcore.sampling import sampling_times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--L", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--c", type=float, default=0.325)
    ap.add_argument("--epsilon", type=float, default=1.5)
    ap.add_argument("--t-max", type=int, default=100000)
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--block-side", type=int, default=16)
    ap.add_argument("--csv", required=True)
    a = ap.parse_args()
    thr = thresholds(a.epsilon)
    times = [int(t) for t in sampling_times(a.t_max, 5, []) if t > 0]
    with open(a.csv, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["L", "sample", "t", "domain_size", "open_bonds"])
        for L in a.L:
            lats = np.stack([random_mixture(L, a.c, 11, 0, s) for s in range(a.samples)])
            k = DTKernel(L, min(a.block_side, L // 2), a.samples, 11, 0, thr, True)
            k.upload(lats)
            t = 0
            for stop in times:
                k.sweeps(t, stop - t)
                t = stop
                got = k.download()
                for s in range(a.samples):
                    ks, S = structure_factor(got[s], L)
                    w.writerow([L, s, t, domain_size(ks, S), open_bonds_per_b(got[s], L)])
                fh.flush()
                print(L, t, flush=True)


if __name__ == "__main__":
    main()
