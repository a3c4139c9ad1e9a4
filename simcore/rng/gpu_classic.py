"""A small GPU harness for the classic generators of ``cuda/classic_prng.cuh``.

It exists to prove the CUDA header and the numba twins (:mod:`simcore.rng.classic`) draw the
same bits; model kernels include the header themselves.  CuPy is imported only inside
:func:`draw_gpu`, so this module imports on machines without it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from simcore.rng.classic import N_WORDS

#: The CUDA header with ``minstd_next``, ``pr64_next`` and ``mt19937_next``.
CUDA_HEADER = Path(__file__).with_name("cuda") / "classic_prng.cuh"

_KERNEL = """
extern "C" __global__ void draw_{kind}(unsigned int *state, unsigned long long *aux,
                                       unsigned int *out, int G, int n) {{
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= G) return;
  for (int k = 0; k < n; k++) out[(unsigned long long)k * G + g] = {kind}_next(state, aux, G, g);
}}
"""


def kernel_source() -> str:
    """CUDA source of the harness: the header text, then one kernel ``draw_<kind>`` per kind.

    In ``draw_<kind>`` thread g draws n numbers from generator g into out[k * G + g].
    """
    return CUDA_HEADER.read_text() + "".join(_KERNEL.format(kind=k) for k in N_WORDS)


@lru_cache(maxsize=1)
def _module():
    import cupy as cp

    return cp.RawModule(code=kernel_source(), options=("-std=c++17",))


def draw_gpu(kind: str, state: np.ndarray, aux: np.ndarray, n: int) -> np.ndarray:
    """The next ``n`` outputs of every generator drawn on the GPU, shape (n, G), uint32.

    Like :func:`simcore.rng.classic.draw_all`, it advances ``state`` and ``aux`` in place
    (they are copied to the GPU and back).
    """
    import cupy as cp

    if kind not in N_WORDS:
        raise ValueError(f"unknown stateful generator {kind!r} (one of {tuple(N_WORDS)})")
    if state.dtype != np.uint32 or state.ndim != 2 or state.shape[0] != N_WORDS[kind]:
        raise ValueError(f"{kind} state must be uint32 of shape ({N_WORDS[kind]}, G)")
    G = state.shape[1]
    if aux.dtype != np.uint64 or aux.shape != (G,):
        raise ValueError("aux must be uint64 of shape (G,)")
    d_state = cp.asarray(np.ascontiguousarray(state))
    d_aux = cp.asarray(aux)
    out = cp.empty((n, G), dtype=cp.uint32)
    block = 128
    kern = _module().get_function(f"draw_{kind}")
    kern(((G + block - 1) // block,), (block,), (d_state, d_aux, out, np.int32(G), np.int32(n)))
    state[...] = d_state.get()
    aux[...] = d_aux.get()
    return out.get()
