"""Height snapshots of kpz runs (the key ``snapshot_samples``) and kelling2012 Fig. 1.

The snapshot is the heights at t_max of a job's first samples: checked against the plain
height-field dynamics of tests/test_kpz_model.py (same random numbers), against the DD
sweeps run by hand, through a checkpoint, on the GPU against its CPU twin, through
aggregation and analysis, and drawn; without the key a run file is what it was before
(the stored hashes of docs/data/run_hashes_cpu.json)."""

from __future__ import annotations

import gc
import importlib.util
import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
from conftest import gpu_count, run_simcore, run_with_stops
from test_kpz_model import _reference_run

from analysis.aggregate import AggregationError, aggregate
from analysis.kelling2012_kpz import fig1
from analysis.kpz import analyze
from analysis.papers import make_figure
from simcore.campaign.plan import load_campaign
from simcore.checks import ConfigError
from simcore.config import validate_run_config
from simcore.io.dataset import write_dataset
from simcore.models import make_simulation, registry
from simcore.models.kpz.decomposed import dd_sweeps
from simcore.models.kpz.geometry import geometry_from_config
from simcore.models.kpz.lattice import flat_lattice, height_bound, snapshot_dtype
from simcore.models.kpz.observables import measure_heights
from simcore.rng import uniform_threshold
from simcore.runner import EXIT_OK, run_job
from simcore.seeding import philox_key

ROOT = Path(__file__).resolve().parents[1]
SEED = 0x1234_5678_9ABC_DEF0

needs_gpu = pytest.mark.skipif(gpu_count() < 1, reason="needs CuPy and a CUDA GPU")


def _config(**overrides) -> dict:
    """A validated run config of a small sequential d = 2 job with two snapshots."""
    raw = {"model": "kpz", "dim": 2, "L": 8, "p": 0.6, "q": 0.3, "samples": 3, "seed": SEED,
           "t_max": 6, "waiting_times": [2], "snapshot_samples": 2}  # fmt: skip
    raw.update(overrides)
    return validate_run_config({k: v for k, v in raw.items() if v is not None})


def _run(cfg: dict, path: Path) -> xr.Dataset:
    assert run_job(cfg, path, progress=False) == EXIT_OK
    return xr.load_dataset(path)


def _in_process(cfg: dict) -> xr.Dataset:
    """The dataset of a job run in this process, without a file (the GPU job's twin)."""
    sim = make_simulation(cfg)
    st = sim.initial_state()
    while not sim.done(st):
        sim.step(st)
    return sim.to_dataset(sim.to_host(st))


@pytest.mark.parametrize(("dim", "L", "p", "q"), [(2, 8, 0.6, 0.3), (2, 8, 1.0, 0.0),
                                                  (1, 32, 0.6, 0.3)])  # fmt: skip
def test_snapshot_equals_the_plain_height_dynamics(tmp_path, dim, L, p, q) -> None:
    """The first two of three samples store h at t_max: the heights of the plain
    height-field dynamics with the same random numbers (tests/test_kpz_model.py), sample
    by sample; index [y, x] in d = 2, a profile h(x) in d = 1; W^2 and the mean height of
    t_max are those of the snapshot."""
    cfg = _config(dim=dim, L=L, p=p, q=q)
    ds = _run(cfg, tmp_path / "run.nc")
    snap = ds["snapshot"]
    assert snap.dims == (("snapshot_sample", "y", "x") if dim == 2 else ("snapshot_sample", "x"))
    assert snap.dtype == snapshot_dtype(dim, L, 6) == np.int8
    np.testing.assert_array_equal(ds["snapshot_sample"].values, [0, 1])
    np.testing.assert_array_equal(ds["snapshot_seed"].values, [SEED, SEED])
    for k in range(2):
        want = _reference_run(dim, L, 6, SEED, p, q, sample=k)  # index [x, y]
        np.testing.assert_array_equal(snap.values[k], want.T if dim == 2 else want)
        h = snap.values[k].astype(float).ravel()
        assert ds["W2"].values[k, -1] == pytest.approx(h.var(), abs=1e-12)
        assert ds["mean_h"].values[k, -1] == pytest.approx(h.mean(), abs=1e-12)
    assert snap.attrs["units"] == "1" and snap.attrs["model_units"] == "lattice units"
    assert "t_max = 6 MCS" in snap.attrs["long_name"]
    assert snap.encoding["zlib"]


def test_snapshot_of_a_dd_scheme_is_its_lattice(tmp_path) -> None:
    """Under a CPU DD scheme (DTrDT) the snapshot is the heights of the lattice that
    ``dd_sweeps`` grows with the job's random numbers."""
    cfg = _config(L=16, scheme="DTrDT", domain=[8, 8], samples=2, snapshot_samples=5)
    ds = _run(cfg, tmp_path / "run.nc")
    assert ds.sizes["snapshot_sample"] == 2  # at most the job's samples
    geo = geometry_from_config(cfg).as_array()
    params = np.array([uniform_threshold(0.6), uniform_threshold(0.3)], dtype=np.uint64)
    for k in range(2):
        lat = flat_lattice(2, 16)
        net = dd_sweeps(lat, geo, 0, 6, k, *philox_key(SEED), params)
        h = measure_heights(lat, 2, 16, net, np.empty(256, dtype=np.int64))
        np.testing.assert_array_equal(ds["snapshot"].values[k], h.reshape(16, 16))


def test_no_snapshot_leaves_config_name_and_file_as_before(tmp_path) -> None:
    """snapshot_samples 0 (or absent) is dropped from the run config, so its job files,
    point name, seeds and attributes are those of before the key; the run file has no
    snapshot variable or dimension, and the other variables equal those of a run with
    snapshots; a snapshot run's point name ends in _snap<N>."""
    spec = registry.get("kpz")
    plain = _config(snapshot_samples=None)
    assert _config(snapshot_samples=0) == plain and "snapshot_samples" not in plain
    assert spec.point_name(plain) == "kpz_d2_L8_p0.6_q0.3_sequential_cpu"
    assert spec.point_name(_config()) == "kpz_d2_L8_p0.6_q0.3_sequential_cpu_snap2"
    a, b = _run(plain, tmp_path / "a.nc"), _run(_config(), tmp_path / "b.nc")
    assert not {"snapshot", "snapshot_sample", "snapshot_seed", "x", "y"} & set(a.variables)
    assert "snapshot_samples" not in a.attrs and "snapshot_samples" not in a.attrs["config"]
    for name in a.data_vars:
        if name != "wall_time":
            np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=name)
    assert b.attrs["snapshot_samples"] == 2
    assert "snapshot_samples" in b.attrs["point_config_keys"].split()


def test_run_file_of_the_default_campaign_keeps_its_stored_hashes(tmp_path) -> None:
    """Block 0 of config/config.yaml's d = 2, L = 128 point (16 samples to t = 1000 MCS,
    about 10 s), run from the campaign's own job config: every data variable has the
    SHA-256 of docs/data/run_hashes_cpu.json (benchmarks/run_file_hashes.py)."""
    spec = importlib.util.spec_from_file_location(
        "run_file_hashes", ROOT / "benchmarks" / "run_file_hashes.py"
    )
    hashes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hashes)
    camp = load_campaign(str(ROOT / "config" / "config.yaml"))
    point = "kpz_d2_L128_p1_q0_sequential_cpu"
    job = camp.job_config(point, 0)
    assert "snapshot_samples" not in job
    results = tmp_path / "default"
    out = results / "runs" / point / "b0.nc"
    out.parent.mkdir(parents=True)
    assert run_job(validate_run_config(job), out, progress=False) == EXIT_OK
    stored = json.loads((ROOT / "docs" / "data" / "run_hashes_cpu.json").read_text())
    got = hashes.run_hashes(results)
    want = {k: v for k, v in stored.items() if k.startswith(f"default/{point}/b0/")}
    assert len(want) == 4 and got == want


def test_resume_gives_the_same_snapshot(tmp_path) -> None:
    """Stopped after every sampling time and resumed from the checkpoint, a job writes the
    same snapshots (and everything else) as straight through."""
    cfg = _config(samples=3, snapshot_samples=3)
    straight = _run(cfg, tmp_path / "straight.nc")
    assert run_with_stops(cfg, tmp_path / "stopped.nc") >= 6
    stopped = xr.load_dataset(tmp_path / "stopped.nc")
    assert set(straight.variables) == set(stopped.variables)
    for name in straight.variables:
        if name != "wall_time":
            np.testing.assert_array_equal(straight[name].values, stopped[name].values, name)


@pytest.mark.parametrize("value", [-1, 1.5, "2", True])
def test_bad_value_is_one_line(value) -> None:
    """A value that is not an integer >= 0 is refused naming key and value."""
    with pytest.raises(ConfigError) as err:
        _config(snapshot_samples=value)
    text = str(err.value)
    assert "snapshot_samples" in text and repr(value) in text and "\n" not in text


def test_bad_value_exits_2_with_one_line(tmp_path) -> None:
    """``simcore run`` with snapshot_samples: -3: exit 2, one line, nothing written."""
    raw = {"model": "kpz", "dim": 2, "L": 8, "samples": 1, "seed": 1, "t_max": 2,
           "snapshot_samples": -3}  # fmt: skip
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(raw))
    proc = run_simcore("run", path, "--out", tmp_path / "run.nc")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "snapshot_samples" in lines[0] and "-3" in lines[0], lines
    assert not any(tmp_path.glob("run.nc*"))


def test_memory_estimate_counts_the_snapshots() -> None:
    """The host state grows by n N bytes of the snapshot type (n = min(key, samples)), on
    either backend; a GPU job also has a host row of 4 N bytes of scratch."""
    spec = registry.get("kpz")
    rates = {k: default for k, (default, _) in spec.resource_rates.items()}
    for backend, scheme, extra in (("cpu", "sequential", {}),
                                   ("gpu", "DTrDT", {"domain": [64, 64]})):  # fmt: skip
        base = _config(L=1024, samples=4, t_max=1000, backend=backend, scheme=scheme,
                       snapshot_samples=None, **extra)  # fmt: skip
        with_snap = {**base, "snapshot_samples": 9}
        a, b = spec.work(base, rates), spec.work(with_snap, rates)
        n = 4 * 1024**2 * np.dtype(np.int16).itemsize  # 4 samples, |h| <= 3025: int16
        assert b.state_bytes - a.state_bytes == n
        assert b.device_bytes == a.device_bytes
        if backend == "gpu":
            assert b.scratch_bytes >= 4 * 1024**2
    assert height_bound(2, 1024, 1000) == 3025 and snapshot_dtype(2, 1024, 1000) == np.int16
    assert snapshot_dtype(2, 1024, 20000) == np.int32


def test_memory_estimate_matches_the_traced_peak() -> None:
    """A whole job whose snapshots are half its memory (L = 1024, 4 samples to t = 1,
    all kept): its host bytes lie within 0.5 and 1.1 times the peak tracemalloc traces
    (the bounds of tests/test_memory_estimates.py)."""
    cfg = _config(L=1024, samples=4, t_max=1, p=1.0, q=0.0, points_per_decade=1,
                  waiting_times=[], snapshot_samples=4)  # fmt: skip
    spec = registry.get("kpz")
    work = spec.work(cfg, {k: d for k, (d, _) in spec.resource_rates.items()})
    _in_process(cfg)  # compile first
    gc.collect()
    tracemalloc.start()
    try:
        _in_process(cfg)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.5 * peak <= work.host_bytes <= 1.1 * peak, (work.host_bytes, peak)


def _analysis(tmp_path: Path, jobs: int = 2, **overrides) -> Path:
    """Run ``jobs`` jobs of one point (3 samples, 2 snapshots each), aggregate and analyse
    them with the pipeline's functions; the analysis file's path."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    runs = []
    for b in range(jobs):
        cfg = _config(**{"L": 16, "t_max": 20, "seed": SEED + b, "sample_offset": 3 * b,
                         "campaign": "c", "point": "p", "block": b, **overrides})  # fmt: skip
        runs.append(tmp_path / f"b{b}.nc")
        _run(cfg, runs[-1])
    write_dataset(aggregate(runs), tmp_path / "dataset.nc")
    out = analyze(xr.load_dataset(tmp_path / "dataset.nc"))
    write_dataset(out, tmp_path / "analysis.nc")
    return tmp_path / "analysis.nc"


def test_aggregation_and_analysis_carry_every_snapshot(tmp_path) -> None:
    """Two jobs of 3 samples with 2 snapshots each: the dataset and the analysis hold the
    4 snapshots along snapshot_sample (indices 0, 1, 3, 4, each with its job's seed),
    compressed integers as in the run files; a snapshot index twice is refused."""
    path = _analysis(tmp_path)
    data = xr.load_dataset(tmp_path / "dataset.nc")
    ana = xr.open_dataset(path)
    for ds in (data, ana):
        np.testing.assert_array_equal(ds["snapshot_sample"].values, [0, 1, 3, 4])
        np.testing.assert_array_equal(ds["snapshot_seed"].values, [SEED] * 2 + [SEED + 1] * 2)
        assert ds["snapshot"].dtype == np.int8
    assert data.sizes["sample"] == 6 and ana.attrs["n_samples"] == 6
    assert ana["snapshot"].encoding["zlib"]
    for k, name in enumerate(("b0.nc", "b1.nc")):
        run = xr.load_dataset(tmp_path / name)
        np.testing.assert_array_equal(ana["snapshot"].values[2 * k : 2 * k + 2],
                                      run["snapshot"].values)  # fmt: skip
    ana.close()
    twin = tmp_path / "twin.nc"
    xr.load_dataset(tmp_path / "b1.nc").assign_coords(
        sample=[6, 7, 8], snapshot_sample=[0, 1]
    ).to_netcdf(twin)
    with pytest.raises(AggregationError, match="snapshot_sample index 0 repeats"):
        aggregate([tmp_path / "b0.nc", twin])


def test_files_with_snapshots_pass_the_cf_check(tmp_path) -> None:
    """The run file, dataset and analysis of a point with snapshots: no CF error."""
    from test_cf import cf_problems

    path = _analysis(tmp_path, jobs=1)
    for name in ("b0.nc", "dataset.nc", path.name):
        errors, _ = cf_problems(tmp_path / name)
        assert not errors, (name, errors)


def test_fig1_draws_a_colour_map_with_a_colorbar(tmp_path) -> None:
    """kelling2012_fig1 from one analysis file: the heights minus their mean of the first
    snapshot as an image, a colorbar in lattice units, axes in lattice sites, the cut
    below, the title naming L, t, scheme, p, q, sample and seed; option sample picks
    another snapshot; written by ``python -m analysis.papers``'s function."""
    path = _analysis(tmp_path)
    fig, prov = fig1([str(path)], sample=3)
    ax_map = next(ax for ax in fig.axes if ax.images)
    image = ax_map.images[0]
    assert image.colorbar is not None
    assert "lattice units" in image.colorbar.ax.get_ylabel()
    assert image.get_cmap().name == "viridis"
    ds = xr.load_dataset(path)
    h = ds["snapshot"].sel(snapshot_sample=3).values.astype(float)
    np.testing.assert_allclose(image.get_array(), h - h.mean())
    assert ax_map.get_ylabel() == "y [lattice sites]"
    title = fig.get_suptitle()
    for part in ("L = 16", "t = 20 MCS", "sequential", "p = 0.6", "q = 0.3", "sample 3",
                 f"seed {SEED + 1}"):  # fmt: skip
        assert part in title, (part, title)
    cut = next(ax for ax in fig.axes if ax.lines and not ax.images)
    assert cut.get_xlabel() == "x [lattice sites]"
    assert "snapshot of sample 3" in prov["points"]
    written = make_figure("kelling2012_fig1", [path], tmp_path / "figs", name="fig1")
    assert [p.name for p in written] == ["fig1.png", "fig1.pdf"]


def test_fig1_refuses_what_it_cannot_draw(tmp_path) -> None:
    """Several inputs, a file without snapshots, a d = 1 file and an unknown sample: one
    line each naming what is wrong."""
    path = _analysis(tmp_path)
    with pytest.raises(ValueError, match="draws one surface.*got 2"):
        fig1([str(path), str(path)])
    with pytest.raises(ValueError, match="no snapshot of that sample"):
        fig1([str(path)], sample=2)
    plain = _analysis(tmp_path / "plain", jobs=1, snapshot_samples=None)
    with pytest.raises(ValueError, match="missing snapshot"):
        fig1([str(plain)])
    line = _analysis(tmp_path / "d1", jobs=1, dim=1, L=32)
    with pytest.raises(ValueError, match="not a 2\\+1D surface"):
        fig1([str(line)])


def test_papers_campaign_selects_only_the_snapshot_point() -> None:
    """config/papers.yaml: kelling2012_fig1 draws the one point with snapshots (L = 1024,
    t_max 1000), which no figure of kelling2017 draws."""
    camp = load_campaign(str(ROOT / "config" / "papers.yaml"))
    (name,) = camp.figure_points("kelling2012_fig1")
    assert name == "kpz_d2_L1024_p1_q0_sequential_cpu_snap1"
    job = camp.job_config(name, 0)
    assert job["snapshot_samples"] == 1 and job["t_max"] == 1000 and job["samples"] == 1
    for fig in camp.paper_figures:
        if fig.name != "kelling2012_fig1":
            assert name not in camp.figure_points(fig.name), fig.name


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("scheme", ["DTrDT", "DTrDB"])
def test_gpu_snapshot_equals_the_cpu_twin(scheme) -> None:
    """A GPU job (3 samples in lockstep, 2 snapshots) stores the snapshots of its CPU twin
    (the numba DD scheme), bit for bit, and the same type."""
    raw = {"L": 64, "scheme": scheme, "domain": [16, 16], "tc": [1, 1], "t_max": 12,
           "samples": 3, "snapshot_samples": 2}  # fmt: skip
    gpu = _in_process(_config(backend="gpu", **raw))
    cpu = _in_process(_config(backend="cpu", **raw))
    assert gpu["snapshot"].dtype == cpu["snapshot"].dtype
    for name in ("snapshot", "snapshot_sample", "snapshot_seed", "W2", "mean_h"):
        np.testing.assert_array_equal(gpu[name].values, cpu[name].values, err_msg=name)
