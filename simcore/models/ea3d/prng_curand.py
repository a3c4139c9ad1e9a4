"""cuRAND's side of the generator benchmark (``simcore bench prng``,
:mod:`simcore.models.ea3d.prng_bench`): its headers and MTGP32 tables, and the timing of
its host API (CuPy's binding) and of its device API (``cuda/curand_bench.cu``)."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from simcore.models.ea3d.prng_gpu import NotAvailable, error_summary, sync, time_launches

#: cuRAND's device API in the count kernels (``cuda/curand_bench.cu``).
CURAND_SOURCE = Path(__file__).with_name("cuda") / "curand_bench.cu"
#: The header holding cuRAND's 200 MTGP32 parameter sets (Mersenne exponent 11213).
MTGP32_HEADER = "curand_mtgp32dc_p_11213.h"
MTGP32_MEXP = 11213
#: Parameter sets of the MTGP32 table (CURAND_NUM_MTGP32_PARAMS): at most this many blocks.
MTGP32_MAX_BLOCKS = 200
#: Threads per block of MTGP32's device API at most (MTGPDC_FLOOR_2P).
MTGP32_MAX_THREADS = 256
#: Words of one parameter set of the header: mexp, pos, sh1, sh2, tbl[16], tmp_tbl[16],
#: flt_tmp_tbl[16], mask, poly_sha1[21].
_MTGP32_SET_WORDS = 4 + 3 * 16 + 1 + 21

#: cuRAND's generators, in table order.
CURAND_GENERATORS = ("curand_xorwow", "curand_mtgp32", "curand_mt19937", "curand_philox")
#: cuRAND host generator types (curandRngType_t) by generator.
CURAND_HOST_TYPES = {"curand_xorwow": ("CURAND_RNG_PSEUDO_XORWOW", 101),
                     "curand_mtgp32": ("CURAND_RNG_PSEUDO_MTGP32", 141),
                     "curand_mt19937": ("CURAND_RNG_PSEUDO_MT19937", 142),
                     "curand_philox": ("CURAND_RNG_PSEUDO_PHILOX4_32_10", 161)}  # fmt: skip
#: Status of cuRAND's MT19937 in the device-API test.
NO_DEVICE_API = "not available: cuRAND's MT19937 has no device API (host generator only)"


# ------------------------------------------------------------------ headers and tables
def curand_include_dir(extra: Sequence[str | os.PathLike[str]] = ()) -> Path | None:
    """The directory holding ``curand_kernel.h`` (and cuRAND's MTGP32 tables), or None.

    Looked for in ``extra``, then ``$CUDA_PATH``, ``$CUDA_HOME``, ``$CUDA_ROOT`` (their
    ``include``), CuPy's CUDA path, the toolkit of the ``nvcc`` on the PATH, /usr/local/cuda,
    and the pip packages of NVIDIA's libraries (``nvidia/cu13/include``, ...).  NVRTC has
    no default include path (CuPy issue #7328), so the cuRAND kernels are built with it."""
    import shutil

    roots: list[Path] = [Path(p) for p in extra]
    for var in ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"):
        if os.environ.get(var):
            roots.append(Path(os.environ[var]) / "include")
    try:
        import cupy

        cuda_path = cupy.cuda.get_cuda_path()
        if cuda_path:
            roots.append(Path(cuda_path) / "include")
    except Exception:  # noqa: BLE001 - no CuPy, or no CUDA path: look elsewhere
        pass
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(Path(nvcc).resolve().parent.parent / "include")
    roots.append(Path("/usr/local/cuda/include"))
    for site in sys.path:
        for sub in ("nvidia/cu13/include", "nvidia/cu12/include", "nvidia/curand/include"):
            roots.append(Path(site or ".") / sub)
    return next((r for r in roots if (r / "curand_kernel.h").is_file()), None)


def read_mtgp32_params(text: str, n_sets: int = MTGP32_MAX_BLOCKS) -> np.ndarray:
    """cuRAND's MTGP32 parameter sets from the text of ``curand_mtgp32dc_p_11213.h``, laid
    out as ``mtgp32_kernel_params_t`` (what curandMakeMTGP32Constants uploads): uint32
    words pos_tbl[n], param_tbl[n][16], temper_tbl[n][16], single_temper_tbl[n][16],
    sh1_tbl[n], sh2_tbl[n], mask[1] (all unsigned int: no padding).

    The header's initializer is read as its integer literals in order, 74 per set (mexp,
    pos, sh1, sh2, tbl, tmp_tbl, flt_tmp_tbl, mask, the 21 bytes of poly_sha1); ValueError
    if the table does not have ``n_sets`` sets of Mersenne exponent 11213."""
    start = text.find("mtgp32dc_params_fast_11213[]")
    body = text[text.find("=", start) + 1 :] if start >= 0 else ""
    body = re.sub(r"/\*.*?\*/|//[^\n]*", " ", body, flags=re.S)
    body = body[: body.rfind("};") if "};" in body else len(body)]
    words = [int(w, 0) for w in re.findall(r"\b(?:0[xX][0-9a-fA-F]+|\d+)\b", body)]
    if start < 0 or len(words) < n_sets * _MTGP32_SET_WORDS:
        raise ValueError(f"{MTGP32_HEADER}: expected {n_sets} MTGP32 parameter sets of "
                         f"{_MTGP32_SET_WORDS} numbers, found {len(words)} numbers")  # fmt: skip
    sets = np.array(words[: n_sets * _MTGP32_SET_WORDS], dtype=np.uint64).reshape(n_sets, -1)
    if np.any(sets[:, 0] != MTGP32_MEXP):
        raise ValueError(f"{MTGP32_HEADER}: a parameter set is not of exponent {MTGP32_MEXP}")
    pos, sh1, sh2 = sets[:, 1], sets[:, 2], sets[:, 3]
    tbl, tmp_tbl, flt_tbl = sets[:, 4:20], sets[:, 20:36], sets[:, 36:52]
    mask = sets[:1, 52]
    flat = np.concatenate([pos, tbl.ravel(), tmp_tbl.ravel(), flt_tbl.ravel(), sh1, sh2, mask])
    return flat.astype(np.uint32)


def mtgp32_seed_state(tbl4: int, tbl8: int, seed: int, block: int) -> np.ndarray:
    """The 351 state words cuRAND's host helper curandMakeMTGP32KernelState gives state
    ``block`` (mtgp32_init_state with the seed (seed ^ seed >> 32) + block + 1), from words
    4 and 8 of that block's parameter table: the twin of ``mtgp32_init`` in
    ``cuda/curand_bench.cu``, which does it on the GPU."""
    size = MTGP32_MEXP // 32 + 1
    hidden = (tbl4 ^ (tbl8 << 16)) & 0xFFFFFFFF
    tmp = hidden
    tmp = (tmp + (tmp >> 16)) & 0xFFFFFFFF
    tmp = (tmp + (tmp >> 8)) & 0xFFFFFFFF
    s = [(tmp & 0xFF) * 0x01010101] * size
    s[0] = ((seed ^ (seed >> 32)) + block + 1) & 0xFFFFFFFF
    s[1] = hidden
    for i in range(1, size):
        s[i] ^= (1812433253 * (s[i - 1] ^ (s[i - 1] >> 30)) + i) & 0xFFFFFFFF
    return np.array(s, dtype=np.uint32)


@lru_cache(maxsize=1)
def _curand_module():
    """The compiled module of ``cuda/curand_bench.cu`` and its include directory;
    :class:`NotAvailable` where no curand headers are found or they do not compile."""
    from simcore.backends.cuda import load_module

    inc = curand_include_dir()
    if inc is None:
        raise NotAvailable("not available: curand_kernel.h not found (set CUDA_PATH to the "
                           "CUDA toolkit)")  # fmt: skip
    try:
        return load_module(CURAND_SOURCE, (), (f"-I{inc}",)), inc
    except Exception as first:  # noqa: BLE001 - NVRTC lacks CCCL: retry with the toolkit's
        if not (inc / "cccl").is_dir():
            raise NotAvailable(f"failed to compile the cuRAND kernels: {error_summary(first)}"
                               ) from None  # fmt: skip
        try:
            return load_module(CURAND_SOURCE, (), (f"-I{inc}", f"-I{inc / 'cccl'}")), inc
        except Exception as exc:  # noqa: BLE001
            raise NotAvailable(f"failed to compile the cuRAND kernels: {error_summary(exc)}"
                               ) from None  # fmt: skip


def _curand_host():
    """CuPy's cuRAND host binding; :class:`NotAvailable` without one."""
    try:
        from cupy.cuda import curand
    except ImportError:
        try:
            from cupy_backends.cuda.libs import curand
        except ImportError as exc:
            raise NotAvailable(f"not available: CuPy's cuRAND binding does not load "
                               f"({error_summary(exc)})") from None  # fmt: skip
    return curand


# ------------------------------------------------------------------ timings
def host_curand(gen: str, n: int, repeats: int, seed: int
                 ) -> tuple[list[tuple[float, float]], float]:  # fmt: skip
    """(t_INIT, t_GEN) of each repeat of a cuRAND host generator, and the check."""
    import cupy as cp

    curand = _curand_host()
    name, code = CURAND_HOST_TYPES[gen]
    rng_type = getattr(curand, name, code)
    out = cp.empty(n, dtype=cp.float32)

    def one(count: int, seed_: int) -> tuple[float, float]:
        sync()
        t0 = time.perf_counter()
        g = curand.createGenerator(rng_type)
        try:
            curand.setPseudoRandomGeneratorSeed(g, seed_)
            sync()
            t1 = time.perf_counter()
            curand.generateUniform(g, out.data.ptr, count)
            sync()
            t2 = time.perf_counter()
        finally:
            curand.destroyGenerator(g)
        return t1 - t0, t2 - t1

    one(min(n, 1 << 20), seed)  # load the library and its kernels
    times = [one(n, seed + 1 + r) for r in range(repeats)]
    return times, float(out.mean())


def mtgp32_states_gpu(blocks: int, seed: int) -> np.ndarray:
    """The state words s[0 .. 350] of ``blocks`` MTGP32 states seeded by ``mtgp32_init`` on
    the GPU, shape (blocks, 351) (the check of the kernel against
    :func:`mtgp32_seed_state`)."""
    import cupy as cp

    mod, inc = _curand_module()
    sizes = cp.zeros(4, dtype=cp.uint64)
    mod.get_function("state_sizes")((1,), (1,), (sizes,))
    size_mtgp = int(sizes.get()[2])
    params = cp.asarray(read_mtgp32_params((inc / MTGP32_HEADER).read_text(errors="replace")))
    states = cp.zeros(blocks * size_mtgp, dtype=cp.uint8)
    mod.get_function("mtgp32_init")((blocks,), (1,), (states, params, np.uint64(seed)))
    words = cp.asnumpy(states).view(np.uint32).reshape(blocks, size_mtgp // 4)
    return words[:, : MTGP32_MEXP // 32 + 1]


def device_curand(gen: str, blocks: int, threads: int, draws: int, launches: int, seed: int
                   ) -> tuple[float, list[float], float]:  # fmt: skip
    """(t_INIT, seconds per launch, odd fraction) of cuRAND's device API."""
    import cupy as cp

    if gen == "curand_mt19937":
        raise NotAvailable(NO_DEVICE_API)
    if gen == "curand_mtgp32" and (blocks > MTGP32_MAX_BLOCKS or threads > MTGP32_MAX_THREADS):
        raise NotAvailable(
            f"not run: MTGP32's device API takes at most {MTGP32_MAX_BLOCKS} "
            f"blocks of {MTGP32_MAX_THREADS} threads, not {blocks} x {threads}"
        )
    mod, inc = _curand_module()
    sizes = cp.zeros(4, dtype=cp.uint64)
    mod.get_function("state_sizes")((1,), (1,), (sizes,))
    size_xorwow, size_philox, size_mtgp, size_params = (int(s) for s in sizes.get())
    G = blocks * threads
    odd = cp.zeros(1, dtype=cp.uint64)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    if gen == "curand_mtgp32":
        words = read_mtgp32_params((inc / MTGP32_HEADER).read_text(errors="replace"))
        if 4 * words.size != size_params:
            raise NotAvailable(f"failed: the MTGP32 parameter table has {4 * words.size} "
                               f"bytes, mtgp32_kernel_params_t {size_params}")  # fmt: skip
        states = cp.empty(blocks * size_mtgp, dtype=cp.uint8)
        start.record()
        params = cp.asarray(words)
        mod.get_function("mtgp32_init")((blocks,), (1,), (states, params, np.uint64(seed)))
        stop.record()
        kern = mod.get_function("mtgp32_count")
        args: tuple = (states, odd, np.int32(draws))
    else:
        prefix, size = (
            ("xorwow", size_xorwow) if gen == "curand_xorwow" else ("philox", size_philox)
        )
        states = cp.empty(G * size, dtype=cp.uint8)
        start.record()
        mod.get_function(f"{prefix}_init")((blocks,), (threads,), (states, np.uint64(seed),
                                                                  np.int32(G)))  # fmt: skip
        stop.record()
        kern = mod.get_function(f"{prefix}_count")
        args = (states, odd, np.int32(draws), np.int32(G))
    stop.synchronize()
    t_init = cp.cuda.get_elapsed_time(start, stop) / 1e3

    secs = time_launches(lambda: kern((blocks,), (threads,), args), launches)
    return t_init, secs, int(odd.get()[0]) / (G * draws * (launches + 1))
