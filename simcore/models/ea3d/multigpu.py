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
host in the loop); GPUs of different hosts stage the plane through pinned host memory and
MPI (lulli2015's D2H, MPI, H2D).  Random numbers are keyed by the physical site
(simcore.models.ea3d), so the result is bit-identical to one GPU.

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
from pathlib import Path

import numpy as np

from simcore.models.ea3d.lattice import N_REPLICAS
from simcore.seeding import philox_key

#: A device-side wait that lasts longer than this is reported as a failed exchange.
WAIT_TIMEOUT_S = 60.0
#: Sweeps per captured CUDA graph of the device-signalled exchange.
GRAPH_SWEEPS = 16
#: The flag kernels of the device-signalled exchange.
FLAGS_SOURCE = Path(__file__).with_name("cuda") / "slab_flags.cu"


class Slab:
    """One GPU's part of the lattice: local planes 1..nz of global zh = z0 .. z0 + nz - 1."""

    def __init__(self, L: int, k: int, nz: int, z0: int, block: int = 128):
        import cupy as cp

        from simcore.backends.cuda import load_module
        from simcore.models.ea3d.gpu import _kernel, compile_defines

        self.L, self.k, self.nz, self.z0 = int(L), int(k), int(nz), int(z0)
        self.area = self.L * self.L
        self.words = self.area * (self.nz + 2)
        self.kernel = _kernel(compile_defines("sliced", L, k, slab=nz))
        flag_kernels = load_module(FLAGS_SOURCE, ())
        self.signal, self.wait, self.next_sweep = (
            flag_kernels.get_function(name) for name in ("slab_signal", "slab_wait", "slab_next")
        )
        self.block = int(block)
        shape_s = (N_REPLICAS, 2, self.k, self.words)
        mem = cp.cuda.Memory(int(np.prod(shape_s)) * 8)  # own allocation: IPC names it whole
        self.S = cp.ndarray(shape_s, cp.uint64, cp.cuda.MemoryPointer(mem, 0))
        self.S.fill(0)
        self.J = cp.zeros((2, 6, self.k, self.words), dtype=cp.uint64)
        # the boundary plane and its exchange are the critical path: their stream gets the
        # highest priority (CUDA clamps -100 to it), so its blocks are scheduled as soon as
        # the bulk's free an SM
        self.bulk_stream = cp.cuda.Stream(non_blocking=True)
        self.edge_stream = cp.cuda.Stream(non_blocking=True, priority=-100)
        shape = (N_REPLICAS, self.k, self.area)
        self.send_dev = cp.empty(shape, dtype=cp.uint64)
        self.recv_dev = cp.empty(shape, dtype=cp.uint64)
        self.peer_S: list[int] = [0, 0]  # the spin array colour c's boundary goes to (ipc)
        # flags[c]: the sweeps whose colour-c boundary plane has arrived in our ghost (set by
        # the neighbour, device-signalled exchange); flags[2]: a wait timed out; flags[3],
        # flags[4]: the sweep of the boundary and of the bulk stream (graph replays)
        fmem = cp.cuda.Memory(5 * 4)  # own allocation: IPC names it whole
        self.flags = cp.ndarray((5,), cp.int32, cp.cuda.MemoryPointer(fmem, 0))
        self.flags.fill(0)
        self.graphs: dict[int, object] = {}  # captured sweeps, by their number
        self.peer_flags: list[int] = [0, 0]  # the flag colour c's signal goes to (ipc)
        # per colour: the bulk and the boundary update done (GPU-side ordering, ipc)
        self.bulk_done = [cp.cuda.Event(disable_timing=True) for _ in range(2)]
        self.edge_done = [cp.cuda.Event(disable_timing=True) for _ in range(2)]
        self.send_host = cp.cuda.alloc_pinned_memory(self.send_dev.nbytes)
        self.recv_host = cp.cuda.alloc_pinned_memory(self.recv_dev.nbytes)
        self.send_np = np.frombuffer(self.send_host, np.uint64, self.send_dev.size).reshape(shape)
        self.recv_np = np.frombuffer(self.recv_host, np.uint64, self.recv_dev.size).reshape(shape)

    def _planes(self, first: int, count: int) -> slice:
        return slice(first * self.area, (first + count) * self.area)

    def load(self, S_global: np.ndarray, J_global: np.ndarray) -> None:
        """Copy this slab's planes (and ghosts) from whole-lattice sliced-layout arrays."""
        import cupy as cp

        lh = self.L // 2
        for zl in range(self.nz + 2):
            src = self._planes((self.z0 - 1 + zl) % lh, 1)
            dst = self._planes(zl, 1)
            self.S[..., dst] = cp.asarray(np.ascontiguousarray(S_global[..., src]))
            if 1 <= zl <= self.nz:
                self.J[..., dst] = cp.asarray(np.ascontiguousarray(J_global[..., src]))

    def init_from_seed(self, keys) -> None:
        """This slab's planes and ghosts of the campaign's Philox start (spins and
        couplings are keyed by the physical site, so no rank needs the whole lattice)."""
        import cupy as cp

        from simcore.models.ea3d.lattice import LAYOUT_ID, init_couplings, init_spins

        lid, lh = LAYOUT_ID["sliced"], self.L // 2
        for zl in range(self.nz + 2):
            zh = (self.z0 - 1 + zl) % lh
            j0, j1 = zh * self.area, (zh + 1) * self.area
            dst = self._planes(zl, 1)
            self.S[..., dst] = cp.asarray(init_spins(lid, self.L, self.k, *keys, j0, j1))
            if 1 <= zl <= self.nz:
                self.J[..., dst] = cp.asarray(init_couplings(lid, self.L, self.k, *keys, j0, j1))

    def fill_random(self, seed: int) -> None:
        """Random spins and couplings (for speed measurements: the rule is branch-free)."""
        from simcore.models.ea3d.bench import _random_words_gpu

        self.S[...] = _random_words_gpu(self.S.shape, seed)
        self.J[...] = _random_words_gpu(self.J.shape, seed + 1)

    def local_spins(self) -> np.ndarray:
        """This slab's own planes, ``S[a, c, w, plane words]`` on the host."""
        return self.S[..., self._planes(1, self.nz)].get()

    def _launch(
        self, c: int, t: int, first: int, count: int, stream, keys, thr, ghost: int = 0,
        tdev: int = 0,
    ) -> None:  # fmt: skip
        if count <= 0:
            return
        n = count * self.area
        shift = (self.ghost_plane(c) - self.boundary_plane(c)) * self.area
        args = (self.S, self.J, np.int32(c), np.uint32(t), np.uint32(keys[0]),
                np.uint32(keys[1]), *(np.uint64(x) for x in thr),
                np.uint32(first * self.area), np.uint32(n), np.uint32(self.z0),
                np.uint64(ghost), np.int32(shift if ghost else 0), np.uint64(tdev))  # fmt: skip
        grid = ((n + self.block - 1) // self.block, min(self.k, 65535), 1)
        self.kernel(grid, (self.block, 1, 1), args, stream=stream)

    def boundary_plane(self, c: int) -> int:
        """The local plane a colour's update sends to the neighbour: red down, blue up."""
        return 1 if c == 0 else self.nz

    def ghost_plane(self, c: int) -> int:
        """The local ghost plane that receives a neighbour's boundary plane of colour c."""
        return self.nz + 1 if c == 0 else 0

    def start_colour(self, c: int, t: int, keys, thr) -> None:
        """Update the boundary plane and stage it for sending (edge stream), and the bulk
        planes (bulk stream); returns at once."""
        edge = self.boundary_plane(c)
        bulk_first = 2 if c == 0 else 1
        self._launch(c, t, bulk_first, self.nz - 1, self.bulk_stream, keys, thr)
        self._launch(c, t, edge, 1, self.edge_stream, keys, thr)
        with self.edge_stream:
            self.send_dev[...] = self.S[:, c, :, self._planes(edge, 1)]
            self.send_dev.get(stream=self.edge_stream, out=self.send_np)

    def finish_colour(self, c: int) -> None:
        """Copy the received plane (host staging) into the ghost; wait for both streams."""
        with self.edge_stream:
            self.recv_dev.set(self.recv_np, stream=self.edge_stream)
            self.S[:, c, :, self._planes(self.ghost_plane(c), 1)] = self.recv_dev
        self.edge_stream.synchronize()
        self.bulk_stream.synchronize()

    def colour_ipc(self, c: int, t: int, keys, thr, counted: bool = False) -> None:
        """Queue colour c without host waits: the bulk after the previous colour's
        boundary, the boundary (which writes the neighbour's ghost) after the previous
        colour's bulk; returns at once.  The caller waits for the boundary only.

        The bulk planes never read a ghost, so only the boundary kernels depend on the
        exchange: with the next bulk always queued the GPU stays busy while the host
        waits for the boundary and exchanges the token.  ``counted``: the kernels read
        the sweep from the streams' counts in ``flags`` (graph capture), not ``t``.
        """
        o = 1 - c
        bulk_first = 2 if c == 0 else 1
        t_bulk, t_edge = (self._at(4), self._at(3)) if counted else (0, 0)
        self.bulk_stream.wait_event(self.edge_done[o])
        self._launch(c, t, bulk_first, self.nz - 1, self.bulk_stream, keys, thr, tdev=t_bulk)
        self.bulk_done[c].record(self.bulk_stream)
        self.edge_stream.wait_event(self.bulk_done[o])
        edge = self.boundary_plane(c)
        self._launch(c, t, edge, 1, self.edge_stream, keys, thr, ghost=self.peer_S[c],
                     tdev=t_edge)  # fmt: skip
        self.edge_done[c].record(self.edge_stream)

    def _at(self, i: int) -> int:
        """Device address of ``flags[i]``."""
        return self.flags.data.ptr + 4 * i

    def colour_signalled(self, c: int, t: int, keys, thr, counted: bool = False) -> None:
        """:meth:`colour_ipc`, then on the boundary stream: set the neighbour's flag of
        colour c to t + 1 (our plane is in its ghost), and wait until ours has reached
        t + 1 (its plane is in our ghost) before the next boundary kernel; returns at once.
        The bulk stream waits only for the boundary kernels (``edge_done``), never for a
        flag: the bulk planes read no ghost.  ``counted``: t is the boundary stream's
        count in ``flags`` (graph capture)."""
        self.colour_ipc(c, t, keys, thr, counted)
        s, count = self.edge_stream, np.uint64(self._at(3) if counted else 0)
        self.signal((1,), (1,), (np.uint64(self.peer_flags[c]), np.int32(t + 1), count), stream=s)
        self.wait(
            (1,), (1,),
            (np.uint64(self._at(c)), np.int32(t + 1), count,
             np.uint64(int(WAIT_TIMEOUT_S * 1e9)), np.uint64(self._at(2))),
            stream=s,
        )  # fmt: skip

    def _capture(self, n: int, keys, thr):
        """A CUDA graph of ``n`` device-signalled sweeps that read the sweep from the
        streams' counts (and advance them), so that it replays at any sweep."""
        import cupy as cp

        e, b = self.edge_stream, self.bulk_stream
        e.begin_capture()
        fork = cp.cuda.Event(disable_timing=True)
        fork.record(e)
        b.wait_event(fork)  # the bulk stream joins the capture
        self.edge_done[1].record(e)  # the first colour's waits refer to captured events
        self.bulk_done[1].record(b)
        for _ in range(n):
            for c in (0, 1):
                self.colour_signalled(c, 0, keys, thr, counted=True)
            self.next_sweep((1,), (1,), (np.uint64(self._at(4)),), stream=b)
            self.next_sweep((1,), (1,), (np.uint64(self._at(3)),), stream=e)
        join = cp.cuda.Event(disable_timing=True)
        join.record(b)
        e.wait_event(join)
        return e.end_capture()

    def sweeps_graph(self, t_from: int, n: int, keys, thr) -> None:
        """Queue ``n`` device-signalled sweeps from ``t_from`` as replays of captured
        graphs of up to GRAPH_SWEEPS sweeps on the boundary stream (each graph holds the
        bulk stream's work too); returns at once.  The caller has waited for the streams,
        so the sweep counts can be set."""
        import cupy as cp

        self.flags[3:5] = t_from
        cp.cuda.Device().synchronize()
        g = min(n, GRAPH_SWEEPS)
        for count in [g] * (n // g) + ([n % g] if n % g else []):
            if count not in self.graphs:
                self.graphs[count] = self._capture(count, keys, thr)
            self.graphs[count].launch(self.edge_stream)


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


#: Exchanges between GPUs of one host (CUDA IPC): how the arrival of a plane is signalled.
IPC_EXCHANGES = {
    "graph": "CUDA IPC, flags set on the GPUs, sweeps replayed as CUDA graphs",
    "flags": "CUDA IPC, flags set on the GPUs, kernels queued one by one",
    "token": "CUDA IPC + an MPI token per colour",
}


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
        if exchange == "graph":
            slab.sweeps_graph(t_from, n, keys, thr)
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
        "--exchange", choices=list(IPC_EXCHANGES), default="graph",
        help="GPUs of one host: how a plane's arrival is signalled: flags set and awaited "
        "on the GPUs, the sweeps replayed as CUDA graphs (graph, the default) or queued "
        "kernel by kernel (flags); or an MPI message per colour, the host in the loop (token)",
    )  # fmt: skip
    return ap


def _check_slabs(args, comm, slab: Slab, L: int, nz: int, keys, thr, ipc: bool) -> int:
    """``--check`` of size L: the slabs' sweeps against one GPU's, compared by SHA-256 of
    each slab's spin words (no rank holds the whole lattice); rank 0 prints the verdict
    and gets 1 where they differ, every other rank 0."""
    rank, size = comm.Get_rank(), comm.Get_size()
    slab.init_from_seed(keys)
    _ready(comm)
    sweeps_mpi(comm, slab, 0, args.sweeps, keys, thr, ipc, args.exchange)
    digests = comm.gather(_digest(slab.local_spins()), root=0)
    if rank != 0:
        return 0
    ref = _single_gpu_reference(L, args.k, args.sweeps, keys, thr)[2]
    area = L * L
    want = [_digest(ref[..., r * nz * area : (r + 1) * nz * area])
            for r in range(size)]  # fmt: skip
    same = digests == want
    print(f"L={L} k={args.k} on {size} GPUs, {args.sweeps} sweeps: "
          f"bit-identical to one GPU: {same}", flush=True)  # fmt: skip
    return 0 if same else 1


def _time_slabs(args, comm, slab: Slab, keys, thr, ipc: bool) -> list[float]:
    """Seconds per sweep of each of ``args.repeats`` timed repeats of the slabs' sweeps,
    after a warm-up of 2 sweeps (compile, caches)."""
    rank = comm.Get_rank()
    slab.fill_random(1000 + rank)
    _ready(comm)
    sweeps_mpi(comm, slab, 0, 2, keys, thr, ipc, args.exchange)  # warm-up (compile, caches)
    times = []
    for rep in range(args.repeats):
        comm.Barrier()
        start = time.perf_counter()
        t0 = 2 + rep * args.sweeps
        sweeps_mpi(comm, slab, t0, args.sweeps, keys, thr, ipc, args.exchange)
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
    exchange = f"ipc-{args.exchange}" if ipc else "host"
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
        if args.check:
            status |= _check_slabs(args, comm, slab, L, nz, keys, thr, ipc)
            _close(comm, opened)
            continue
        times = _time_slabs(args, comm, slab, keys, thr, ipc)
        _close(comm, opened)
        del slab
        if rank == 0:
            _report_times(args, L, size, exchange, times)
    return status


if __name__ == "__main__":
    sys.exit(main())
