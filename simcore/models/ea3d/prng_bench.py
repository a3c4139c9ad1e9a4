"""Random-number generator benchmark of lulli2015 sec. 3: Tables 1 and 2 (``simcore bench
prng``).

Table 1, the host API (the PRAND test the paper uses): fill a GPU array of ``--n``
single-precision floats (2^29 by default), timing t_INIT (creating and seeding the
generator, its state on the GPU), t_GEN (the fill, synchronized) and t_TOT = t_INIT +
t_GEN, each the median of ``--repeats`` fresh generators (wall clock around synchronized
calls, the first generator of each kind untimed: it loads the library or compiles the
kernel).

* cuRAND through CuPy's host API (``cupy.cuda.curand``): XORWOW, MTGP32, MT19937 and
  Philox4x32-10, seed set, ``curandGenerateUniform``.  cuRAND builds a generator's state
  lazily at its first generation, so its state set-up falls into t_GEN, as it did for the
  paper (its cuRAND t_INIT are 0.01 s).
* simcore's generators (``cuda/prng_bench.cu``): MINSTD, Parisi-Rapuano + 64-bit LCG
  (pr64), MT19937 and Philox, with the device functions and the state layout of the
  spin-glass kernels (``simcore/rng/cuda``), one generator per thread: ``--instances``
  threads (default 2^16, the generators of an ea3d battery,
  :data:`simcore.models.ea3d.kernels.MAX_GENERATORS`).  t_INIT is the seeding of
  :func:`simcore.rng.classic.init_state` on the host plus the upload of the state (the
  paper read its MT19937 seeds from the system's random pool); Philox has no state.

Table 2, the device API: generator instances (32-bit numbers) per second drawn inside a
kernel with the paper's launch, ``--blocks`` 64 x ``--threads`` 256, every thread drawing
``--draws`` 2^15 numbers and counting the odd ones, ``--launches`` 10 times; the rate is
the draws of one launch over the median launch time (CUDA events), the set-up (seeding)
reported as t_INIT.

* cuRAND's device API (``cuda/curand_bench.cu``, NVRTC with ``<curand_kernel.h>``): XORWOW
  (``curandState``), Philox (``curandStatePhilox4_32_10_t``) and MTGP32
  (``curandStateMtgp32``, one state and parameter set per block, at most 200 blocks of at
  most 256 threads).  cuRAND's MT19937 has no device API: its row says so.
* simcore's four generators, one per thread, the same kernels' device functions.

Each generator gets one CSV row per table (``api`` host or device) with the medians and
the spread of the repeats; a generator that cannot run here (CuPy without a cuRAND
binding, no curand headers, cuRAND's MT19937 device API) gets a row whose ``status`` says
why, never a crash.  ``check`` is a sanity value: the mean of the filled floats (host, ~0.5)
or the fraction of odd draws (device, ~0.5); a row whose check is off by more than 0.01
says so in its status.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from simcore.benchreport import add_output_options, append_csv_rows, report
from simcore.checks import ConfigError
from simcore.io.provenance import git_commit
from simcore.models.ea3d.kernels import MAX_GENERATORS
from simcore.models.spec import BenchKernel
from simcore.rng.streams import STREAM_EA_METROPOLIS

#: simcore's generators in the fill and count kernels (``cuda/prng_bench.cu``).
OURS_SOURCE = Path(__file__).with_name("cuda") / "prng_bench.cu"
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

#: Counter word c3 of the benchmark's Philox draws (the spin-glass Metropolis stream).
TAG_BENCH = STREAM_EA_METROPOLIS << 24

#: The generators, in table order: cuRAND's, then simcore's.
CURAND_GENERATORS = ("curand_xorwow", "curand_mtgp32", "curand_mt19937", "curand_philox")
OUR_GENERATORS = ("minstd", "pr64", "mt19937", "philox")
GENERATORS = CURAND_GENERATORS + OUR_GENERATORS
#: cuRAND host generator types (curandRngType_t) by generator.
CURAND_HOST_TYPES = {"curand_xorwow": ("CURAND_RNG_PSEUDO_XORWOW", 101),
                     "curand_mtgp32": ("CURAND_RNG_PSEUDO_MTGP32", 141),
                     "curand_mt19937": ("CURAND_RNG_PSEUDO_MT19937", 142),
                     "curand_philox": ("CURAND_RNG_PSEUDO_PHILOX4_32_10", 161)}  # fmt: skip
#: Status of cuRAND's MT19937 in the device-API test.
NO_DEVICE_API = "not available: cuRAND's MT19937 has no device API (host generator only)"
APIS = ("host", "device")

PRNG_FIELDS = (
    "api", "generator", "status", "numbers", "instances", "repeats", "t_init", "t_gen",
    "t_tot", "t_tot_min", "t_tot_max", "per_second", "per_second_min", "per_second_max",
    "check", "backend", "device", "commit",
)  # fmt: skip

#: Threads per block of the host-API fill kernels.
FILL_BLOCK = 256
#: How far the check (mean of the floats, or odd fraction) may stray from 1/2.
CHECK_TOLERANCE = 0.01


class NotAvailable(Exception):
    """A generator that cannot run on this machine: its row's status says why."""


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


# ------------------------------------------------------------------ GPU helpers
def _sync() -> None:
    import cupy as cp

    cp.cuda.Device().synchronize()


def _one_line(exc: BaseException) -> str:
    """An exception as one short line for a row's status (compiler logs are long)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    error = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
    return f"{type(exc).__name__}: {error}"[:200]


@lru_cache(maxsize=1)
def _ours():
    """The compiled module of ``cuda/prng_bench.cu``."""
    from simcore.backends.cuda import load_module

    return load_module(OURS_SOURCE, ())


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
            raise NotAvailable(f"failed to compile the cuRAND kernels: {_one_line(first)}"
                               ) from None  # fmt: skip
        try:
            return load_module(CURAND_SOURCE, (), (f"-I{inc}", f"-I{inc / 'cccl'}")), inc
        except Exception as exc:  # noqa: BLE001
            raise NotAvailable(f"failed to compile the cuRAND kernels: {_one_line(exc)}"
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
                               f"({_one_line(exc)})") from None  # fmt: skip
    return curand


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
    _sync()
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


def _host_ours(kind: str, n: int, G: int, repeats: int, seed: int
               ) -> tuple[list[tuple[float, float]], float]:  # fmt: skip
    """(t_INIT, t_GEN) of each repeat of simcore's fill, and the check."""
    import cupy as cp

    out = cp.empty(n, dtype=cp.float32)
    fill_ours(kind, out[: min(n, 4 * G)], G, seed)  # compile, JIT the seeding, load
    _sync()
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        t_init = fill_ours(kind, out, G, seed + 1 + r)
        _sync()
        times.append((t_init, time.perf_counter() - t0 - t_init))
    return times, float(out.mean())


def _host_curand(gen: str, n: int, repeats: int, seed: int
                 ) -> tuple[list[tuple[float, float]], float]:  # fmt: skip
    """(t_INIT, t_GEN) of each repeat of a cuRAND host generator, and the check."""
    import cupy as cp

    curand = _curand_host()
    name, code = CURAND_HOST_TYPES[gen]
    rng_type = getattr(curand, name, code)
    out = cp.empty(n, dtype=cp.float32)

    def one(count: int, seed_: int) -> tuple[float, float]:
        _sync()
        t0 = time.perf_counter()
        g = curand.createGenerator(rng_type)
        try:
            curand.setPseudoRandomGeneratorSeed(g, seed_)
            _sync()
            t1 = time.perf_counter()
            curand.generateUniform(g, out.data.ptr, count)
            _sync()
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


def _time_launches(launch: Callable[[], None], launches: int) -> list[float]:
    """Seconds of each of ``launches`` calls of ``launch`` (CUDA events), after one
    untimed call (module loading, caches)."""
    import cupy as cp

    launch()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(launches):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return out


def _device_ours(kind: str, blocks: int, threads: int, draws: int, launches: int, seed: int
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
        _sync()
        t_init = time.perf_counter() - t0
        kern = mod.get_function(f"count_{kind}")

        def launch() -> None:
            kern((blocks,), (threads,), (state, aux, odd, np.int32(draws), np.int32(G)))

    secs = _time_launches(launch, launches)
    return t_init, secs, int(odd.get()[0]) / (G * draws * (launches + 1))


def _device_curand(gen: str, blocks: int, threads: int, draws: int, launches: int, seed: int
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

    secs = _time_launches(lambda: kern((blocks,), (threads,), args), launches)
    return t_init, secs, int(odd.get()[0]) / (G * draws * (launches + 1))


# ------------------------------------------------------------------ the benchmark
def _row(api: str, gen: str, status: str, **values: Any) -> dict[str, Any]:
    nan = float("nan")
    row = {"api": api, "generator": gen, "status": status, "numbers": "", "instances": "",
           "repeats": "", "t_init": nan, "t_gen": nan, "t_tot": nan, "t_tot_min": nan,
           "t_tot_max": nan, "per_second": nan, "per_second_min": nan, "per_second_max": nan,
           "check": nan}  # fmt: skip
    row.update(values)
    return row


def _checked(check: float) -> str:
    return "ok" if abs(check - 0.5) <= CHECK_TOLERANCE else f"suspect: check {check:.4f} != 0.5"


def host_row(gen: str, n: int, G: int, repeats: int, seed: int) -> dict[str, Any]:
    """Table 1's row of generator ``gen`` (medians over ``repeats``; min and max of t_TOT
    and of the numbers per second of t_GEN)."""
    try:
        if gen in CURAND_GENERATORS:
            times, check = _host_curand(gen, n, repeats, seed)
            instances = ""
        else:
            times, check = _host_ours(gen, n, G, repeats, seed)
            instances = G
    except NotAvailable as exc:
        return _row("host", gen, str(exc))
    except Exception as exc:  # noqa: BLE001 - a generator that fails is a row, not a crash
        return _row("host", gen, f"failed: {_one_line(exc)}")
    tot = [a + b for a, b in times]
    rate = [n / b for _, b in times]
    return _row("host", gen, _checked(check), numbers=n, instances=instances, repeats=repeats,
                t_init=statistics.median(a for a, _ in times),
                t_gen=statistics.median(b for _, b in times), t_tot=statistics.median(tot),
                t_tot_min=min(tot), t_tot_max=max(tot), per_second=statistics.median(rate),
                per_second_min=min(rate), per_second_max=max(rate), check=check)  # fmt: skip


def device_row(gen: str, blocks: int, threads: int, draws: int, launches: int, seed: int
               ) -> dict[str, Any]:  # fmt: skip
    """Table 2's row of generator ``gen``: instances per second of the median launch (min
    and max over the launches), t_GEN the median launch, t_TOT the set-up plus all
    launches."""
    try:
        if gen in CURAND_GENERATORS:
            t_init, secs, check = _device_curand(gen, blocks, threads, draws, launches, seed)
        else:
            t_init, secs, check = _device_ours(gen, blocks, threads, draws, launches, seed)
    except NotAvailable as exc:
        return _row("device", gen, str(exc))
    except Exception as exc:  # noqa: BLE001 - a generator that fails is a row, not a crash
        return _row("device", gen, f"failed: {_one_line(exc)}")
    per_launch = blocks * threads * draws
    rate = [per_launch / s for s in secs]
    return _row("device", gen, _checked(check), numbers=per_launch * launches,
                instances=blocks * threads, repeats=launches, t_init=t_init,
                t_gen=statistics.median(secs), t_tot=t_init + sum(secs),
                t_tot_min=t_init + sum(secs), t_tot_max=t_init + sum(secs),
                per_second=per_launch / statistics.median(secs), per_second_min=min(rate),
                per_second_max=max(rate), check=check)  # fmt: skip


def _check_options(n: int, repeats: int, instances: int, blocks: int, threads: int,
                   draws: int, launches: int, seed: int) -> None:  # fmt: skip
    """One-line ConfigErrors for options out of range (before the GPU is touched)."""
    for opt, value, lo in (("--n", n, 1), ("--repeats", repeats, 1), ("--instances", instances, 1),
                           ("--blocks", blocks, 1), ("--threads", threads, 1),
                           ("--draws", draws, 4), ("--launches", launches, 1)):  # fmt: skip
        if value < lo:
            raise ConfigError(opt, value, f"must be >= {lo}")
    if n >= 1 << 40:
        raise ConfigError("--n", n, "must be < 2^40")
    if threads > 1024:
        raise ConfigError("--threads", threads, "must be <= 1024 (threads per block)")
    if draws % 4:
        raise ConfigError("--draws", draws, "must be a multiple of 4 (one Philox call = 4)")
    if draws >= 1 << 31:
        raise ConfigError("--draws", draws, "must be < 2^31")
    if instances >= 1 << 31 or blocks * threads >= 1 << 31:
        raise ConfigError("--instances", instances, "must be < 2^31")
    if not 0 <= seed < 1 << 63:
        raise ConfigError("--seed", seed, "must be in [0, 2^63)")


def run_bench_prng(
    generators: Sequence[str],
    apis: Sequence[str],
    n: int,
    repeats: int,
    instances: int,
    blocks: int,
    threads: int,
    draws: int,
    launches: int,
    seed: int,
    append: str | None,
    csv_path: str | None,
) -> str:
    """Tables 1 and 2 for ``generators`` (``apis`` host and/or device): markdown report,
    and one CSV row per (api, generator) appended to ``csv_path``."""
    _check_options(n, repeats, instances, blocks, threads, draws, launches, seed)
    from simcore.backends.cuda import gpu_device_name, gpu_free_bytes, require_gpu

    require_gpu()
    if "host" in apis:
        free = gpu_free_bytes()
        need = 4 * n + 2516 * instances
        if need > 0.9 * free:
            raise ConfigError("--n", n, f"needs {need / 2**30:.1f} GiB of GPU memory, "
                              f"{free / 2**30:.1f} GiB are free")  # fmt: skip
    device, commit = gpu_device_name(), git_commit() or "n/a"
    rows = []
    for api in APIS:
        if api not in apis:
            continue
        for gen in (g for g in GENERATORS if g in generators):
            if api == "host":
                row = host_row(gen, n, instances, repeats, seed)
            else:
                row = device_row(gen, blocks, threads, draws, launches, seed)
            row.update(backend="gpu", device=device, commit=commit)
            rows.append(row)
            what = (f"t_TOT {row['t_tot']:.4g} s" if api == "host"
                    else f"{row['per_second']:.4g} instances/s")  # fmt: skip
            print(f"prng {api} {gen}: {what} ({row['status']})", file=sys.stderr, flush=True)
            if csv_path:
                append_csv_rows(csv_path, PRNG_FIELDS, [row])
    lines = ["| API | generator | t_INIT [s] | t_GEN [s] | t_TOT [s] (min-max) | numbers/s | "
             "check | status |", "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        lines.append(f"| {r['api']} | {r['generator']} | {r['t_init']:.4g} | {r['t_gen']:.4g} | "
                     f"{r['t_tot']:.4g} ({r['t_tot_min']:.4g}-{r['t_tot_max']:.4g}) | "
                     f"{r['per_second']:.4g} | {r['check']:.4f} | {r['status']} |")  # fmt: skip
    return report(
        "Random number generators (lulli2015 Tables 1 and 2)",
        f"device: {device}; host API: {n} floats, our generators on {instances} threads, "
        f"median of {repeats}; device API: {blocks} x {threads} threads x {draws} draws, "
        f"median of {launches} launches",
        commit,
        lines,
        append,
    )


def _prng_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--generators",
        nargs="+",
        default=list(GENERATORS),
        choices=GENERATORS,
        help="generators (default all: cuRAND's XORWOW, MTGP32, MT19937, Philox, "
        "then simcore's MINSTD, pr64, MT19937, Philox)",
    )
    ap.add_argument(
        "--api",
        nargs="+",
        default=list(APIS),
        choices=APIS,
        help="host (Table 1: fill an array) and/or device (Table 2: draws inside "
        "a kernel) (default both)",
    )
    ap.add_argument(
        "--n",
        type=int,
        default=1 << 29,
        help="floats of the host-API fill (default 2^29, the paper's)",
    )
    ap.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="fresh generators timed per host-API row, median (default 5)",
    )
    ap.add_argument(
        "--instances",
        type=int,
        default=MAX_GENERATORS,
        help="threads (one generator each) of simcore's host-API fill "
        f"(default {MAX_GENERATORS}, an ea3d battery)",
    )
    ap.add_argument("--blocks", type=int, default=64, help="device API: blocks (default 64)")
    ap.add_argument(
        "--threads", type=int, default=256, help="device API: threads per block (default 256)"
    )
    ap.add_argument(
        "--draws",
        type=int,
        default=1 << 15,
        help="device API: numbers per thread and launch, a multiple of 4 (default 2^15)",
    )
    ap.add_argument(
        "--launches",
        type=int,
        default=10,
        help="device API: timed launches, median (default 10, the paper's)",
    )
    ap.add_argument("--seed", type=int, default=2015, help="seed of every generator")
    add_output_options(ap)  # fmt: skip


def _run_prng(args: argparse.Namespace) -> str:
    return run_bench_prng(args.generators, args.api, args.n, args.repeats, args.instances,
                          args.blocks, args.threads, args.draws, args.launches, args.seed,
                          args.append, args.csv)  # fmt: skip


PRNG = BenchKernel(
    "prng",
    "EA3D: random number generators, fill time (host API) and instances per second "
    "(device API) of cuRAND's and simcore's (lulli2015 Tables 1, 2)",
    _prng_arguments,
    _run_prng,
)
