"""GPU backend of parallel tempering: the kernels of ``cuda/ea3d_pt.cu`` for one
(layout, L, k, slots).

CuPy is imported only inside methods, so this module imports without a GPU.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from simcore.backends.cuda import load_module
from simcore.models.ea3d.gpu import MAX_GRID_Y, compile_defines
from simcore.models.ea3d.planes import count_bits, qk2_norm, qk2_weights

CUDA_SOURCE = Path(__file__).with_name("cuda") / "ea3d_pt.cu"
KERNELS = ("ea3d_pt_colour", "ea3d_pt_swap", "ea3d_pt_satisfied", "ea3d_pt_agreeing",
           "ea3d_pt_qk2")  # fmt: skip
#: Sites a counting thread visits at most (its counter planes hold 6 x this).
SITES_PER_COUNTER = 64


BLOCK = 128


def counting_chunks(L: int) -> tuple[int, int]:
    """Blocks per (slot, word) of the counting kernels over one colour's sites, and the
    bit planes their threads' counters need (6 bonds per site visited)."""
    half = int(L) ** 3 // 2
    chunks = min(max(1, math.ceil(half / (BLOCK * SITES_PER_COUNTER))), MAX_GRID_Y)
    per_thread = math.ceil(half / (BLOCK * chunks))
    return chunks, (6 * per_thread).bit_length()


def pt_defines(layout: str, L: int, k: int, n_slots: int) -> tuple[str, ...]:
    """The -D options of one build: the ea3d geometry, the number of slots and the
    counters' bit planes (of the counting threads and of a lattice plane's counter)."""
    planes = counting_chunks(L)[1]
    return (*compile_defines(layout, L, k), f"-DNSLOT={int(n_slots)}", f"-DNPLANES={planes}",
            f"-DQBITS={count_bits(L)}")  # fmt: skip


def qk2_launch(L: int) -> tuple[int, int]:
    """Threads per block of ``ea3d_pt_qk2`` (one per lattice plane, at least the 64 bit
    threads, at most 1024) and its dynamic shared bytes: the count of each plane and bit
    (uint16 up to L = 255, whose L^2 fits, else uint32)."""
    L = int(L)
    threads = min(1024, max(64, -(-3 * L // 32) * 32))
    return threads, 3 * L * 64 * (2 if L <= 255 else 4)


class PTKernels:
    """The parallel-tempering kernels on the current GPU; arrays are CuPy arrays in the
    layouts of the CPU code (``S`` (n_slots, 2, k, V/2), ``J`` (2, 6, k, V/2))."""

    def __init__(self, layout: str, L: int, k: int, n_slots: int, thr: np.ndarray):
        import cupy as cp

        module = load_module(CUDA_SOURCE, pt_defines(layout, L, k, n_slots))
        self.colour, self.swap_k, self.sat_k, self.agree_k, self.qk2_k = (
            module.get_function(name) for name in KERNELS
        )
        self.L, self.k, self.half, self.n_slots = int(L), int(k), int(L) ** 3 // 2, n_slots
        block = BLOCK
        self.block = (block, 1, 1)
        gy = min(self.k, MAX_GRID_Y)
        self.grid_sites = (math.ceil(self.half / block), gy, 1)
        self.grid_both = (math.ceil(2 * self.half / block), gy, 1)
        chunks = counting_chunks(L)[0]
        self.grid_sat = (n_slots, chunks, self.k)
        self.grid_agree = (chunks, n_slots // 2, self.k)  # both colours: 2x the sites
        self.thr = cp.asarray(np.ascontiguousarray(thr, dtype=np.uint64).ravel())
        self._qk2_setup(cp)

    def _qk2_setup(self, cp) -> None:
        """The launch of ``ea3d_pt_qk2``, its weights and norm (those of the CPU code)."""
        threads, shared = qk2_launch(self.L)
        limit = cp.cuda.Device().attributes["MaxSharedMemoryPerBlockOptin"]
        if shared > limit:
            raise ValueError(f"qk2 on the GPU needs {shared} B of shared memory per block at "
                             f"L = {self.L}, the device allows {limit} B")  # fmt: skip
        if shared > 48 * 1024:
            self.qk2_k.max_dynamic_shared_size_bytes = shared
        self.qk2_block, self.qk2_shared = (threads, 1, 1), shared
        self.qk2_grid = (self.k, self.n_slots // 2, 1)
        self.qk2_wgt = cp.asarray(qk2_weights(self.L))
        self.qk2_norm = np.float64(qk2_norm(self.L))

    def sweeps(self, S, J, t_from: int, n: int, k0: int, k1: int) -> None:
        """``n`` sweeps (red, then blue) of every slot from sweep ``t_from``."""
        for t in range(int(t_from), int(t_from) + int(n)):
            for c in (0, 1):
                args = (S, J, np.int32(c), np.uint32(t), np.uint32(k0), np.uint32(k1), self.thr)
                self.colour(self.grid_sites, self.block, args)

    def swap(self, S, masks: np.ndarray) -> None:
        """Apply the exchange masks (2, n_T - 1, k) of one exchange step."""
        import cupy as cp

        self.swap_k(self.grid_both, self.block, (S, cp.asarray(masks)))

    def satisfied(self, S, J) -> np.ndarray:
        """Satisfied bonds ``n[slot, w, b]`` on the host (int64)."""
        import cupy as cp

        out = cp.zeros((self.n_slots, self.k, 64), dtype=cp.uint64)
        self.sat_k(self.grid_sat, self.block, (S, J, out))
        return cp.asnumpy(out).astype(np.int64)

    def agreeing(self, S) -> np.ndarray:
        """Agreeing sites ``m[i, w, b]`` of the two replicas at each temperature (int64)."""
        import cupy as cp

        out = cp.zeros((self.n_slots // 2, self.k, 64), dtype=cp.uint64)
        self.agree_k(self.grid_agree, self.block, (S, out))
        return cp.asnumpy(out).astype(np.int64)

    def qk2(self, S) -> np.ndarray:
        """|q(k_min)|^2 ``qk2[i, w, b]`` of the two replicas at each temperature on the
        host (float64, equal to :func:`simcore.models.ea3d.planes.overlap_qk2` bit for
        bit)."""
        import cupy as cp

        out = cp.empty((self.n_slots // 2, self.k, 64), dtype=cp.float64)
        self.qk2_k(self.qk2_grid, self.qk2_block, (S, self.qk2_wgt, self.qk2_norm, out),
                   shared_mem=self.qk2_shared)  # fmt: skip
        return cp.asnumpy(out)
