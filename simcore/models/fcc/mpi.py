"""The ``slabs`` schedule over MPI ranks (kelling2012 sec. 3.2: "The CPU MPI implementation
of KMC uses dead border decomposition scheme in one dimension"; conventions:
:mod:`simcore.models.fcc`).  Bit for bit the twin of
:func:`simcore.models.fcc.slabs.slab_sweeps`.

Rank r of P runs slab r of every round.  Each rank holds a full (L, L, W) lattice array but
keeps only its window, the planes [r Lz, (r + 2) Lz) mod L, current: since the round origin
o lies in [0, Lz), slab r of any round lies in that window.  A round writes only the planes
i = 1 .. Lz - 2 of each slab (the attempts' sites lie in i = 2 .. Lz - 3, their partners
one plane further), and only slabs r - 1, r and r + 1 meet the window of rank r, so after
the round rank r sends the planes it wrote that lie in the windows of ranks r - 1 and
r + 1 and receives theirs (non-blocking point-to-point messages of contiguous plane
ranges; P = 2 has one neighbour, P = 1 none).  Every rank draws o itself from Philox.  At
the end rank 0 gathers planes [r Lz, (r + 1) Lz), part of the window of rank r, from every
rank r.

Run: ``mpirun -np P python -m simcore.models.fcc.mpi --L 64 --c 0.325 --epsilon 1.5
--mcs 20 --seed 7 [--active B] [--check] [--bench]``.  mpi4py is imported only when the code
runs, so the module and ``--help`` work without it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import numpy as np

from simcore.models.fcc.lattice import random_mixture
from simcore.models.fcc.rule import thresholds
from simcore.models.fcc.slabs import DEAD, check_slabs, slab_origin, slab_round, slab_sweeps
from simcore.seeding import philox_key


def window_contains(L: int, P: int, rank: int, plane: int) -> bool:
    """Whether ``plane`` lies in the window [rank Lz, (rank + 2) Lz) mod L of ``rank``."""
    lz = L // P
    return (plane - rank * lz) % L < 2 * lz


def exchange_segments(L: int, P: int, o: int, src: int, dst: int) -> list[tuple[int, int]]:
    """Contiguous plane ranges [start, stop) that slab ``src`` may have written in a round
    with origin o (its planes i = 1 .. Lz - 2) and that lie in the window of rank ``dst``:
    what ``src`` sends to ``dst`` after the round.  Sender and receiver both compute it."""
    lz = L // P
    planes = [
        p
        for p in ((o + src * lz + i) % L for i in range(DEAD - 1, lz - DEAD + 1))
        if window_contains(L, P, dst, p)
    ]
    segments: list[tuple[int, int]] = []
    for p in planes:
        if segments and segments[-1][1] == p:
            segments[-1] = (segments[-1][0], p + 1)
        else:
            segments.append((p, p + 1))
    return segments


def neighbours(P: int, rank: int) -> list[int]:
    """The distinct ranks other than ``rank`` among rank - 1 and rank + 1 (mod P)."""
    return sorted({(rank - 1) % P, (rank + 1) % P} - {rank})


def _exchange(comm: Any, lat: np.ndarray, L: int, P: int, o: int, rank: int) -> None:
    """After a round with origin o: send the planes this rank wrote to the neighbours whose
    windows hold them and receive theirs, all non-blocking, then wait for all."""
    from mpi4py import MPI

    requests = []
    for q in neighbours(P, rank):
        for tag, (a, b) in enumerate(exchange_segments(L, P, o, q, rank)):
            requests.append(comm.Irecv(lat[a:b], source=q, tag=tag))
        for tag, (a, b) in enumerate(exchange_segments(L, P, o, rank, q)):
            requests.append(comm.Isend(lat[a:b], dest=q, tag=tag))
    MPI.Request.Waitall(requests)


def run_slabs_mpi(
    comm: Any,
    lat: np.ndarray,
    L: int,
    t0: int,
    mcs: int,
    sample: int,
    k0: int,
    k1: int,
    thr: np.ndarray,
    both: bool,
) -> tuple[np.ndarray | None, int | None, int | None]:
    """MCS t0 .. t0 + mcs - 1 of the slabs schedule, slab r on rank r of ``comm``.  Every
    rank passes the same full lattice ``lat`` (C-contiguous, updated in place; on ranks
    other than 0 only the rank's window stays current).  Returns on rank 0 the full lattice
    and the change of the number of B-B bonds and the number of exchanges summed over all
    ranks, on the other ranks (None, None, None)."""
    from mpi4py import MPI

    P, rank = comm.Get_size(), comm.Get_rank()
    check_slabs(L, P)
    if not lat.flags.c_contiguous or lat.dtype != np.uint64 or lat.shape[:2] != (L, L):
        raise ValueError(f"lat must be a C-contiguous uint64 (L, L, W) array, L = {L}")
    dbb, moves = 0, 0
    for t in range(t0, t0 + mcs):
        o = int(slab_origin(L, P, t, sample, k0, k1))
        dd, mm = slab_round(lat, L, P, rank, o, t, sample, k0, k1, thr, both)
        dbb += int(dd)
        moves += int(mm)
        if P > 1:
            _exchange(comm, lat, L, P, o, rank)
    lz = L // P
    if rank == 0:
        comm.Gather(MPI.IN_PLACE, lat, root=0)
    else:
        comm.Gather(lat[rank * lz : (rank + 1) * lz], None, root=0)
    dbb = comm.reduce(dbb, op=MPI.SUM, root=0)
    moves = comm.reduce(moves, op=MPI.SUM, root=0)
    if rank == 0:
        return lat, dbb, moves
    return None, None, None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line of :func:`main`."""
    ap = argparse.ArgumentParser(
        prog="python -m simcore.models.fcc.mpi",
        description="fcc Kawasaki KMC, slabs schedule over MPI ranks (run under mpirun -np P).",
    )
    ap.add_argument("--L", type=int, default=64, help="linear size (sc units), L %% P == 0")
    ap.add_argument("--c", type=float, default=0.325, help="concentration of B")
    ap.add_argument("--epsilon", type=float, default=1.5, help="B-B bond energy / kT")
    ap.add_argument("--mcs", type=int, default=20, help="Monte Carlo steps (rounds)")
    ap.add_argument("--seed", type=int, default=7, help="64-bit job seed (Philox key)")
    ap.add_argument("--sample", type=int, default=0, help="sample index j")
    ap.add_argument(
        "--active",
        choices=("both", "B"),
        default="both",
        help="species that move (default both; B only biases the equilibrium at the slab "
        "borders, see simcore.models.fcc: for checks only)",
    )
    ap.add_argument("--check", action="store_true", help="compare with slab_sweeps")
    ap.add_argument("--bench", action="store_true", help="print attempts per second")
    ap.add_argument("--repeats", type=int, default=3, help="timed repeats of --bench")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run from ``random_mixture(L, c, k0, k1, sample)`` (k0, k1 = low, high 32 bits of the
    seed); --check compares rank 0's lattice, bond change and moves with ``slab_sweeps`` on
    one process (exit status 1 if they differ); --bench prints one JSON line with the
    attempts per second (median of the timed repeats after one warm-up)."""
    args = parse_args(argv)
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    P, rank = comm.Get_size(), comm.Get_rank()
    L = args.L
    check_slabs(L, P)
    k0, k1 = philox_key(args.seed)
    thr = thresholds(args.epsilon)
    start = random_mixture(L, args.c, k0, k1, args.sample)
    both = args.active == "both"
    run = (L, 0, args.mcs, args.sample, k0, k1, thr, both)
    lat, dbb, moves = run_slabs_mpi(comm, start.copy(), *run)
    status = 0
    if args.check:
        ok = None
        if rank == 0:
            twin = start.copy()
            tdbb, tmoves = slab_sweeps(twin, L, P, 0, args.mcs, args.sample, k0, k1, thr, both)
            ok = bool(np.array_equal(twin, lat) and tdbb == dbb and tmoves == moves)
            print(f"slabs MPI == twin: {ok}", flush=True)
        ok = comm.bcast(ok, root=0)
        status = 0 if ok else 1
    if args.bench:
        times = []
        for _ in range(args.repeats):
            work = start.copy()
            comm.Barrier()
            tic = time.perf_counter()
            run_slabs_mpi(comm, work, *run)
            comm.Barrier()
            times.append(time.perf_counter() - tic)
        if rank == 0:
            rate = L**3 // 2 * args.mcs / statistics.median(times)
            print(json.dumps({"P": P, "L": L, "attempts_per_s": rate, "mcs": args.mcs}))
    if not (args.check or args.bench) and rank == 0:
        print(json.dumps({"P": P, "L": L, "mcs": args.mcs, "dbb": dbb, "moves": moves}))
    return status


if __name__ == "__main__":
    sys.exit(main())
