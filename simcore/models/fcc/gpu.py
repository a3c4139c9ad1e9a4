"""GPU backend of the ``dt`` schedule: the CUDA kernel ``cuda/fcc_dt.cu`` through CuPy.

CuPy is imported inside functions only, so this module imports without a GPU.  All
samples of a job live on the device and run in lockstep: one launch per block set covers
every block of the set in every sample (each sample has its own set order), so small
lattices still fill the GPU.  The CPU twin is :mod:`simcore.models.fcc.decomposed`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.backends.cuda import load_module
from simcore.models.fcc.decomposed import check_block, set_order
from simcore.models.fcc.lattice import words_per_row

CUDA_SOURCE = Path(__file__).with_name("cuda") / "fcc_dt.cu"


def compile_defines(L: int, b: int, both: bool) -> tuple[str, ...]:
    """The -D options of one kernel build (geometry and variant fixed at compile time)."""
    vals = {"LL": L, "WPR": words_per_row(L), "B": b, "BOTH": int(bool(both))}
    return tuple(f"-D{k}={v}" for k, v in vals.items())


def _module(defines: tuple[str, ...]):
    return load_module(CUDA_SOURCE, defines)


def set_orders(t0: int, mcs: int, samples: int, sample0: int, k0: int, k1: int) -> np.ndarray:
    """(mcs, samples, 8) int32: the set order of each MCS and sample (as the CPU twin)."""
    out = np.empty((mcs, samples, 8), dtype=np.int32)
    for i in range(mcs):
        for j in range(samples):
            out[i, j] = set_order(t0 + i, sample0 + j, k0, k1)
    return out


class DTKernel:
    """Two-layer double tiling for a batch of samples of one (L, b, epsilon, active) on the
    GPU.  Sample j of the batch uses Philox sample number ``sample0 + j``.  ``ahead``: one
    persistent launch per call in which each block starts as soon as it and its neighbours
    allow (blocks ahead of time, kelling2012 sec. 3.2); otherwise (the default, faster on
    an H100, BENCHMARKS.md) one launch per block set.  Both give the same lattice."""

    def __init__(
        self,
        L: int,
        b: int,
        samples: int,
        k0: int,
        k1: int,
        thr: np.ndarray,
        both: bool,
        sample0: int = 0,
        ahead: bool = False,
    ):
        import cupy as cp

        check_block(L, b)
        self.L, self.b, self.samples = int(L), int(b), int(samples)
        self.k0, self.k1, self.sample0 = int(k0), int(k1), int(sample0)
        self.both = bool(both)
        mod = _module(compile_defines(self.L, self.b, self.both))
        self._fn, self._ahead = mod.get_function("dt_phase"), mod.get_function("dt_ahead")
        self.ahead = bool(ahead)
        nblocks = (self.L // self.b) ** 3
        self._done = cp.zeros((self.samples, nblocks), dtype=np.int32)
        self._next = cp.zeros(1, dtype=np.uint32)
        sms = cp.cuda.Device().attributes["MultiProcessorCount"]
        threads = (self.b // 8) ** 3
        self._persistent = sms * max(1, 2048 // threads)
        self._thr = cp.asarray(np.asarray(thr, dtype=np.uint64))
        self._dbb = cp.zeros(self.samples, dtype=np.int64)
        self._moves = cp.zeros(self.samples, dtype=np.int64)
        self.lat = None
        nb = self.L // self.b
        self._grid = ((nb // 2) ** 3, self.samples)
        self._block = ((self.b // 8) ** 3,)

    def upload(self, lats: np.ndarray) -> None:
        """Put the samples' lattices, (samples, L, L, W) uint64, on the device and reset
        the counters."""
        import cupy as cp

        self.lat = cp.ascontiguousarray(cp.asarray(lats, dtype=cp.uint64))
        self._dbb[:] = 0
        self._moves[:] = 0

    def sweeps(self, t0: int, mcs: int) -> None:
        """MCS t0 .. t0 + mcs - 1 for every sample (asynchronous: returns after queueing)."""
        import cupy as cp

        host = set_orders(t0, mcs, self.samples, self.sample0, self.k0, self.k1)
        if self.ahead:
            chunk = max(1, 2**31 // (8 * self.samples * self._grid[0]))  # tasks < 2^31
            for c in range(0, mcs, chunk):
                self._launch_ahead(host[c : c + chunk], t0 + c)
            return
        orders = cp.asarray(host)
        for i in range(mcs):
            for phase in range(8):
                self._fn(
                    self._grid,
                    self._block,
                    (
                        self.lat,
                        orders[i],
                        np.int32(phase),
                        np.uint32(t0 + i),
                        np.uint32(self.sample0),
                        np.uint32(self.k0),
                        np.uint32(self.k1),
                        self._thr,
                        self._dbb,
                        self._moves,
                    ),
                )

    def _launch_ahead(self, orders_host: np.ndarray, t0: int) -> None:
        """One persistent launch of the ahead-of-time kernel for the MCS of ``orders_host``
        (mcs, samples, 8) from t0."""
        import cupy as cp

        mcs = orders_host.shape[0]
        inv = np.argsort(orders_host, axis=-1).astype(np.int32)
        self._done[:] = 0
        self._next[:] = 0
        tasks = mcs * 8 * self.samples * self._grid[0]
        self._ahead(
            (min(self._persistent, tasks),),
            self._block,
            (
                self.lat,
                cp.asarray(orders_host),
                cp.asarray(inv),
                np.int32(mcs),
                np.uint32(t0),
                np.int32(self.samples),
                np.uint32(self.sample0),
                np.uint32(self.k0),
                np.uint32(self.k1),
                self._thr,
                self._dbb,
                self._moves,
                self._next,
                self._done,
            ),
        )

    def download(self) -> np.ndarray:
        """The lattices as a host array (samples, L, L, W)."""
        return self.lat.get()

    @property
    def moves(self) -> np.ndarray:
        """Exchanges per sample since the upload."""
        return self._moves.get()

    @property
    def dbb(self) -> np.ndarray:
        """Change of the B-B bond count per sample since the upload."""
        return self._dbb.get()
