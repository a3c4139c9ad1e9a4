"""One GPU's slab of the sliced EA3D lattice and its exchange schedules
(simcore.models.ea3d.multigpu runs them, one MPI rank per GPU).

A slab holds ``nz`` plane pairs of the lattice split along z' plus a ghost pair below and
above; per colour its boundary plane goes to a neighbour's ghost, by host staging, by
CUDA IPC with an MPI token, or by CUDA IPC with flags set on the GPUs (optionally
replayed as CUDA graphs).  The module docstring of multigpu says which plane goes where.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.models.ea3d.lattice import N_REPLICAS

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
        defines = compile_defines("sliced", L, k, slab=nz)
        self.kernel = _kernel(defines)
        self.fused = _kernel(defines, "ea3d_colour_slab")
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
        # the neighbour, device-signalled exchange); flags[2]: a wait timed out; flags[3]:
        # the sweep count that captured graphs add to their sweeps (graph replays);
        # flags[4 + c]: boundary blocks of the fused colour-c kernel done in this launch
        fmem = cp.cuda.Memory(6 * 4)  # own allocation: IPC names it whole
        self.flags = cp.ndarray((6,), cp.int32, cp.cuda.MemoryPointer(fmem, 0))
        self.flags.fill(0)
        self.graphs: dict[tuple[int, bool], object] = {}  # captured sweeps: (number, fused)
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
        waits for the boundary and exchanges the token.  ``counted``: the kernels add the
        sweep count in ``flags[3]`` to ``t`` (graph capture).
        """
        o = 1 - c
        bulk_first = 2 if c == 0 else 1
        tdev = self._count(counted)
        self.bulk_stream.wait_event(self.edge_done[o])
        self._launch(c, t, bulk_first, self.nz - 1, self.bulk_stream, keys, thr, tdev=tdev)
        self.bulk_done[c].record(self.bulk_stream)
        self.edge_stream.wait_event(self.bulk_done[o])
        edge = self.boundary_plane(c)
        self._launch(c, t, edge, 1, self.edge_stream, keys, thr, ghost=self.peer_S[c],
                     tdev=tdev)  # fmt: skip
        self.edge_done[c].record(self.edge_stream)

    def _at(self, i: int) -> int:
        """Device address of ``flags[i]``."""
        return self.flags.data.ptr + 4 * i

    def _count(self, counted: bool) -> int:
        """Device address of the sweep count that captured kernels add to their sweep
        (``flags[3]``), or 0 (null) outside a graph capture."""
        return self._at(3) if counted else 0

    def colour_signalled(self, c: int, t: int, keys, thr, counted: bool = False) -> None:
        """:meth:`colour_ipc`, then on the boundary stream: set the neighbour's flag of
        colour c to t + 1 (our plane is in its ghost), and wait until ours has reached
        t + 1 (its plane is in our ghost) before the next boundary kernel; returns at once.
        The bulk stream waits only for the boundary kernels (``edge_done``), never for a
        flag: the bulk planes read no ghost.  ``counted``: t is added to the sweep count in
        ``flags[3]`` (graph capture)."""
        self.colour_ipc(c, t, keys, thr, counted)
        s, count = self.edge_stream, np.uint64(self._count(counted))
        self.signal((1,), (1,), (np.uint64(self.peer_flags[c]), np.int32(t + 1), count), stream=s)
        self.wait(
            (1,), (1,),
            (np.uint64(self._at(c)), np.int32(t + 1), count,
             np.uint64(int(WAIT_TIMEOUT_S * 1e9)), np.uint64(self._at(2))),
            stream=s,
        )  # fmt: skip

    def colour_fused(self, c: int, t: int, keys, thr, counted: bool = False) -> None:
        """Colour c of sweep t as one kernel on the boundary stream (``ea3d_colour_slab``):
        its boundary blocks wait for our flag of the other colour, write the neighbour's
        ghost and set the neighbour's flag of colour c; returns at once.  ``counted``: t is
        added to the sweep count in ``flags[3]`` (graph capture)."""
        n = self.nz * self.area
        shift = (self.ghost_plane(c) - self.boundary_plane(c)) * self.area
        args = (self.S, self.J, np.int32(c), np.uint32(t), np.uint32(keys[0]),
                np.uint32(keys[1]), *(np.uint64(x) for x in thr), np.uint32(self.z0),
                np.uint64(self.peer_S[c]), np.int32(shift), np.uint64(self._count(counted)),
                np.uint64(self._at(0)), np.uint64(self.peer_flags[c]),
                np.uint64(int(WAIT_TIMEOUT_S * 1e9)))  # fmt: skip
        grid = ((n + self.block - 1) // self.block, min(self.k, 65535), 1)
        self.fused(grid, (self.block, 1, 1), args, stream=self.edge_stream)

    def _capture(self, n: int, keys, thr, fused: bool = False):
        """A CUDA graph of ``n`` device-signalled sweeps, the i-th of them sweep
        ``flags[3] + i``, that advances ``flags[3]`` by n at its end, so that it replays at
        any sweep.  Only one node per graph advances the count: a node per sweep and
        stream would sit on each stream's path between its colours.  ``fused``: one kernel
        per colour (:meth:`colour_fused`) on the boundary stream alone."""
        import cupy as cp

        e, b = self.edge_stream, self.bulk_stream
        e.begin_capture()
        if fused:
            for i in range(n):
                for c in (0, 1):
                    self.colour_fused(c, i, keys, thr, counted=True)
            self.next_sweep((1,), (1,), (np.uint64(self._count(True)), np.int32(n)), stream=e)
            return e.end_capture()
        fork = cp.cuda.Event(disable_timing=True)
        fork.record(e)
        b.wait_event(fork)  # the bulk stream joins the capture
        self.edge_done[1].record(e)  # the first colour's waits refer to captured events
        self.bulk_done[1].record(b)
        for i in range(n):
            for c in (0, 1):
                self.colour_signalled(c, i, keys, thr, counted=True)
        join = cp.cuda.Event(disable_timing=True)
        join.record(b)
        e.wait_event(join)
        self.next_sweep((1,), (1,), (np.uint64(self._count(True)), np.int32(n)), stream=e)
        return e.end_capture()

    def sweeps_graph(self, t_from: int, n: int, keys, thr, fused: bool = False) -> None:
        """Queue ``n`` device-signalled sweeps from ``t_from`` as replays of captured
        graphs of up to GRAPH_SWEEPS sweeps on the boundary stream (each graph holds the
        bulk stream's work too; ``fused``: one kernel per colour); returns at once.  The
        caller has waited for the streams, so the sweep count can be set."""
        import cupy as cp

        self.flags[3] = t_from
        cp.cuda.Device().synchronize()
        g = min(n, GRAPH_SWEEPS)
        for count in [g] * (n // g) + ([n % g] if n % g else []):
            if (count, fused) not in self.graphs:
                self.graphs[count, fused] = self._capture(count, keys, thr, fused)
            self.graphs[count, fused].launch(self.edge_stream)
