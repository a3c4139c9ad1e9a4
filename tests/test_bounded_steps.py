"""A job's steps end after a bounded number of update attempts, between sampling times
where those lie far apart, so that a wall limit, a checkpoint or Ctrl-C comes within
seconds; where the steps end does not change a bit of the results."""

import pytest
from conftest import assert_same_run_files, gpu_count, run_with_stops, small_config

from simcore.backends.cpu import OnCPU
from simcore.config import validate_run_config
from simcore.runner import EXIT_OK, run_job
from simcore.sampling import bounded_step_end, sampling_times


def test_bounded_step_end_stops_at_the_budget_or_the_sampling_time() -> None:
    """Whole units within the budget, at least one, never past the sampling time."""
    assert bounded_step_end(10, 100, 64, 64 * 7) == 17
    assert bounded_step_end(10, 100, 64, 64 * 7 + 63) == 17  # no partial unit
    assert bounded_step_end(10, 100, 64, 5) == 11  # a unit over the budget still moves
    assert bounded_step_end(95, 100, 64, 64 * 7) == 100
    assert bounded_step_end(0, 10**5, 8 * 8192**2, 2**40) == 2048


@pytest.mark.parametrize(
    "overrides",
    [
        {"dim": 1, "L": 64, "p": 0.7, "q": 0.2},
        {"dim": 2, "L": 16, "p": 1.0, "q": 0.0},
        {"L": 64, "scheme": "DTrDB", "domain": [16, 16], "tc": [1, 1]},
        {"L": 64, "scheme": "DTrDT", "domain": [16, 16], "tc": [2, 1], "p": 0.6, "q": 0.3},
        {"L": 64, "scheme": "DB", "domain": [16, 16], "t_async": 0.5},
    ],
    ids=["d1-sequential", "d2-sequential", "DTrDB", "DTrDT", "DB"],
)
def test_kpz_steps_of_a_few_mcs_stopped_after_each_give_the_same_run(
    tmp_path, monkeypatch, overrides
) -> None:
    """With a budget of 3 MCS per step, the job stops (max_wall=0) after every 3 MCS, in
    the middle of its late sampling intervals, and resumes from each checkpoint: the run
    file is the one of unbounded steps, every W^2, C_h and C_s bit for bit.  The number of
    stops shows that the steps did end between sampling times (a step per sampling time
    would stop fewer times than there are times)."""
    cfg = validate_run_config(small_config(t_max=200, samples=2, **overrides))
    ref = tmp_path / "ref.nc"
    monkeypatch.setattr(OnCPU, "STEP_ATTEMPTS", 2**60)
    assert run_job(cfg, ref, progress=False) == EXIT_OK
    monkeypatch.setattr(OnCPU, "STEP_ATTEMPTS", 3 * int(cfg["L"]) ** int(cfg["dim"]))
    out = tmp_path / "out.nc"
    stops = run_with_stops(cfg, out)
    n_times = sampling_times(cfg["t_max"], cfg["points_per_decade"], cfg["waiting_times"]).size
    assert_same_run_files(ref, out)
    assert stops >= 2 * (cfg["t_max"] // 3) > 2 * n_times


@pytest.mark.parametrize("prng", ["philox", "mt19937"])
def test_ea3d_steps_of_a_few_sweeps_stopped_after_each_give_the_same_run(
    tmp_path, monkeypatch, prng
) -> None:
    """The spin glass too: steps of 3 sweeps of the 4 replicas of 64 samples of 4^3 spins,
    stopped and resumed after each, give every energy and overlap of unbounded steps; a
    stateful generator carries its state across the stops, Philox is keyed by the sweep."""
    cfg = validate_run_config(
        {"model": "ea3d", "L": 4, "T": 1.0, "samples": 64, "seed": 5, "t_max": 90,
         "prng": prng}
    )  # fmt: skip
    ref = tmp_path / "ref.nc"
    monkeypatch.setattr(OnCPU, "STEP_ATTEMPTS", 2**60)
    assert run_job(cfg, ref, progress=False) == EXIT_OK
    monkeypatch.setattr(OnCPU, "STEP_ATTEMPTS", 3 * 4 * 64 * 4**3)
    out = tmp_path / "out.nc"
    stops = run_with_stops(cfg, out)
    assert_same_run_files(ref, out)
    assert stops >= cfg["t_max"] // 3


@pytest.mark.parametrize(
    "geometry", [{"scheme": "sequential"}, {"scheme": "dt", "block_side": 8}], ids=str
)
def test_fcc_steps_of_a_few_mcs_stopped_after_each_give_the_same_run(
    tmp_path, monkeypatch, geometry
) -> None:
    """The fcc alloy: steps of 3 MCS of 2 samples of 16^3 / 2 sites, stopped and resumed
    after each, give every observable (and the moves) of unbounded steps."""
    cfg = validate_run_config(
        {"model": "fcc", "L": 16, "c": 0.325, "epsilon": 1.5, "samples": 2, "seed": 12,
         "t_max": 40, **geometry}
    )  # fmt: skip
    ref = tmp_path / "ref.nc"
    monkeypatch.setattr(OnCPU, "STEP_ATTEMPTS", 2**60)
    assert run_job(cfg, ref, progress=False) == EXIT_OK
    monkeypatch.setattr(OnCPU, "STEP_ATTEMPTS", 3 * 2 * 16**3 // 2)
    out = tmp_path / "out.nc"
    stops = run_with_stops(cfg, out)
    assert_same_run_files(ref, out)
    assert stops >= cfg["t_max"] // 3


@pytest.mark.gpu
@pytest.mark.skipif(gpu_count() < 1, reason="needs CuPy and a CUDA GPU")
@pytest.mark.parametrize("model", ["kpz", "ea3d", "fcc"])
def test_gpu_steps_of_a_few_units_give_the_cpu_run(tmp_path, monkeypatch, model) -> None:
    """On the GPU, steps of 3 MCS (KPZ DTrDB, 2 samples of 64^2; fcc dt, 2 samples of
    16^3 / 2) or 3 sweeps (EA3D, 64 samples of 8^3), stopped and resumed after each, write
    the CPU twin's run file."""
    from simcore.backends.cuda import OnGPU

    if model == "kpz":
        job = small_config(L=64, t_max=60, samples=2, scheme="DTrDB", domain=[16, 16])
        attempts = 2 * 64 * 64
    elif model == "fcc":
        job = {"model": "fcc", "L": 16, "c": 0.325, "epsilon": 1.5, "samples": 2, "seed": 12,
               "t_max": 60, "scheme": "dt", "block_side": 8}  # fmt: skip
        attempts = 2 * 16**3 // 2
    else:
        job = {"model": "ea3d", "L": 8, "T": 1.0, "samples": 64, "seed": 5, "t_max": 60}
        attempts = 4 * 64 * 8**3
    cpu = tmp_path / "cpu.nc"
    assert run_job(validate_run_config({**job, "backend": "cpu"}), cpu, progress=False) == 0
    monkeypatch.setattr(OnGPU, "STEP_ATTEMPTS", 3 * attempts)
    gpu = tmp_path / "gpu.nc"
    stops = run_with_stops(validate_run_config({**job, "backend": "gpu"}), gpu)
    assert stops >= 20
    assert_same_run_files(cpu, gpu)
