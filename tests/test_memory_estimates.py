"""Each model's memory estimate (:meth:`ModelSpec.work`) against what a real job allocates.

``simcore run`` refuses a job whose host bytes (state + results + scratch) exceed the free
memory, or whose ``device_bytes`` exceed the GPU's, so the figures must be what the job
allocates: never above its real peak by more than 10 % (a refusal must never be wrong;
the estimates count the arrays the code allocates and land within a few per cent of the
peak, the 10 % leave room for the memory pool's rounding and numpy's temporaries, which
differ a little between versions), and not below half of it (what the estimates leave
out on purpose, the sum trees of kmc2d's serial and bkl beyond one thread's, and the
interpreter's own objects, must stay below the rest).  The jobs run in-process for their
first sampling steps and ``to_dataset`` (a GPU job also copies its state to the host, as
a checkpoint does): the host peak is the one :mod:`tracemalloc` traces (numba's arrays
included), the device peak the high-water mark of the bytes in use in CuPy's default
memory pool.  Sizes are chosen so that the lattices (about 10 to 60 MiB) dominate the
interpreter's own allocations (tens of KiB), and the runs are short: t_max is small, so
that no later step of the job (a longer one, whose tables grow with its length) would
need more than the first steps.  Each job runs twice, the first time to load or compile
its kernels, whose own allocations are not the job's.
"""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import pytest
from conftest import gpu_count

from simcore.config import validate_run_config
from simcore.models import make_simulation, registry
from simcore.models.spec import Work

#: An estimate may lie between half the measured peak and 10 % above it (module doc).
LOW, HIGH = 0.5, 1.1
#: Sampling steps each job makes before its dataset is built.
STEPS = 3

_KPZ = {"model": "kpz", "dim": 2, "L": 1024, "samples": 2, "seed": 7, "t_max": 10,
        "waiting_times": [1, 2]}  # fmt: skip
_EA3D = {"model": "ea3d", "T": 1.0, "samples": 64, "seed": 7, "t_max": 4}
_PT = {"model": "ea3d_pt", "L": 40, "T_min": 0.8, "T_max": 2.0, "n_T": 8, "samples": 64,
       "seed": 7, "t_max": 8, "exchange_every": 1}  # fmt: skip
_KMC = {"model": "kmc2d", "rates": "sos", "phi": 1.0, "L": 512, "samples": 2, "seed": 7,
        "t_max": 1}  # fmt: skip
_ISING = {**{k: v for k, v in _KMC.items() if k != "phi"}, "rates": "ising", "T": 2.0}
_FCC = {"model": "fcc", "L": 64, "c": 0.3, "epsilon": 1.0, "samples": 2, "seed": 7, "t_max": 2}

#: Every model and CPU scheme (and each stateful generator of ea3d, whose seeding peaks).
CPU_JOBS: dict[str, dict[str, Any]] = {
    "kpz-d2-sequential": _KPZ,
    "kpz-d1-sequential": {**_KPZ, "dim": 1, "L": 2**20, "waiting_times": [1]},
    "kpz-DTr": {**_KPZ, "scheme": "DTr", "domain": [128, 128]},
    "kpz-DTrDT": {**_KPZ, "scheme": "DTrDT", "domain": [64, 64]},
    "kpz-DBDB": {**_KPZ, "scheme": "DBDB", "domain": [64, 64]},
    "ea3d-philox": {**_EA3D, "L": 64},
    "ea3d-minstd": {**_EA3D, "L": 48, "prng": "minstd"},
    "ea3d-pr64": {**_EA3D, "L": 48, "prng": "pr64"},
    "ea3d-mt19937": {**_EA3D, "L": 32, "prng": "mt19937"},
    "ea3d_pt": _PT,
    "kmc2d-bkl": {**_KMC, "scheme": "bkl"},
    "kmc2d-serial": {**_KMC, "scheme": "serial"},
    "kmc2d-tiles": {**_KMC, "scheme": "tiles", "tile": 8},
    "kmc2d-ising-bkl": {**_ISING, "scheme": "bkl"},
    "fcc-sequential": _FCC,
    "fcc-dt": {**_FCC, "scheme": "dt", "block_side": 8},
    "fcc-slabs": {**_FCC, "scheme": "slabs", "n_slabs": 4},
}

_KPZ_GPU = {**_KPZ, "backend": "gpu", "domain": [64, 64], "tc": [1, 1], "waiting_times": [1]}

#: Every model and GPU scheme.
GPU_JOBS: dict[str, dict[str, Any]] = {
    "kpz-DTrDT": {**_KPZ_GPU, "scheme": "DTrDT"},
    "kpz-DBDB": {**_KPZ_GPU, "scheme": "DBDB"},
    "ea3d-philox": {**_EA3D, "backend": "gpu", "L": 64, "samples": 128},
    "ea3d-mt19937": {**_EA3D, "backend": "gpu", "L": 32, "prng": "mt19937"},
    "ea3d_pt": {**_PT, "backend": "gpu", "L": 32},
    "kmc2d-tiles4": {**_KMC, "backend": "gpu", "scheme": "tiles", "tile": 4},
    "kmc2d-tiles8": {**_KMC, "backend": "gpu", "scheme": "tiles", "tile": 8},
    "fcc-dt": {**_FCC, "backend": "gpu", "scheme": "dt", "block_side": 8},
}


needs_gpu = pytest.mark.skipif(gpu_count() < 1, reason="needs CuPy and a CUDA GPU")


def _job(raw: dict[str, Any], checkpoint: bool = False) -> None:
    """Make the job of run config ``raw``, take its first :data:`STEPS` steps (with
    ``checkpoint``, copy its state to the host afterwards, as a checkpoint does) and
    build its dataset."""
    sim = make_simulation(validate_run_config(dict(raw)))
    st = sim.initial_state()
    for _ in range(STEPS):
        if sim.done(st):
            break
        sim.step(st)
    if checkpoint:
        sim.to_host(st)
    sim.to_dataset(st)


def _estimate(raw: dict[str, Any]) -> Work:
    cfg = validate_run_config(dict(raw))
    spec = registry.get(cfg["model"])
    return spec.work(cfg, {key: default for key, (default, _) in spec.resource_rates.items()})


def _host_peak(raw: dict[str, Any], checkpoint: bool = False) -> int:
    """Peak traced host bytes of the job (kernels loaded by a first run)."""
    _job(raw, checkpoint)
    gc.collect()
    tracemalloc.start()
    try:
        _job(raw, checkpoint)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _within(estimate: float, peak: float) -> bool:
    return LOW * peak <= estimate <= HIGH * peak


@pytest.mark.parametrize("name", list(CPU_JOBS))
def test_host_bytes_of_cpu_jobs_match_the_traced_peak(name: str) -> None:
    """A CPU job's host bytes (state + results + scratch) lie within 0.5 and 1.1 times the
    peak that tracemalloc traces over its first 3 steps and its dataset (module doc: why
    these bounds); a CPU job asks for no device memory."""
    raw = CPU_JOBS[name]
    work = _estimate(raw)
    peak = _host_peak(raw)
    assert work.device_bytes == 0
    assert _within(work.host_bytes, peak), (
        f"{name}: estimate {work.host_bytes / 2**20:.2f} MiB, traced peak {peak / 2**20:.2f} MiB"
    )


def _device_peak(raw: dict[str, Any]) -> int:
    """High-water mark of the bytes in use in CuPy's default memory pool over the job (its
    kernels compiled by a first run), above those in use before it: sampled by a memory
    hook after every allocation from the pool, which is emptied first."""
    import cupy as cp

    pool = cp.get_default_memory_pool()

    class Peak(cp.cuda.MemoryHook):
        name = "DevicePeak"

        def __init__(self) -> None:
            self.base = pool.used_bytes()
            self.peak = 0

        def malloc_postprocess(self, *args: Any, **kwargs: Any) -> None:
            self.peak = max(self.peak, pool.used_bytes() - self.base)

    _job(raw, checkpoint=True)
    gc.collect()
    cp.cuda.Device().synchronize()
    pool.free_all_blocks()
    hook = Peak()
    with hook:
        _job(raw, checkpoint=True)
    cp.cuda.Device().synchronize()
    return hook.peak


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("name", list(GPU_JOBS))
def test_device_and_host_bytes_of_gpu_jobs_match_their_peaks(name: str) -> None:
    """A GPU job's device bytes lie within 0.5 and 1.1 times the high-water mark of the
    bytes in use in CuPy's memory pool over its first 3 steps, a checkpoint's copy to the
    host and its dataset; its host bytes (which count that copy) within the same bounds of
    the traced host peak of the same run (module doc: why these bounds)."""
    raw = GPU_JOBS[name]
    work = _estimate(raw)
    device = _device_peak(raw)
    assert _within(work.device_bytes, device), (
        f"{name}: device estimate {work.device_bytes / 2**20:.2f} MiB, "
        f"pool peak {device / 2**20:.2f} MiB"
    )
    host = _host_peak(raw, checkpoint=True)
    assert _within(work.host_bytes, host), (
        f"{name}: host estimate {work.host_bytes / 2**20:.2f} MiB, "
        f"traced peak {host / 2**20:.2f} MiB"
    )
