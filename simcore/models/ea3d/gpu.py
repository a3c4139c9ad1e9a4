"""GPU backend of the EA3D multispin sweeps: the CUDA kernel ``cuda/ea3d_amsc.cu``.

CuPy is imported only inside functions, so this module imports without a GPU.  The
kernel is compiled once per (layout, L, K): sizes are compile-time constants, so the
index arithmetic by L folds into multiplications and shifts.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from simcore.backends.cuda import load_module
from simcore.models.ea3d.lattice import LAYOUT_ID

CUDA_SOURCE = Path(__file__).with_name("cuda") / "ea3d_amsc.cu"
KERNEL_NAME = "ea3d_colour"
MAX_GRID_Y = 65535


def compile_defines(
    layout: str, L: int, k: int, slab: int | None = None, prng: str = "philox"
) -> tuple[str, ...]:
    """The -D options of one kernel build (``slab``: planes per GPU, sliced layout only;
    ``prng``: a stateful generator adds the stateful kernel and its generator count)."""
    from simcore.models.ea3d.kernels import PRNG_CODE, n_generators

    vals = {"L": L, "K": k, "LAYOUT": LAYOUT_ID[layout], "LOG2L": max(int(L).bit_length() - 1, 1)}
    if slab is not None:
        vals["SLAB"] = int(slab)
    if prng != "philox":
        vals["PRNG"] = PRNG_CODE[prng]
        vals["NGEN"] = n_generators(L, k)
    return tuple(f"-D{key}={val}" for key, val in vals.items())


def _kernel(defines: tuple[str, ...], name: str = KERNEL_NAME):
    return load_module(CUDA_SOURCE, defines).get_function(name)


class EA3DKernel:
    """Checkerboard sweeps of one (layout, L, k) on the current GPU.

    ``S`` (4, 2, k, V/2) and ``J`` (2, 6, k, V/2) are CuPy uint64 arrays in the layout's
    order, exactly the arrays of the CPU code (:mod:`simcore.models.ea3d.lattice`).
    """

    def __init__(self, layout: str, L: int, k: int, block: int = 128, prng: str = "philox"):
        from simcore.models.ea3d.kernels import n_generators

        self.L, self.k, self.half = int(L), int(k), int(L) ** 3 // 2
        self.prng = prng
        defines = compile_defines(layout, L, k, prng=prng)
        self.block = (int(block), 1, 1)
        if prng == "philox":
            self.kernel = _kernel(defines)
            self.grid = (math.ceil(self.half / block), min(self.k, MAX_GRID_Y), 1)
        else:
            self.kernel = _kernel(defines, "ea3d_colour_stateful")
            self.grid = (math.ceil(n_generators(L, k) / block), 1, 1)

    def sweeps_stateful(self, S, J, n: int, state, aux, thr: tuple[int, int, int]) -> None:
        """``n`` sweeps with a stateful generator battery (``state``, ``aux`` on the GPU)."""
        t4, t8, t12 = (np.uint64(x) for x in thr)
        for _ in range(int(n)):
            for c in (0, 1):
                self.kernel(self.grid, self.block, (S, J, np.int32(c), state, aux, t4, t8, t12))

    def sweeps(self, S, J, t_from: int, n: int, k0: int, k1: int, thr: tuple[int, int, int]):
        """``n`` sweeps (red, then blue) from sweep ``t_from``; thresholds (T4, T8, T12)."""
        t4, t8, t12 = (np.uint64(x) for x in thr)
        for t in range(int(t_from), int(t_from) + int(n)):
            for c in (0, 1):
                args = (S, J, np.int32(c), np.uint32(t), np.uint32(k0), np.uint32(k1),
                        t4, t8, t12, np.uint32(0), np.uint32(self.half), np.uint32(0),
                        np.uint64(0), np.int32(0), np.uint64(0))  # fmt: skip
                self.kernel(self.grid, self.block, args)
