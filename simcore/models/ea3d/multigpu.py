"""EA3D on several GPUs: the sliced lattice split along z' (lulli2015 sec. 5).

Each GPU holds a slab of ``nz`` plane pairs (zh = z' >> 1, both colours) plus one ghost
pair below and above.  In the sliced layout a z' plane has one colour, so a colour's
update needs one ghost plane only, and the exchange after it goes one way:

* red (c = 0) sites of the lowest local plane read the blue plane below (the ghost
  from the GPU below); after the red update the lowest red plane goes *down* (it is the
  upper red ghost of the GPU below);
* blue (c = 1) sites of the highest local plane read the red plane above; after the
  blue update the highest blue plane goes *up*.

Per colour the boundary plane is updated on a high-priority CUDA stream while the bulk
planes are updated on another, so the exchange hides behind the bulk update.  Two
transports: on GPUs of one host the boundary kernel writes every new word straight into
the neighbour's ghost plane as well (CUDA IPC, over NVLink where there is one), and a flag
that a one-thread kernel sets in the neighbour's memory says it has arrived (a kernel on
the other side waits for it), so the host queues whole sweeps, as CUDA graphs, and never
waits inside one (``--exchange token`` uses an MPI message per colour instead, with the
host in the loop; for small slabs ``--exchange auto`` makes a colour one kernel whose
boundary blocks wait for the flag and set the neighbour's, ``fused``); GPUs of different
hosts stage the plane through pinned host memory and MPI (lulli2015's D2H, MPI, H2D).
Random numbers are keyed by the physical site (simcore.models.ea3d), so the result is
bit-identical to one GPU.

Run: ``mpirun -np N python -m simcore.models.ea3d.multigpu --help`` (N GPUs, one per
rank).  :func:`run_local` runs the same schedule for N slabs on one GPU in one process
(the exchange is a host copy), which the tests use where only one GPU is available.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from collections.abc import Sequence

import numpy as np

from simcore.models.ea3d.lattice import N_REPLICAS
from simcore.models.ea3d.slab import WAIT_TIMEOUT_S, Slab
from simcore.models.ea3d.spec import IPC_EXCHANGES
from simcore.seeding import philox_key


def slab_bounds(L: int, n: int, rank: int) -> tuple[int, int]:
    """(z0, nz): the plane pairs of ``rank`` when L/2 plane pairs are split over n GPUs."""
    lh = L // 2
    if lh % n or lh // n < 2:
        raise ValueError(f"L/2 = {lh} plane pairs must split into {n} slabs of >= 2 each")
    nz = lh // n
    return rank * nz, nz


def sweeps_local(slabs: Sequence[Slab], t_from: int, n: int, keys, thr) -> None:
    """``n`` sweeps of all slabs on one GPU, the exchange done by host copies."""
    for t in range(t_from, t_from + n):
        for c in (0, 1):
            for s in slabs:
                s.start_colour(c, t, keys, thr)
            for s in slabs:
                s.edge_stream.synchronize()
            m = len(slabs)
            for i, s in enumerate(slabs):
                src = slabs[(i + 1) % m] if c == 0 else slabs[(i - 1) % m]
                s.recv_np[...] = src.send_np
            for s in slabs:
                s.finish_colour(c)


def same_host(comm) -> bool:
    """Whether all ranks share one host (so their GPUs can use CUDA IPC)."""
    from mpi4py import MPI

    return comm.Split_type(MPI.COMM_TYPE_SHARED).Get_size() == comm.Get_size()


def connect_ipc(comm, slab: Slab) -> list:
    """Point this slab's colour-c boundary writes at the spin arrays of the neighbours
    (red planes go down, blue up); returns the opened IPC pointers (close them at the end)."""
    import cupy as cp

    rank, size = comm.Get_rank(), comm.Get_size()
    opened = []
    for own, peer in ((slab.S, slab.peer_S), (slab.flags, slab.peer_flags)):
        handles = comm.allgather(cp.cuda.runtime.ipcGetMemHandle(own.data.ptr))
        mine: dict[int, int] = {}
        for c, dest in ((0, (rank - 1) % size), (1, (rank + 1) % size)):
            if dest == rank:
                base = own.data.ptr
            elif dest in mine:
                base = mine[dest]
            else:
                base = mine[dest] = cp.cuda.runtime.ipcOpenMemHandle(handles[dest])
                opened.append(base)
            # the spin array whole; the flag of colour c
            peer[c] = base if own is slab.S else base + 4 * c
    return opened


#: Words per colour of a slab (nz L^2 k) below which ``--exchange auto`` runs the fused
#: exchange: on 2 H100s it was faster at L = 128 and 256 (2^19 and 2^22 words per GPU),
#: 1.4 % slower at L = 512 (2^25; BENCHMARKS.md, "EA3D on two H100s, round 4").
FUSED_MAX_WORDS = 1 << 24


def pick_exchange(exchange: str, nz: int, L: int, k: int) -> str:
    """The exchange a slab of ``nz`` plane pairs of size L with k words runs: ``exchange``
    itself, or for ``auto`` fused below :data:`FUSED_MAX_WORDS` words per colour, else graph
    (the same on every rank: all slabs have the same size)."""
    if exchange != "auto":
        return exchange
    return "fused" if nz * L * L * k < FUSED_MAX_WORDS else "graph"


def sweeps_mpi(
    comm, slab: Slab, t_from: int, n: int, keys, thr, ipc: bool = False, exchange: str = "graph"
) -> None:
    """``n`` sweeps of this rank's slab; planes exchanged with the ranks below and above
    (``ipc``: the boundary kernels write the neighbours' ghosts after :func:`connect_ipc`;
    ``exchange`` says how the arrival is signalled, one of :data:`IPC_EXCHANGES`)."""
    rank, size = comm.Get_rank(), comm.Get_size()
    up, down = (rank + 1) % size, (rank - 1) % size
    token_out, token_in = np.zeros(1, np.int32), np.zeros(1, np.int32)
    if ipc and exchange != "token":
        if exchange in ("graph", "fused"):
            slab.sweeps_graph(t_from, n, keys, thr, fused=exchange == "fused")
        else:
            for t in range(t_from, t_from + n):
                for c in (0, 1):
                    slab.colour_signalled(c, t, keys, thr)
        slab.edge_stream.synchronize()
        slab.bulk_stream.synchronize()
        if int(slab.flags[2].get()):
            raise RuntimeError(
                f"rank {rank}: a neighbour's boundary plane did not arrive within "
                f"{WAIT_TIMEOUT_S:g} s (device-signalled exchange); try --exchange token"
            )
        return
    if ipc:
        for t in range(t_from, t_from + n):
            for c in (0, 1):
                slab.colour_ipc(c, t, keys, thr)
                slab.edge_stream.synchronize()  # our plane is in the neighbour's ghost
                dest, source = (down, up) if c == 0 else (up, down)
                comm.Sendrecv(token_out, dest=dest, sendtag=c, recvbuf=token_in,
                              source=source, recvtag=c)  # fmt: skip
        slab.bulk_stream.synchronize()
        return
    for t in range(t_from, t_from + n):
        for c in (0, 1):
            slab.start_colour(c, t, keys, thr)
            slab.edge_stream.synchronize()
            dest, source = (down, up) if c == 0 else (up, down)
            comm.Sendrecv(slab.send_np, dest=dest, sendtag=c, recvbuf=slab.recv_np,
                          source=source, recvtag=c)  # fmt: skip
            slab.finish_colour(c)


def gather_spins(slabs_spins: Sequence[np.ndarray]) -> np.ndarray:
    """Whole-lattice sliced-layout spins from the slabs' own planes, in slab order."""
    return np.concatenate(list(slabs_spins), axis=-1)


def _single_gpu_reference(L, k, sweeps, keys, thr):
    import cupy as cp

    from simcore.models.ea3d.gpu import EA3DKernel
    from simcore.models.ea3d.lattice import LAYOUT_ID, init_couplings, init_spins

    lid = LAYOUT_ID["sliced"]
    S = init_spins(lid, L, k, *keys)
    J = init_couplings(lid, L, k, *keys)
    S_dev = cp.asarray(S)
    EA3DKernel("sliced", L, k).sweeps(S_dev, cp.asarray(J), 0, sweeps, *keys, thr)
    return S, J, S_dev.get()


def run_local(L: int, k: int, n_slabs: int, sweeps: int, T: float, seed: int) -> bool:
    """N slabs on one GPU against the single-GPU kernel: True if bit-identical."""
    from simcore.models.ea3d.rule import thresholds

    keys, thr = philox_key(seed), thresholds(T)
    S0, J0, ref = _single_gpu_reference(L, k, sweeps, keys, thr)
    slabs = []
    for r in range(n_slabs):
        z0, nz = slab_bounds(L, n_slabs, r)
        s = Slab(L, k, nz, z0)
        s.load(S0, J0)
        slabs.append(s)
    sweeps_local(slabs, 0, sweeps, keys, thr)
    return bool(np.array_equal(gather_spins([s.local_spins() for s in slabs]), ref))


def _time_single_gpu(L: int, k: int, sweeps: int, repeats: int, keys, thr) -> list[float]:
    """Seconds per sweep of the single-GPU kernel (sliced layout, random words)."""
    import cupy as cp

    from simcore.models.ea3d.bench import _random_words_gpu
    from simcore.models.ea3d.gpu import EA3DKernel

    half = L**3 // 2
    S = _random_words_gpu((N_REPLICAS, 2, k, half), 1)
    J = _random_words_gpu((2, 6, k, half), 2)
    kern = EA3DKernel("sliced", L, k)
    kern.sweeps(S, J, 0, 2, *keys, thr)
    out = []
    for rep in range(repeats):
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        kern.sweeps(S, J, 2 + rep * sweeps, sweeps, *keys, thr)
        cp.cuda.Device().synchronize()
        out.append((time.perf_counter() - start) / sweeps)
    return out


#: Columns of the strong-scaling table (one row per L, N and repeat).
SCALING_FIELDS = ("L", "k", "n_gpus", "exchange", "seconds_per_sweep", "ps_per_flip_n", "device",
                  "commit")  # fmt: skip


def _report_times(args, L: int, size: int, exchange: str, times: list[float]) -> None:
    """Print the median and append the rows (rank 0)."""
    from simcore.backends.cuda import gpu_device_name
    from simcore.io.provenance import git_commit

    flips = 64 * args.k * N_REPLICAS * L**3
    ps_n = [t * size / flips * 1e12 for t in times]  # lulli2015 eq. 18
    med = statistics.median(ps_n)
    t_ms = statistics.median(times) * 1e3
    print(
        f"L={L} k={args.k} N={size}: t_sweep {t_ms:.3f} ms, psFlip_N {med:.3f} ps, "
        f"psFlip_multi {med / size:.3f} ps",
        flush=True,
    )
    if args.csv:
        new = not os.path.exists(args.csv)
        with open(args.csv, "a", newline="") as fh:
            w = csv.writer(fh)
            if new:
                w.writerow(SCALING_FIELDS)
            dev, commit = gpu_device_name(), git_commit() or "n/a"
            for t, p in zip(times, ps_n, strict=True):
                w.writerow([L, args.k, size, exchange, f"{t:.6g}", f"{p:.6g}", dev, commit])


def _digest(spins: np.ndarray) -> str:
    """SHA-256 of spin words, for comparing lattices without moving them."""
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(spins).tobytes()).hexdigest()


def _ready(comm) -> None:
    """Every rank's slab is filled before any rank writes into a neighbour's ghost."""
    import cupy as cp

    cp.cuda.Device().synchronize()
    comm.Barrier()


def _close(comm, opened: list) -> None:
    """Close opened IPC pointers once every rank is done with them."""
    import cupy as cp

    comm.Barrier()
    for ptr in opened:
        cp.cuda.runtime.ipcCloseMemHandle(ptr)


def _parser() -> argparse.ArgumentParser:
    """The options of :func:`main`."""
    ap = argparse.ArgumentParser(
        prog="mpirun -np N python -m simcore.models.ea3d.multigpu",
        description="EA3D on N GPUs (one MPI rank each, the sliced lattice split along z'): "
        "--check compares with one GPU bit for bit; otherwise measure psFlip per GPU and "
        "the strong-scaling efficiency (lulli2015 eqs. 18-21) against one GPU.",
    )
    ap.add_argument("--L", type=int, nargs="+", default=[128, 256, 512])
    ap.add_argument("--k", type=int, default=1, help="coded words (64 samples each)")
    ap.add_argument("--sweeps", type=int, default=20, help="sweeps per repeat")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--T", type=float, default=1.1)
    ap.add_argument("--seed", type=int, default=2015)
    ap.add_argument("--check", action="store_true", help="bit-identity check instead of timing")
    ap.add_argument("--csv", metavar="FILE", help="rank 0 appends one row per L and repeat")
    ap.add_argument(
        "--host-staging", action="store_true", help="exchange through host memory even on one host"
    )
    ap.add_argument(
        "--slab-schedule", action="store_true",
        help="with one rank, time the multi-GPU schedule (one slab, its own neighbour) "
        "instead of the single-GPU kernel: the schedule's own cost",
    )  # fmt: skip
    ap.add_argument(
        "--exchange", choices=list(IPC_EXCHANGES), default="auto",
        help="GPUs of one host: how a plane's arrival is signalled: flags set and awaited "
        "on the GPUs, the sweeps replayed as CUDA graphs (graph), the same with one kernel "
        "per colour whose boundary blocks wait and signal (fused), or queued kernel by "
        "kernel (flags); or an MPI message per colour, the host in the loop (token); auto "
        "(the default): fused for slabs under 2^24 words per colour, else graph",
    )  # fmt: skip
    return ap


def _check_slabs(
    args, comm, slab: Slab, L: int, nz: int, keys, thr, ipc: bool, exchange: str
) -> int:
    """``--check`` of size L: the slabs' sweeps against one GPU's, compared by SHA-256 of
    each slab's spin words (no rank holds the whole lattice); rank 0 prints the verdict
    and gets 1 where they differ, every other rank 0."""
    rank, size = comm.Get_rank(), comm.Get_size()
    slab.init_from_seed(keys)
    _ready(comm)
    sweeps_mpi(comm, slab, 0, args.sweeps, keys, thr, ipc, exchange)
    digests = comm.gather(_digest(slab.local_spins()), root=0)
    if rank != 0:
        return 0
    ref = _single_gpu_reference(L, args.k, args.sweeps, keys, thr)[2]
    area = L * L
    want = [_digest(ref[..., r * nz * area : (r + 1) * nz * area])
            for r in range(size)]  # fmt: skip
    same = digests == want
    print(f"L={L} k={args.k} on {size} GPUs, {args.sweeps} sweeps, exchange {exchange}: "
          f"bit-identical to one GPU: {same}", flush=True)  # fmt: skip
    return 0 if same else 1


def _time_slabs(args, comm, slab: Slab, keys, thr, ipc: bool, exchange: str) -> list[float]:
    """Seconds per sweep of each of ``args.repeats`` timed repeats of the slabs' sweeps,
    after a warm-up of 2 sweeps (compile, caches)."""
    rank = comm.Get_rank()
    slab.fill_random(1000 + rank)
    _ready(comm)
    sweeps_mpi(comm, slab, 0, 2, keys, thr, ipc, exchange)  # warm-up (compile, caches)
    times = []
    for rep in range(args.repeats):
        comm.Barrier()
        start = time.perf_counter()
        t0 = 2 + rep * args.sweeps
        sweeps_mpi(comm, slab, t0, args.sweeps, keys, thr, ipc, exchange)
        comm.Barrier()
        times.append((time.perf_counter() - start) / args.sweeps)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    """``mpirun -np N python -m simcore.models.ea3d.multigpu``: check or benchmark."""
    args = _parser().parse_args(argv)

    import cupy as cp
    from mpi4py import MPI

    from simcore.models.ea3d.rule import thresholds

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    cp.cuda.Device(rank % cp.cuda.runtime.getDeviceCount()).use()
    keys, thr = philox_key(args.seed), thresholds(args.T)
    ipc = same_host(comm) and not args.host_staging
    if rank == 0:
        name = IPC_EXCHANGES[args.exchange] if ipc else "host staging + MPI"
        print(f"{size} rank(s), exchange: {name}")
    status = 0
    for L in args.L:
        # N = 1 is the single-GPU code (lulli2015 eq. 19)
        if size == 1 and not (args.check or args.slab_schedule):
            times = _time_single_gpu(L, args.k, args.sweeps, args.repeats, keys, thr)
            _report_times(args, L, size, "none", times)
            continue
        z0, nz = slab_bounds(L, size, rank)
        slab = Slab(L, args.k, nz, z0)
        opened = connect_ipc(comm, slab) if ipc else []
        x = pick_exchange(args.exchange, nz, L, args.k)
        if args.check:
            status |= _check_slabs(args, comm, slab, L, nz, keys, thr, ipc, x)
            _close(comm, opened)
            continue
        times = _time_slabs(args, comm, slab, keys, thr, ipc, x)
        _close(comm, opened)
        del slab
        if rank == 0:
            _report_times(args, L, size, f"ipc-{x}" if ipc else "host", times)
    return status


if __name__ == "__main__":
    sys.exit(main())
