"""The GPU tile algorithm against its CPU twin, bit for bit (``pytest -m gpu``), and a
compile check of the CUDA source wherever nvcc is installed."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from conftest import nvcc_ptx, run_steps
from test_kpz_gpu import needs_gpu

from simcore.models.kmc2d.gpu import COMPILE_EXTRA, CUDA_SOURCE, compile_defines
from simcore.models.kmc2d.rates import ISING, SOS, rate_tables
from simcore.models.kmc2d.serial import initial_times
from simcore.models.kmc2d.tiles import StepControl, TileIntegrator, first_dt

K0, K1 = 0x1234, 0xABCD


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize(
    ("B", "model", "dpb"), [(4, SOS, 8), (8, SOS, 4), (8, ISING, 2), (8, SOS, 1)]
)
def test_cuda_source_compiles(tmp_path, B: int, model: int, dpb: int) -> None:
    """nvcc -arch=sm_90 --ptx accepts the kernels for each tile size (4, 8) and rate model."""
    ptx = nvcc_ptx(tmp_path, CUDA_SOURCE, compile_defines(B, model, dpb), COMPILE_EXTRA)
    assert "kmc2d_advance" in ptx and "kmc2d_control" in ptx
    assert "fma.rn.f64" not in ptx  # waiting times must round as on the CPU


def _starts(model: int, L: int, samples: int) -> np.ndarray:
    if model == SOS:
        return np.zeros((samples, L, L), dtype=np.int32)
    rng = np.random.default_rng(L)
    return rng.choice(np.array([-1, 1], dtype=np.int32), size=(samples, L, L))


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(
    ("model", "params", "L", "B", "dpb"),
    [
        (SOS, (1.0, 1.0), 64, 8, 4),
        (SOS, (1.0, 0.0), 48, 8, 4),
        (SOS, (1.0, 2.0), 64, 8, 1),
        (SOS, (1.0, 1.0), 24, 8, 4),  # three tiles: the patch covers the torus
        (SOS, (1.0, 0.5), 40, 4, 8),  # L not a power of two
        (SOS, (0.7, 1.0), 48, 4, 2),
        (ISING, (1.0, 0.1, 2.0), 32, 8, 4),
        (ISING, (1.0, 0.0, 1.5), 32, 4, 8),
    ],
)
def test_gpu_tiles_equal_the_cpu_twin(model, params, L: int, B: int, dpb: int) -> None:
    """Three samples in lockstep on the GPU, each against the CPU twin with the same seed
    and sample index: after every sampling time the lattice, waiting times, draw counters,
    central event count, accepted and rejected steps and the dt history are identical."""
    from simcore.models.kmc2d.gpu import TileKernel

    samples, times = 3, (0.5, 3.0, 12.0, 40.0)
    inv, ratio = rate_tables(model, params)
    x0 = _starts(model, L, samples)
    twins, taus, cnts = [], [], []
    for s in range(samples):
        tau, cnt = initial_times(x0[s], model, inv, s, K0, K1)
        taus.append(tau)
        cnts.append(cnt)
        ctl = StepControl(t=0.0, dt=first_dt(tau, 0.0))
        twins.append(
            TileIntegrator(
                x0[s].copy(), tau.copy(), cnt.copy(), B, model, inv, ratio, s, K0, K1, ctl
            )
        )
    kern = TileKernel(L, B, model, inv, ratio, samples, K0, K1, dpb=dpb)
    zeros = np.zeros(samples)
    kern.upload(
        x0,
        np.stack(taus),
        np.stack(cnts),
        zeros,
        [tw.control.dt for tw in twins],
        zeros,
        zeros,
        zeros,
        zeros,
    )
    for t in times:
        kern.run_to(t)
        x, tau, cnt = (kern.front(k).get() for k in ("x", "tau", "cnt"))
        for s, tw in enumerate(twins):
            tw.run_to(t)
            c = tw.control
            assert np.array_equal(x[s], tw.x), (t, s)
            assert np.array_equal(tau[s], tw.tau) and np.array_equal(cnt[s], tw.cnt)
            assert int(kern.events[s]) == tw.events
            assert (int(kern.accepted[s]), int(kern.rejected[s])) == (c.accepted, c.rejected)
            n = c.accepted + c.rejected
            assert np.array_equal(kern.hist_dt[s, :n].get(), [h[0] for h in c.history])
            assert np.array_equal(kern.hist_ok[s, :n].get(), [h[1] for h in c.history])
            assert float(kern.t[s]) == c.t == t and float(kern.dt[s]) == c.dt
    assert sum(tw.events for tw in twins) > 0


def _job(backend: str, **kw) -> dict:
    cfg = dict(
        model="kmc2d",
        rates="sos",
        L=48,
        k2=1.0,
        phi=1.0,
        scheme="tiles",
        tile=8,
        backend=backend,
        start="flat",
        samples=3,
        seed=11,
        t_max=30,
        points_per_decade=4,
        sample_offset=0,
    )
    cfg.update(kw)
    return cfg


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kw", [{}, {"rates": "ising", "T": 2.0, "start": "random"}])
def test_gpu_job_equals_cpu_job_and_resumes(kw) -> None:
    """The whole job (KMC2DGPUSimulation) gives the CPU tile job's run file: same
    observables, events, steps and dt history, same snapshot; stopping after two sampling
    times, moving the state to the host and on into a new job (a checkpoint) changes
    nothing."""
    from simcore.models import make_simulation
    from simcore.models.kmc2d.simulation import KMC2DGPUSimulation

    if kw.get("rates") == "ising":
        kw = {**kw, "phi": None}
    cpu_cfg = {k: v for k, v in _job("cpu", **kw).items() if v is not None}
    gpu_cfg = {k: v for k, v in _job("gpu", **kw).items() if v is not None}
    if "T" in kw:
        cpu_cfg.pop("k2")
        gpu_cfg.pop("k2")
        cpu_cfg.update(J=1.0, h=0.0)
        gpu_cfg.update(J=1.0, h=0.0)
    cpu = make_simulation(cpu_cfg)
    assert not isinstance(cpu, KMC2DGPUSimulation)
    ds_cpu = cpu.to_dataset(run_steps(cpu))
    gpu = make_simulation(gpu_cfg)
    assert isinstance(gpu, KMC2DGPUSimulation) and gpu.device_name()
    ds_gpu = gpu.to_dataset(run_steps(gpu))
    for name in ds_cpu.data_vars:
        if name == "wall_time":
            continue
        assert np.array_equal(ds_cpu[name].values, ds_gpu[name].values, equal_nan=True), name
    first = make_simulation(gpu_cfg)
    st = first.to_host(run_steps(first, stop_after=2))
    again = make_simulation(gpu_cfg)
    ds_res = again.to_dataset(run_steps(again, again.from_host({k: v for k, v in st.items()})))
    for name in ds_cpu.data_vars:
        if name != "wall_time":
            assert np.array_equal(ds_res[name].values, ds_cpu[name].values, equal_nan=True), name
