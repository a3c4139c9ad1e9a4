"""GPU backend of the tile algorithm: the CUDA kernels ``cuda/kmc2d_tiles.cu``.

CuPy is imported inside functions only, so this module imports without a GPU.  All
samples of a job live on the device and step in lockstep, each with its own time and dt
(the control kernel is Algorithm 1 per sample), so small lattices still fill the GPU and
the host synchronises only every few steps.  Kernels are compiled per (tile, model,
patches per block) with ``--fmad=false``: the arithmetic of the waiting times must round
exactly as on the CPU.

A patch none of whose 9 tiles has a waiting time before the step's end cannot fire an
event; the kernel skips it (the CUDA source says why that changes no bit).  For that the
kernel keeps per tile the minimum waiting time (``tmin``, front and back like ``tau``) and
whether its patch ran in the last step (``live``: 0 means its two buffers are equal).
Whatever sets the front buffer from the host must rebuild ``tmin`` and set every ``live``
flag to 1 (:meth:`TileKernel.upload` does).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.backends.cuda import load_module
from simcore.models.kmc2d.rates import DIAGONALS, N_CLASSES
from simcore.models.kmc2d.tiles import tile_halo

CUDA_SOURCE = Path(__file__).with_name("cuda") / "kmc2d_tiles.cu"
#: Patches per block (a power of two): shared memory, not threads, bounds the patches
#: per SM; and the threads per block that load, set up and store them.
DEFAULT_DPB = 4
DEFAULT_NT = 128
#: Leaves with a time before the step's end that a patch keeps in a list (list mode; a
#: list that fills up goes on in tree mode).  The kernel's LISTC.
LIST_CAPACITY = 64
#: A patch starts a step in list mode if it has at most this many leaves before the
#: step's end, else in tree mode (the kernel's LISTS).  64 is the fastest of 8, 16, 32 and
#: 64 at n = 1024 and 4096 for phi = 1 and 2; at n = 256, phi = 1 (tens of events per
#: patch and step, one wave of blocks) 16 and 32 are 1.8-1.9x faster, and 32 keeps
#: phi = 2 (BENCHMARKS.md, kmc2d round 3): :func:`default_list_start` takes
#: :data:`LIST_START_ONE_WAVE` where a step's blocks fit in one wave.
LIST_START = 64
LIST_START_ONE_WAVE = 32
#: Blocks of the advance kernel resident per SM (80 registers, 128 threads and the shared
#: memory of 4 patches of 8 x 8 tiles: 6 on an H100; BENCHMARKS.md, kmc2d round 3).
BLOCKS_PER_SM = 6
#: Steps whose (dt, accepted) a job keeps per sample (the run file's dt_history).
HISTORY = 4096
#: Tile sides the GPU kernel is compiled for (shared memory bounds them).
GPU_TILES = (4, 8, 16)
#: Live cells (leaves) of a patch, (B + 2 halo)^2, must be fewer: the kernel's next-event
#: tree keeps at most 8 level-2 nodes of 16 groups of 8 leaves, one of them padding.
MAX_LEAVES = 1024


def gpu_halo(B: int, halo: int | None) -> int:
    """The kernel's halo for tile ``B`` (:func:`~.tiles.tile_halo`, the CPU twin's rule);
    ValueError also if the patch does not fit the kernel (B in GPU_TILES, (B + 2 halo)^2 <
    MAX_LEAVES)."""
    h = tile_halo(B, halo)
    if B not in GPU_TILES or (B + 2 * h) ** 2 >= MAX_LEAVES:
        raise ValueError(
            f"GPU tiles need B in {GPU_TILES} and (B + 2 halo)^2 < {MAX_LEAVES}; "
            f"got B = {B}, halo = {h}"
        )
    return h


def patch_geometry(B: int, halo: int) -> tuple[int, int, int, int, int]:
    """(S, NI, NG1, NG1P, NG2) of the kernel: patch side, leaves, level-1 groups, level-1
    slots (padded to whole level-2 groups of 8 or 16) and level-2 groups."""
    S = B + 2 * (halo + 1)
    ni = (S - 2) ** 2
    ng1 = (ni + 7) // 8
    g2 = 8 if ng1 <= 64 else 16
    ng2 = (ng1 + g2 - 1) // g2
    return S, ni, ng1, g2 * ng2, ng2


def default_list_start(blocks: int, sms: int) -> int:
    """The kernel's LISTS for a launch of ``blocks`` blocks on ``sms`` multiprocessors:
    :data:`LIST_START_ONE_WAVE` where they fit in one wave (:data:`BLOCKS_PER_SM` each),
    since then one patch's list scan is the step's critical path; else :data:`LIST_START`.
    Either gives the same lattice (list and tree mode fire the same events)."""
    return LIST_START_ONE_WAVE if blocks <= sms * BLOCKS_PER_SM else LIST_START


def compile_defines(
    B: int,
    model: int,
    dpb: int,
    nt: int = DEFAULT_NT,
    list_cap: int = LIST_CAPACITY,
    list_start: int = LIST_START,
    halo: int | None = None,
) -> tuple[str, ...]:
    """The -D options of one kernel build."""
    vals = {
        "B": B,
        "HALO": gpu_halo(B, halo),
        "MODEL": model,
        "NCLS": N_CLASSES[model],
        "DIAG": int(DIAGONALS[model]),
        "DPB": dpb,
        "NT": nt,
        "LISTC": list_cap,
        "LISTS": list_start,
    }
    return tuple(f"-D{k}={v}" for k, v in vals.items())


def shared_bytes(
    B: int, model: int, dpb: int, list_cap: int = LIST_CAPACITY, halo: int | None = None
) -> int:
    """Dynamic shared memory of one block of the advance kernel (cuda/kmc2d_tiles.cu)."""
    S, ni, ng1, ng1p, ng2 = patch_geometry(B, gpu_halo(B, halo))
    ncls = N_CLASSES[model]
    # tau, sums, x, (oi, oj, tile, nl), cnt, (i1, i2), lst
    per_patch = 8 * ng1 * 8 + 16 * 8 + S * S * 4 + 4 * 4 + ni * 4 + (ng1p + ng2) * 2
    per_patch += 2 * list_cap
    # inv and ratio; the block's plan (live patches, tiles to copy, patches to run)
    return dpb * per_patch + 8 * (ncls + ncls * ncls) + 3 * 4


#: Extra compiler options: the waiting-time arithmetic must round exactly as on the CPU.
COMPILE_EXTRA = ("--fmad=false",)


def _module(defines: tuple[str, ...]):
    return load_module(CUDA_SOURCE, defines, COMPILE_EXTRA)


def to_tiles(a, B: int):
    """(samples, L, L) -> tile-major (samples, B^2, tiles), on the array's device."""
    S, L, _ = a.shape
    nt = L // B
    return a.reshape(S, nt, B, nt, B).transpose(0, 2, 4, 1, 3).reshape(S, B * B, nt * nt)


def from_tiles(a, B: int, L: int):
    """Tile-major (samples, B^2, tiles) -> (samples, L, L)."""
    S = a.shape[0]
    nt = L // B
    return a.reshape(S, B, B, nt, nt).transpose(0, 3, 1, 4, 2).reshape(S, L, L)


class TileKernel:
    """The tile algorithm for a batch of samples of one (L, B, model, params) on the GPU.

    State per sample: x, tau, cnt and the tiles' minimum tau (front and back buffers,
    tile-major), t, dt, whether a step was rejected yet, events, accepted and rejected
    steps, and the first :data:`HISTORY` steps' (dt, accepted).  Per tile, ``live`` says
    whether its patch ran in the last step; ``live_patches`` counts per sample the
    patches that ran (not skipped) since :meth:`upload`, rejected steps included.
    """

    def __init__(
        self,
        L: int,
        B: int,
        model: int,
        inv,
        ratio,
        samples: int,
        k0: int,
        k1: int,
        dpb: int = DEFAULT_DPB,
        nt: int = DEFAULT_NT,
        list_cap: int = LIST_CAPACITY,
        list_start: int | None = None,
        halo: int | None = None,
    ):
        """``list_start``: the kernel's LISTS; None chooses it for this launch's size
        (:func:`default_list_start`).  ``halo``: cells of halo around each tile in its
        patch (None: B - 1); every halo gives the same lattice, it sets the step length."""
        import cupy as cp

        self.halo = gpu_halo(B, halo)
        if L % B or L < 3 * B:
            raise ValueError(f"GPU tiles need L a multiple of B >= 3B; got L = {L}, B = {B}")
        self.L, self.B, self.model, self.samples = L, B, model, samples
        self.nt = L // B
        self.ntiles = self.nt * self.nt
        self.k0, self.k1 = np.uint32(k0), np.uint32(k1)
        if dpb & (dpb - 1) or dpb > 32 or nt % 32:
            raise ValueError(
                f"patches per block {dpb} must be a power of two <= 32 and threads {nt} a "
                "multiple of 32"
            )
        self.dpb, self.threads = dpb, nt
        self.grid = ((self.ntiles + dpb - 1) // dpb, samples)  # of the advance kernel
        if list_start is None:
            sms = cp.cuda.Device().attributes["MultiProcessorCount"]
            list_start = default_list_start(self.grid[0] * samples, sms)
        mod = _module(compile_defines(B, model, dpb, nt, list_cap, list_start, self.halo))
        self._advance = mod.get_function("kmc2d_advance")
        self._check = mod.get_function("kmc2d_check")
        self._control = mod.get_function("kmc2d_control")
        self.smem = shared_bytes(B, model, dpb, list_cap, self.halo)
        self._advance.max_dynamic_shared_size_bytes = self.smem
        self.inv = cp.asarray(inv, dtype=cp.float64)
        self.ratio = cp.asarray(np.ascontiguousarray(ratio), dtype=cp.float64)
        shape = (samples, B * B, self.ntiles)
        self.x = [cp.zeros(shape, dtype=cp.int32) for _ in range(2)]
        self.tau = [cp.zeros(shape, dtype=cp.float64) for _ in range(2)]
        self.cnt = [cp.zeros(shape, dtype=cp.uint32) for _ in range(2)]
        # the minimum of tau per tile (zero, as tau is) and the flags "may differ"
        self.tmin = [cp.zeros((samples, self.ntiles), dtype=cp.float64) for _ in range(2)]
        self.live = cp.ones((samples, self.ntiles), dtype=cp.uint8)
        self.sums = cp.zeros((samples, 16, self.ntiles), dtype=cp.uint64)
        self.central = cp.zeros((samples, self.ntiles), dtype=cp.uint32)
        z = lambda dt: cp.zeros(samples, dtype=dt)  # noqa: E731
        self.parity, self.active, self.cut = z(cp.int32), z(cp.int32), z(cp.int32)
        self.rejected_once, self.mismatch = z(cp.int32), z(cp.int32)
        self.t, self.dt, self.t_end = z(cp.float64), z(cp.float64), z(cp.float64)
        self.step_events, self.events = z(cp.uint64), z(cp.uint64)
        self.accepted, self.rejected = z(cp.uint64), z(cp.uint64)
        self.live_patches = z(cp.uint64)
        self.hist_dt = cp.zeros((samples, HISTORY), dtype=cp.float64)
        self.hist_ok = cp.zeros((samples, HISTORY), dtype=cp.int32)

    # -- state in and out ------------------------------------------------------------
    #: The state names :meth:`upload` takes, in its order (``hist_dt``, ``hist_ok`` optional).
    UPLOADED = ("x", "tau", "cnt", "t", "dt", "rejected_once", "events", "accepted", "rejected")

    def upload_state(self, st: dict, hist_dt, hist_ok) -> None:
        """:meth:`upload` from a state dict holding the arrays :data:`UPLOADED` names."""
        self.upload(*(st[name] for name in self.UPLOADED), hist_dt, hist_ok)

    def upload(
        self,
        x,
        tau,
        cnt,
        t,
        dt,
        rejected_once,
        events,
        accepted,
        rejected,
        hist_dt=None,
        hist_ok=None,
    ) -> None:
        """Set the state of every sample from host arrays ((samples, L, L) and (samples,))."""
        import cupy as cp

        self.parity[:] = 0
        self.x[0][:] = to_tiles(cp.asarray(x, dtype=cp.int32), self.B)
        self.tau[0][:] = to_tiles(cp.asarray(tau, dtype=cp.float64), self.B)
        self.cnt[0][:] = to_tiles(cp.asarray(cnt, dtype=cp.uint32), self.B)
        self._front_set()
        self.t[:] = cp.asarray(t, dtype=cp.float64)
        self.dt[:] = cp.asarray(dt, dtype=cp.float64)
        self.rejected_once[:] = cp.asarray(rejected_once, dtype=cp.int32)
        self.events[:] = cp.asarray(events, dtype=cp.uint64)
        self.accepted[:] = cp.asarray(accepted, dtype=cp.uint64)
        self.rejected[:] = cp.asarray(rejected, dtype=cp.uint64)
        if hist_dt is not None:
            self.hist_dt[:] = cp.asarray(hist_dt)
            self.hist_ok[:] = cp.asarray(hist_ok)

    def _front_set(self) -> None:
        """After the host set buffer 0 (the front, parity 0): its tiles' minimum waiting
        times, and every tile flagged as possibly differing between the buffers (buffer 1
        holds an older state), so that a skipped tile copies its front at the next step."""
        self.tmin[0][:] = self.tau[0].min(axis=1)
        self.live[:] = 1
        self.live_patches[:] = 0

    def front(self, name: str):
        """The front buffer of ``x``, ``tau`` or ``cnt`` as (samples, L, L) device arrays."""
        import cupy as cp

        bufs = getattr(self, name)
        par = self.parity.get()
        out = cp.empty((self.samples, self.B * self.B, self.ntiles), dtype=bufs[0].dtype)
        for s in range(self.samples):
            out[s] = bufs[int(par[s])][s]
        return from_tiles(out, self.B, self.L)

    # -- stepping -----------------------------------------------------------------------
    def _control_launch(self, settle: int, target: float) -> None:
        threads = 128
        blocks = (self.samples + threads - 1) // threads
        self._control(
            (blocks,),
            (threads,),
            (
                np.int32(self.samples),
                np.int32(settle),
                np.float64(target),
                self.active,
                self.parity,
                self.t,
                self.dt,
                self.t_end,
                self.cut,
                self.rejected_once,
                self.mismatch,
                self.step_events,
                self.events,
                self.accepted,
                self.rejected,
                self.hist_dt,
                self.hist_ok,
                np.int32(HISTORY),
            ),
        )

    def _step(self) -> None:
        self._advance(
            self.grid,
            (self.threads,),
            (
                self.x[0],
                self.x[1],
                self.tau[0],
                self.tau[1],
                self.cnt[0],
                self.cnt[1],
                self.tmin[0],
                self.tmin[1],
                self.live,
                self.parity,
                self.active,
                self.t_end,
                self.inv,
                self.ratio,
                self.sums,
                self.central,
                np.int32(self.L),
                self.k0,
                self.k1,
            ),
            shared_mem=self.smem,
        )
        threads = 256
        self._check(
            ((self.ntiles + threads - 1) // threads, self.samples),
            (threads,),
            (
                self.active,
                self.live,
                self.sums,
                self.central,
                self.mismatch,
                self.step_events,
                self.live_patches,
                np.int32(self.nt),
            ),
        )

    def run_to(self, target: float, max_batch: int = 64) -> int:
        """Steps of every sample until its time is ``target``; returns the launches made."""
        self.active[:] = 1
        self._control_launch(0, target)
        launches, batch = 0, 1
        while True:
            for _ in range(batch):
                self._step()
                self._control_launch(1, target)
            launches += batch
            if not int(self.active.any()):
                return launches
            batch = min(2 * batch, max_batch)
