"""simcore's side of the generator benchmark (``simcore bench prng``,
:mod:`simcore.models.ea3d.prng_bench`): MINSTD, pr64, MT19937 and Philox with the device
functions and state layout of the spin-glass kernels, in the fill kernels (host API,
Table 1) and the count kernels (device API, Table 2) of ``cuda/prng_bench.cu``."""

from __future__ import annotations

import math
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from simcore.models.ea3d.prng_gpu import sync, time_launches
from simcore.rng.streams import STREAM_EA_METROPOLIS

#: simcore's generators in the fill and count kernels (``cuda/prng_bench.cu``).
OURS_SOURCE = Path(__file__).with_name("cuda") / "prng_bench.cu"
#: Counter word c3 of the benchmark's Philox draws (the spin-glass Metropolis stream).
TAG_BENCH = STREAM_EA_METROPOLIS << 24

#: simcore's generators, in table order.
OUR_GENERATORS = ("minstd", "pr64", "mt19937", "philox")
#: Threads per block of the host-API fill kernels.
FILL_BLOCK = 256


@lru_cache(maxsize=1)
def _ours():
    """The compiled module of ``cuda/prng_bench.cu``."""
    from simcore.backends.cuda import load_module

    return load_module(OURS_SOURCE, ())


def _grid(threads: int, block: int) -> tuple[int, int]:
    return math.ceil(threads / block), block


def _upload_state(kind: str, seed: int, G: int):
    """Seed ``G`` generators of ``kind`` on the host and copy them to the GPU."""
    import cupy as cp

    from simcore.rng.classic import init_state

    state, aux = init_state(kind, seed, G)
    return cp.asarray(state), cp.asarray(aux)


def fill_ours(kind: str, out, G: int, seed: int, raw: bool = False) -> float:
    """Fill the CuPy array ``out`` (float32, or uint32 with ``raw``) with generator
    ``kind`` of simcore on ``G`` threads seeded from ``seed``; returns t_INIT (seeding and
    upload; 0 for Philox, which has only its key).  Draw i of generator g goes to
    out[i G + g] (Philox: word a of call c to out[(4 c + a) G + g])."""
    from simcore.seeding import philox_key

    mod = _ours()
    suffix = "u32" if raw else "f32"
    n = np.uint64(out.size)
    blocks, block = _grid(G, FILL_BLOCK)
    if kind == "philox":
        k0, k1 = philox_key(seed)
        mod.get_function(f"fill_philox_{suffix}")(
            (blocks,), (block,), (out, n, np.int32(G), np.uint32(k0), np.uint32(k1))
        )
        return 0.0
    t0 = time.perf_counter()
    state, aux = _upload_state(kind, seed, G)
    sync()
    t_init = time.perf_counter() - t0
    mod.get_function(f"fill_{kind}_{suffix}")((blocks,), (block,), (state, aux, out, n,
                                                                     np.int32(G)))  # fmt: skip
    return t_init


def ours_u32(kind: str, G: int, per_thread: int, seed: int) -> np.ndarray:
    """The first ``per_thread`` draws of each of ``G`` generators of the fill kernel,
    shape (per_thread, G) uint32 (for Philox, per_thread a multiple of 4): the array
    :func:`simcore.rng.classic.draw_all` gives for ``init_state(kind, seed, G)``."""
    import cupy as cp

    out = cp.empty(per_thread * G, dtype=cp.uint32)
    fill_ours(kind, out, G, seed, raw=True)
    return cp.asnumpy(out).reshape(per_thread, G)


def host_ours(kind: str, n: int, G: int, repeats: int, seed: int
               ) -> tuple[list[tuple[float, float]], float]:  # fmt: skip
    """(t_INIT, t_GEN) of each repeat of simcore's fill, and the check."""
    import cupy as cp

    out = cp.empty(n, dtype=cp.float32)
    fill_ours(kind, out[: min(n, 4 * G)], G, seed)  # compile, JIT the seeding, load
    sync()
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        t_init = fill_ours(kind, out, G, seed + 1 + r)
        sync()
        times.append((t_init, time.perf_counter() - t0 - t_init))
    return times, float(out.mean())


def device_ours(kind: str, blocks: int, threads: int, draws: int, launches: int, seed: int
                 ) -> tuple[float, list[float], float]:  # fmt: skip
    """(t_INIT, seconds per launch, odd fraction) of simcore's generator ``kind`` in the
    count kernel, one generator per thread."""
    import cupy as cp

    from simcore.seeding import philox_key

    mod = _ours()
    G = blocks * threads
    odd = cp.zeros(1, dtype=cp.uint64)
    if kind == "philox":
        k0, k1 = philox_key(seed)
        kern = mod.get_function("count_philox")
        call = [0]

        def launch() -> None:
            kern((blocks,), (threads,), (odd, np.int32(draws), np.uint32(call[0]),
                                         np.uint32(k0), np.uint32(k1), np.int32(G)))  # fmt: skip
            call[0] += draws // 4

        t_init = 0.0
    else:
        from simcore.rng.classic import init_state

        init_state(kind, seed, 1)  # JIT the seeding outside the timing
        t0 = time.perf_counter()
        state, aux = _upload_state(kind, seed, G)
        sync()
        t_init = time.perf_counter() - t0
        kern = mod.get_function(f"count_{kind}")

        def launch() -> None:
            kern((blocks,), (threads,), (state, aux, odd, np.int32(draws), np.int32(G)))

    secs = time_launches(launch, launches)
    return t_init, secs, int(odd.get()[0]) / (G * draws * (launches + 1))
