"""GPU kernels against their numba twins, bit for bit (``pytest -m gpu``, on a GPU only),
and a compile check of the CUDA source that runs everywhere nvcc is installed."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import xarray as xr
from conftest import gpu_count, nvcc_ptx
from test_kpz_decomposed import K0, K1, geo_of, params_of

from simcore.models.kpz.decomposed import dd_sweeps
from simcore.models.kpz.geometry import all_schemes, parse_scheme
from simcore.models.kpz.gpu import CUDA_SOURCE, compile_defines
from simcore.models.kpz.lattice import flat_lattice

TWO_LAYER = [s for s in all_schemes() if parse_scheme(s)[1]]


needs_gpu = pytest.mark.skipif(gpu_count() < 1, reason="needs CuPy and a CUDA GPU")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("scheme", ["DTrDT", "DTrDB", "cDBDT", "DBDB", "DTrDBs"])
@pytest.mark.parametrize("fast", [True, False])
def test_cuda_source_compiles(tmp_path, scheme: str, fast: bool) -> None:
    """nvcc -arch=sm_90 --ptx accepts the kernel for each block layer and both paths."""
    geo = geo_of(scheme, tc=(2, 1))
    assert "octahedron_dd_phase" in nvcc_ptx(tmp_path, CUDA_SOURCE, compile_defines(geo, fast))


GPU_CASES = [
    (scheme, tc, domain, t_async, pq)
    for scheme in TWO_LAYER
    for (tc, domain) in [((1, 1), (16, 16)), ((2, 1), (32, 16))]
    for t_async in (1.0, 0.5)
    for pq in ((1.0, 0.0), (0.6, 0.3) if not scheme.endswith("DBs") else (0.0, 1.0))
]  # snapshot hits (DBs) take one direction only


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(("scheme", "tc", "domain", "t_async", "pq"), GPU_CASES)
def test_gpu_equals_twin(scheme, tc, domain, t_async, pq) -> None:
    """Three samples in one launch, 6 MCS at L = 64: every bit and the event count agree."""
    import cupy as cp

    from simcore.models.kpz.gpu import DDKernel

    geo = geo_of(scheme, L=64, domain=domain, tc=tc, t_async=t_async)
    params = params_of(*pq)
    S = 3
    lat = cp.tile(cp.asarray(flat_lattice(2, 64)), (S, 1))
    net = cp.zeros(S, dtype=cp.int64)
    kern = DDKernel(geo, params)
    kern.sweeps(lat, net, 0, 2, 0, K0, K1)
    kern.sweeps(lat, net, 2, 4, 0, K0, K1)  # in two calls, as a run does between samplings
    got, got_net = lat.get(), net.get()
    for s in range(S):
        ref = flat_lattice(2, 64)
        ref_net = dd_sweeps(ref, geo.as_array(), 0, 6, s, K0, K1, params)
        assert got_net[s] == ref_net
        assert np.array_equal(got[s], ref)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("scheme", ["DTrDT", "DTrDB", "DTrDBs"])
@pytest.mark.parametrize("cpt", [1, 2, 4])
def test_gpu_cells_per_thread_do_not_change_results(scheme: str, cpt: int) -> None:
    """A GPU thread may run 1, 2 or 4 thread cells: the lattice is the twin's each time."""
    import cupy as cp

    from simcore.models.kpz.gpu import DDKernel

    geo = geo_of(scheme, L=128, domain=(32, 32), tc=(1, 1))
    params = params_of(1.0, 0.0) if scheme.endswith("DBs") else params_of(0.7, 0.2)
    lat = cp.tile(cp.asarray(flat_lattice(2, 128)), (2, 1))
    net = cp.zeros(2, dtype=cp.int64)
    DDKernel(geo, params, cells_per_thread=cpt).sweeps(lat, net, 0, 4, 0, K0, K1)
    for s in range(2):
        ref = flat_lattice(2, 128)
        assert dd_sweeps(ref, geo.as_array(), 0, 4, s, K0, K1, params) == int(net.get()[s])
        assert np.array_equal(lat.get()[s], ref)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("pq", [(1.0, 0.0), (0.0, 1.0), (0.55, 0.35)])
def test_gpu_large_lattice_equals_twin(pq: tuple[float, float]) -> None:
    """L = 512 with 128x128 domains and TC 3,2: block-layer DB cells of 512 sites take
    16-bit positions; p = 0, q = 1 is the removal-only path."""
    import cupy as cp

    from simcore.models.kpz.gpu import DDKernel

    for scheme in ("DTrDT", "DTrDB"):
        geo = geo_of(scheme, L=512, domain=(128, 128), tc=(3, 2))
        params = params_of(*pq)
        lat = cp.asarray(flat_lattice(2, 512))[None, :].copy()
        net = cp.zeros(1, dtype=cp.int64)
        DDKernel(geo, params).sweeps(lat, net, 0, 3, 0, K0, K1)
        ref = flat_lattice(2, 512)
        assert dd_sweeps(ref, geo.as_array(), 0, 3, 0, K0, K1, params) == int(net.get()[0])
        assert np.array_equal(lat.get()[0], ref)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("scheme", ["DTrDT", "DTrDB"])
def test_gpu_run_equals_cpu_run(tmp_path, write_config, scheme: str) -> None:
    """`simcore run` with backend gpu writes the same observables as backend cpu."""
    from conftest import run_simcore, small_config

    out = {}
    for backend in ("cpu", "gpu"):
        cfg = write_config(
            small_config(
                L=64, t_max=40, waiting_times=[5, 10], scheme=scheme, backend=backend,
                domain=[16, 16], tc=[1, 1],
            ),
            f"{backend}.yaml",
        )  # fmt: skip
        res = run_simcore("run", str(cfg), "--out", str(tmp_path / f"{backend}.nc"), "--quiet")
        assert res.returncode == 0, res.stderr
        out[backend] = xr.load_dataset(tmp_path / f"{backend}.nc")
    for var in ("W2", "mean_h", "C_h", "C_s"):
        np.testing.assert_array_equal(out["cpu"][var].values, out["gpu"][var].values)
    assert out["gpu"].attrs["backend"] == "gpu"
    assert out["gpu"].attrs["device"] != out["cpu"].attrs["device"]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("scheme", ["DTrDT", "DTrDB"])
@pytest.mark.parametrize("mcs_per_step", [None, 3])
def test_gpu_run_stopped_after_every_step_equals_cpu_run(
    tmp_path, monkeypatch, scheme: str, mcs_per_step: int | None
) -> None:
    """A GPU job stopped after every step and resumed from its checkpoint each time
    writes the observables of the uninterrupted CPU twin: the checkpoint keeps the
    lattices and event counts at the waiting times, and the heights at s that C_h needs
    are rebuilt from them after each resume.  With steps of 3 MCS (the job's 3 samples
    of 64^2 sites, ``STEP_ATTEMPTS``) the stops fall between sampling times as well."""
    from conftest import run_and_load, run_with_stops, small_config

    from simcore.backends.cuda import OnGPU
    from simcore.config import validate_run_config

    if mcs_per_step is not None:
        monkeypatch.setattr(OnGPU, "STEP_ATTEMPTS", mcs_per_step * 3 * 64 * 64)

    def cfg(backend: str) -> dict:
        return validate_run_config(
            small_config(
                L=64, t_max=40, waiting_times=[5, 10], scheme=scheme, backend=backend,
                domain=[16, 16], tc=[1, 1],
            )
        )  # fmt: skip

    cpu = run_and_load(cfg("cpu"), tmp_path / "cpu.nc")
    stops = run_with_stops(cfg("gpu"), tmp_path / "gpu.nc")
    gpu = xr.load_dataset(tmp_path / "gpu.nc")
    assert stops >= (5 if mcs_per_step is None else 40 // mcs_per_step)
    assert gpu.attrs["run_segments"] == stops + 1
    for var in ("W2", "mean_h", "C_h", "C_s"):
        np.testing.assert_array_equal(cpu[var].values, gpu[var].values)


@pytest.mark.skipif(gpu_count() > 0, reason="checks what a machine without a GPU says")
def test_gpu_backend_without_gpu_is_a_one_line_error(tmp_path, write_config) -> None:
    from conftest import run_simcore, small_config

    cfg = write_config(small_config(L=64, scheme="DTrDT", backend="gpu", domain=[16, 16]))
    res = run_simcore("run", str(cfg), "--out", str(tmp_path / "x.nc"), "--quiet")
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "'backend'" in lines[0], res.stderr
    assert not (tmp_path / "x.nc").exists()
