"""kmc2d through the shared path: run configs, campaigns, simcore run, resume, aggregation,
analysis, figures and Snakemake (CPU only; the GPU backend is only validated here)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
from conftest import assert_same_run_files, run_and_load, run_simcore, run_with_stops

from analysis.aggregate import aggregate
from analysis.kmc2d import analyze as analyze_kmc2d
from analysis.kmc2d import draw_figures as draw_kmc2d
from simcore.campaign import load_campaign
from simcore.config import ConfigError, validate_run_config
from simcore.models import registry
from simcore.models.kmc2d.rates import PARAMS as KMC2D_PARAMS
from simcore.runner import EXIT_OK, run_job

ROOT = Path(__file__).resolve().parents[1]

#: Variables of every kmc2d run file, and those of each rate model.
COMMON_VARS = {"events", "steps_accepted", "steps_rejected", "dt", "wall_time", "dt_history",
               "dt_accepted", "snapshot"}  # fmt: skip
RATE_VARS = {"sos": {"mean_h", "W2", "step_density"},
             "ising": {"magnetization", "energy", "step_density"}}  # fmt: skip


def job(rates: str = "sos", **over) -> dict:
    """A kmc2d run config that finishes in well under a second."""
    cfg = {"model": "kmc2d", "rates": rates, "L": 24, "samples": 2, "seed": 11, "t_max": 20}
    cfg.update({"phi": 1.0} if rates == "sos" else {"T": 2.0})
    cfg.update(over)
    return {k: v for k, v in cfg.items() if v is not None}


def run(cfg: dict, path: Path) -> xr.Dataset:
    return run_and_load(validate_run_config(cfg), path)


# ---------------------------------------------------------------------------- run configs


@pytest.mark.parametrize(
    ("rates", "over", "key"),
    [("sos", {"rates": "potts"}, "rates"), ("sos", {"rates": None}, "rates"),
     ("sos", {"phi": None}, "phi"), ("ising", {"T": None}, "T"),
     ("sos", {"T": 2.0}, "T"), ("sos", {"h": 0.1}, "h"), ("ising", {"phi": 1.0}, "phi"),
     ("ising", {"k2": 1.0}, "k2"), ("sos", {"k2": 0}, "k2"), ("sos", {"phi": "1e-3"}, "phi"),
     ("sos", {"phi": float("inf")}, "phi"), ("sos", {"phi": 300.0}, "phi"),
     ("ising", {"T": 0.0}, "T"), ("ising", {"J": float("nan")}, "J"),
     ("sos", {"L": 20, "scheme": "tiles"}, "L"), ("sos", {"L": 16, "scheme": "tiles"}, "L"),
     ("sos", {"L": 1, "scheme": "serial"}, "L"), ("sos", {"L": 1}, "L"),
     ("sos", {"L": 65536, "scheme": "bkl"}, "L"), ("sos", {"L": 2.5}, "L"),
     ("sos", {"tile": 6, "scheme": "tiles"}, "tile"),
     ("sos", {"tile": 1, "scheme": "tiles"}, "tile"),
     ("sos", {"tile": 8}, "tile"), ("sos", {"tile": 8, "scheme": "bkl"}, "tile"),
     ("sos", {"scheme": "sequential"}, "scheme"), ("sos", {"start": "hot"}, "start"),
     ("sos", {"backend": "tpu"}, "backend"),
     ("sos", {"backend": "gpu", "scheme": "serial"}, "scheme"),
     ("sos", {"backend": "gpu", "tile": 16, "L": 48}, "tile"),
     ("sos", {"backend": "gpu", "tile": 16, "halo": 8, "L": 48}, "halo"),
     ("sos", {"scheme": "tiles", "halo": 8}, "halo"),
     ("sos", {"scheme": "tiles", "halo": 0}, "halo"), ("sos", {"halo": 3}, "halo"),
     ("sos", {"p": 0.5}, "p"), ("sos", {"layout": "sliced"}, "layout")],
)  # fmt: skip
def test_bad_kmc2d_configs_name_their_key(rates: str, over: dict, key: str) -> None:
    """Every bad value: a one-line ConfigError naming the key (and so its value)."""
    cfg = job(rates)
    cfg.update(over)
    cfg = {k: v for k, v in cfg.items() if v is not None}
    with pytest.raises(ConfigError) as err:
        validate_run_config(cfg)
    assert err.value.key == key and "\n" not in str(err.value)
    assert f"'{key}'" in str(err.value)


def test_defaults_and_the_other_rate_models_keys() -> None:
    """Defaults per rate model; the keys of the other rate model are not in the config."""
    sos = validate_run_config(job("sos"))  # the cpu's default scheme: bkl, no tile
    assert (sos["k2"], sos["scheme"], sos["start"], sos["backend"]) == (1.0, "bkl", "flat", "cpu")
    assert not {"J", "h", "T", "tile"} & set(sos)
    tiles = validate_run_config(job("sos", scheme="tiles"))
    assert (tiles["scheme"], tiles["tile"]) == ("tiles", 8)
    thin = validate_run_config(job("sos", scheme="tiles", halo=3))  # a halo: in the name
    kmc2d = registry.get("kmc2d")
    assert "_tiles8_" in kmc2d.point_name(tiles) and "_tiles8h3_" in kmc2d.point_name(thin)
    ising = validate_run_config(job("ising", scheme="serial", L=5))
    assert (ising["J"], ising["h"], ising["start"]) == (1.0, 0.0, "random")
    assert not {"k2", "phi"} & set(ising)
    assert validate_run_config(dict(ising)) == ising  # a validated config is valid again
    gpu = validate_run_config(job("sos", backend="gpu", tile=4, L=12))  # validated, not run
    assert (gpu["backend"], gpu["scheme"], gpu["tile"]) == ("gpu", "tiles", 4)  # gpu: tiles
    assert validate_run_config(job("sos", backend="gpu"))["tile"] == 8
    for rates, params in KMC2D_PARAMS.items():  # the spec's keys of each rate model
        assert {k for k in kmc2d.keys if kmc2d.applies(k, {"rates": rates})} >= set(params)


def test_simcore_run_bad_config_exit_2(tmp_path: Path, write_config) -> None:
    """`simcore run` of a bad kmc2d config: exit status 2, one line naming key and value."""
    out = tmp_path / "r.nc"
    for over, key, value in (({"T": 2.5}, "T", "2.5"), ({"L": 30, "scheme": "tiles"}, "L", "30")):
        res = run_simcore("run", write_config(job("sos", **over)), "--out", out, "--quiet")
        assert res.returncode == 2
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and f"'{key}'" in lines[0] and value in lines[0], res.stderr
        assert not out.exists()


# ---------------------------------------------------------------------------- campaigns


def campaign(points: list[dict], **over) -> dict:
    cfg = {"campaign": "km", "seed": 5, "model": "kmc2d", "samples": 6, "samples_per_job": 4,
           "t_max": 20, "points": points}  # fmt: skip
    cfg.update(over)
    return cfg


def test_campaign_points_names_and_jobs() -> None:
    camp = load_campaign(campaign(
        [{"rates": "sos", "L": [24, 48], "phi": [0, 1.5], "scheme": ["tiles", "serial"],
          "tile": [4, 8]},
         {"rates": "ising", "L": 32, "T": 2.2, "h": -0.5, "scheme": ["serial", "bkl"]},
         {"rates": "sos", "L": 24, "phi": 1, "k2": 2, "start": "random", "backend": "gpu"}],
        threads=3,
    ))  # fmt: skip
    names = camp.point_names
    assert names[:3] == ["kmc2d_sos_L24_phi0_k21_tiles4_cpu", "kmc2d_sos_L24_phi0_k21_tiles8_cpu",
                         "kmc2d_sos_L24_phi0_k21_serial_cpu"]  # fmt: skip
    assert "kmc2d_sos_L48_phi1.5_k21_tiles8_cpu" in names
    assert "kmc2d_ising_L32_T2.2_J1_h-0.5_bkl_cpu" in names
    assert names[-1] == "kmc2d_sos_L24_phi1_k22_tiles8_gpu_random-start"
    assert len(names) == 2 * 2 * 3 + 2 + 1  # tile lists expand scheme tiles only
    tiles = camp.job_config("kmc2d_sos_L24_phi0_k21_tiles4_cpu", 1)
    assert tiles["samples"] == 2 and tiles["sample_offset"] == 4 and tiles["tile"] == 4
    assert list(tiles)[:11] == ["model", "rates", "L", "k2", "phi", "scheme", "tile", "halo",
                                "start", "backend", "samples"]  # fmt: skip
    assert tiles["halo"] == 3  # the default, tile - 1, written out
    serial = camp.job_config("kmc2d_ising_L32_T2.2_J1_h-0.5_serial_cpu", 0)
    assert not {"tile", "k2", "phi", "waiting_times", "dim"} & set(serial)
    assert (serial["J"], serial["h"], serial["T"]) == (1.0, -0.5, 2.2)
    for name, block in camp.jobs():  # every job config is a valid run config
        validate_run_config(camp.job_config(name, block))
    assert camp.job_threads("kmc2d_sos_L24_phi0_k21_tiles4_cpu") == 3
    # serial and bkl run a job's samples in parallel: the cores when a job has several
    assert camp.job_threads("kmc2d_sos_L24_phi0_k21_serial_cpu") == 3
    assert camp.job_threads("kmc2d_ising_L32_T2.2_J1_h-0.5_bkl_cpu") == 3
    one = load_campaign(campaign(
        [{"rates": "sos", "L": 24, "phi": 0, "scheme": ["tiles", "serial", "bkl"]}],
        threads=3, samples_per_job=1))  # fmt: skip
    assert [one.job_threads(name) for name in one.point_names] == [3, 1, 1]
    default = load_campaign(campaign([{"rates": "sos", "L": 24, "phi": 0, "backend": ["cpu", "gpu"],
                                       "tile": 4}]))  # fmt: skip
    # the default scheme: bkl on the cpu (tile does not apply), tiles on the gpu
    assert default.point_names == ["kmc2d_sos_L24_phi0_k21_bkl_cpu",
                                   "kmc2d_sos_L24_phi0_k21_tiles4_gpu"]  # fmt: skip
    assert camp.job_resources(names[-1], 0)["gpu"] == 1
    assert camp.figure_names == ["W2", "beta_eff", "energy", "magnetization", "step_density",
                                 "events_rate"]  # fmt: skip
    sel = load_campaign(campaign(
        [{"rates": "sos", "L": 24, "phi": [0, 1]}],
        paper_figures=[{"figure": "fig6", "name": "rd", "select": {"phi": 0}}],
    ))  # fmt: skip
    assert sel.figure_points("rd") == ["kmc2d_sos_L24_phi0_k21_bkl_cpu"]


def test_job_resources_scale_with_events() -> None:
    camp = load_campaign(campaign([{"rates": "sos", "L": 1024, "phi": 0, "scheme": "bkl"}],
                                  samples=16, samples_per_job=16, t_max=1000))  # fmt: skip
    res = camp.job_resources("kmc2d_sos_L1024_phi0_k21_bkl_cpu", 0)
    # 1024^2 x 1000 x 16 events x 2 (safety) / 7e5 per s (bkl, one core) / 60 = 799 min
    assert res["runtime"] == 799 and res["gpu"] == 0 and res["mem_mb"] > 1024
    assert camp.job_resources("kmc2d_sos_L1024_phi0_k21_bkl_cpu", 0, attempt=2)["runtime"] == (
        2 * 799
    )


@pytest.mark.parametrize(
    ("entry", "words"),
    [({"rates": "sos", "L": 24, "phi": 1, "T": 2}, ["points[0].T", "rates ising"]),
     ({"rates": "ising", "L": 24}, ["points[0].T", "missing"]),
     ({"L": 24, "phi": 1}, ["points[0].rates", "missing"]),
     ({"rates": "sos", "L": 20, "phi": 1, "scheme": "tiles"}, ["points[0].L", "20", "tile 8"]),
     ({"rates": "sos", "L": 24, "phi": 1, "tile": 4}, ["points[0].tile", "scheme tiles"]),
     ({"rates": "sos", "L": 24, "phi": 1, "p": 0.5}, ["points[0].p", "unknown key of model kmc2d"]),
     ({"rates": "sos", "L": 24, "phi": 1, "dim": 2}, ["points[0].dim", "kmc2d"]),
     ({"rates": "sos", "L": 24, "phi": 1, "scheme": "DTrDT"}, ["points[0].scheme", "DTrDT"]),
     ({"rates": "sos", "L": 24, "phi": 1, "scheme": "serial", "backend": "gpu"},
      ["points[0].scheme", "gpu"]),
     ({"rates": "potts", "L": 24}, ["points[0].rates", "potts"])],
)  # fmt: skip
def test_campaign_errors_name_the_entry_key(entry: dict, words: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        load_campaign(campaign([entry]))
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg


def test_computed_and_bench_figures_of_a_campaign() -> None:
    """darkins2024 Fig. 2 draws the kmc2d-timestep table (its defaults: no line names it)
    and Fig. 3 the kmc2d benchmark lines and the kmc2d-surfaces table; neither draws points."""
    camp = load_campaign(ROOT / "config" / "papers.yaml")
    assert camp.figure_points("darkins2024_fig2") == []
    assert camp.paper_figure("darkins2024_fig2").figure.bench == ("kmc2d-timestep",)
    assert camp.bench_lines("kmc2d-timestep") == [""]
    fig3 = camp.paper_figure("darkins2024_fig3").figure
    assert fig3.name == "darkins2024_fig3" and fig3.bench == ("kmc2d", "kmc2d-surfaces")
    (line,) = camp.bench_lines("kmc2d")
    assert line.startswith("--L 64 128 256 512 1024 2048 4096 --phi 0 1 2 3 --tile 8")
    for fig in ("darkins2024_fig2", "darkins2024_fig3"):
        bad = campaign([{"rates": "sos", "L": 24, "phi": 1}],
                       paper_figures=[{"figure": fig, "select": {"L": 24}}])  # fmt: skip
        with pytest.raises(ValueError, match="paper_figures\\[0\\].select"):
            load_campaign(bad)


# ---------------------------------------------------------------------------- runs


@pytest.mark.parametrize(
    ("rates", "scheme"), [("sos", "tiles"), ("sos", "serial"), ("sos", "bkl"), ("ising", "tiles")]
)
def test_simcore_run_writes_the_run_file(tmp_path: Path, write_config, rates: str, scheme: str):
    """A real `simcore run` of each scheme: the variables of the rate model, CF attributes,
    the run config's keys as attributes (and not the other rate model's)."""
    tile = {"tile": 8} if scheme == "tiles" else {}  # a key of scheme tiles only
    cfg = job(rates, scheme=scheme, L=24, campaign="c", point="p", **tile)
    out = tmp_path / "run.nc"
    res = run_simcore("run", write_config(cfg), "--out", out, "--quiet")
    assert res.returncode == 0, res.stderr
    ds = xr.load_dataset(out)
    assert set(ds.data_vars) == COMMON_VARS | RATE_VARS[rates]
    assert dict(ds.sizes) == {"sample": 2, "t": ds.sizes["t"], "step": 4096, "row": 24,
                              "col": 24}  # fmt: skip
    assert ds["t"].values[0] == 0 and ds["t"].values[-1] == 20
    assert ds["snapshot"].dims == ("sample", "row", "col")
    assert ds["dt_history"].dims == ds["dt_accepted"].dims == ("sample", "step")
    for name in ds.variables:
        assert {"long_name", "units"} <= set(ds[name].attrs), name
    a = ds.attrs
    assert a["Conventions"].startswith("CF-") and a["model"] == "kmc2d" and a["rates"] == rates
    assert a["scheme"] == scheme and a["L"] == 24 and a["start"] in ("flat", "random")
    others = {"sos": {"J", "h", "T"}, "ising": {"k2", "phi"}}[rates]
    assert not others & set(a) and set(KMC2D_PARAMS[rates]) <= set(a)
    assert yaml.safe_load(a["config"])["rates"] == rates
    assert ("tile" in a) == (scheme == "tiles")  # a key of scheme tiles only
    events = ds["events"].values
    assert np.all(np.diff(events, axis=1) >= 0) and np.all(events[:, -1] > 0)
    if scheme == "tiles":
        assert np.all(ds["steps_accepted"].values[:, -1] > 0)
        assert np.isfinite(ds["dt_history"].values[:, 0]).all()


def test_tiles_and_serial_run_files_are_identical(tmp_path: Path) -> None:
    """The tile algorithm is bit-identical to the serial integrator: same snapshots, same
    observables and events at every sampling time (tiles of 4 and of 8, and 8 with a halo
    of 3 cells instead of 7)."""
    serial = run(job("sos", scheme="serial", phi=1.0, t_max=30), tmp_path / "s.nc")
    for tile, halo in ((4, None), (8, None), (8, 3)):
        cfg = job("sos", scheme="tiles", tile=tile, halo=halo, phi=1.0, t_max=30)
        tiles = run(cfg, tmp_path / "t.nc")
        for var in ("snapshot", "mean_h", "W2", "step_density", "events"):
            np.testing.assert_array_equal(tiles[var].values, serial[var].values, err_msg=var)
        assert np.all(tiles["steps_rejected"].values[:, -1] > 0)  # dt was really adapted


@pytest.mark.parametrize(("rates", "scheme"), [("sos", "bkl"), ("ising", "serial")])
def test_samples_in_parallel_give_the_same_run_file_for_any_thread_count(
    tmp_path: Path, write_config, rates: str, scheme: str
) -> None:
    """serial and bkl run a job's samples in parallel over numba's threads; each sample's
    random numbers are keyed by its index, so 1, 2 and 3 threads (5 samples: uneven
    shares) write the same run file."""
    path = write_config(job(rates, scheme=scheme, samples=5, t_max=30))
    files = []
    for threads in (1, 2, 3):
        out = tmp_path / f"run{threads}.nc"
        env = {**os.environ, "NUMBA_NUM_THREADS": str(threads)}
        res = run_simcore("run", path, "--out", out, "--quiet", env=env)
        assert res.returncode == 0, res.stderr
        files.append(out)
    for other in files[1:]:
        assert_same_run_files(files[0], other)


@pytest.mark.parametrize("rates", ["sos", "ising"])
def test_bkl_batches_of_sampling_times_give_the_same_run_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rates: str
) -> None:
    """A bkl step runs its samples through as many sampling times as its wall-time budget
    reaches; the batches depend on the machine's speed, the run file must not: one
    sampling time per step and the whole run in one step give the same file (wall
    times aside)."""
    from simcore.models.kmc2d import simulation

    cfg = validate_run_config(job(rates, scheme="bkl", samples=3, t_max=40))
    steps = {}
    for budget in (0.0, 1e9):
        monkeypatch.setattr(simulation, "BATCH_SECONDS", budget)
        sim = simulation.KMC2DSimulation(cfg)
        st, n = sim.initial_state(), 0
        while not sim.done(st):
            sim.step(st)
            n += 1
        steps[budget] = n
        assert run_job(cfg, tmp_path / f"b{budget}.nc", progress=False) == EXIT_OK
    # t = 0, then t = 1 (the first step that advances sets the pace), then all the rest
    assert steps[0.0] == sim.times.size and steps[1e9] == 3
    assert_same_run_files(tmp_path / "b0.0.nc", tmp_path / "b1000000000.0.nc")


@pytest.mark.parametrize(("rates", "scheme"), [("sos", "tiles"), ("ising", "serial"),
                                               ("sos", "bkl")])  # fmt: skip
def test_resume_after_every_step_is_bit_identical(tmp_path: Path, rates: str, scheme: str):
    """Stopping after every sampling time (max_wall=0) and resuming from the checkpoint
    gives the run file of an uninterrupted run (tile step control and dt history too)."""
    cfg = validate_run_config(job(rates, scheme=scheme, t_max=40))
    ref = tmp_path / "ref.nc"
    assert run_job(cfg, ref, progress=False) == EXIT_OK
    out = tmp_path / "out.nc"
    assert run_with_stops(cfg, out) > 10
    assert_same_run_files(ref, out)


# ---------------------------------------------------------------------------- analysis


def test_random_deposition_through_the_analysis(tmp_path: Path) -> None:
    """sos at phi = 0 is random deposition: <h> = k2 t and W^2 = k2 t exactly (beta = 1/2,
    k2 events per cell and unit time), within the jackknife errors of the analysis."""
    k2 = 2.0
    ds = run(job("sos", phi=0.0, k2=k2, L=24, samples=16, t_max=30), tmp_path / "rd.nc")
    an = analyze_kmc2d(aggregate([tmp_path / "rd.nc"]))
    assert an.attrs["reference_beta"] == 0.5 and an.attrs["jackknife_groups"] == 16
    t = an["t"].values
    ok = t > 0
    for var in ("mean_h", "W2", "events_rate"):
        expect = k2 * t[ok] if var != "events_rate" else k2
        mean, err = an[f"{var}_mean"].values[ok], an[f"{var}_err"].values[ok]
        assert np.all(err > 0)
        z = (mean - expect) / err
        assert np.all(np.abs(z) < 4), (var, z)
    np.testing.assert_allclose(an["mean_h_mean"].values, ds["mean_h"].values.mean(axis=0))
    beta, err = an["beta_eff"].values, an["beta_eff_err"].values
    assert np.all(np.abs(beta - 0.5) < 4 * err)
    assert np.isnan(an["events_rate_mean"].values[0])  # t = 0


def test_ising_analysis_and_figures(tmp_path: Path) -> None:
    """The ising observables (|m| >= |<m>|, energy) and every figure of a mixed campaign,
    through the dispatch of analysis.analyze and analysis.figures."""
    from analysis.analyze import main as analyze_main
    from analysis.figures import make_figures

    run(job("ising", scheme="serial", L=16, samples=4, T=1.5), tmp_path / "i.nc")
    run(job("sos", scheme="serial", phi=0.5, samples=3), tmp_path / "s.nc")
    paths = []
    for stem in ("i", "s"):
        paths.append(tmp_path / f"a{stem}.nc")
        assert analyze_main([str(tmp_path / f"{stem}.nc"), "--out", str(paths[-1])]) == 0
    ai = xr.load_dataset(paths[0])
    assert {"abs_magnetization_mean", "energy_err", "events_rate_mean"} <= set(ai.data_vars)
    assert "beta_eff" not in ai and "reference_beta" not in ai.attrs
    m, am = ai["magnetization_mean"].values, ai["abs_magnetization_mean"].values
    assert np.all(am >= np.abs(m) - 1e-12)
    assert ai["energy_mean"].values[-1] < ai["energy_mean"].values[0]  # it orders
    written = make_figures(paths, tmp_path / "figs")
    names = ["W2", "beta_eff", "energy", "magnetization", "step_density", "events_rate"]
    assert [p.name for p in written] == [f"{n}.{e}" for n in names for e in ("png", "pdf")]
    assert list(draw_kmc2d([ai])) == ["energy", "magnetization", "step_density", "events_rate"]
    with pytest.raises(ValueError, match="missing"):
        analyze_kmc2d(xr.load_dataset(tmp_path / "i.nc").drop_vars("energy"))


def test_two_blocks_of_a_point_aggregate(tmp_path: Path) -> None:
    camp = load_campaign(campaign([{"rates": "sos", "L": 24, "phi": 1}]))
    point = camp.point_names[0]
    paths = []
    for block in camp.points[0].blocks:
        paths.append(tmp_path / f"b{block}.nc")
        run(camp.job_config(point, block), paths[-1])
    ds = aggregate(paths)
    assert ds.sizes["sample"] == 6 and ds.attrs["n_runs"] == 2


# ---------------------------------------------------------------------------- snakemake


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
def test_kmc2d_campaign_through_snakemake(tmp_path: Path) -> None:
    """A tiny campaign (sos with the cpu's default scheme, bkl, and ising serial) from the
    campaign file to its figures."""
    conf = tmp_path / "km.yaml"
    conf.write_text(yaml.safe_dump(campaign(
        [{"rates": "sos", "L": 24, "phi": 0}, {"rates": "ising", "L": 16, "T": 2.0,
                                               "scheme": "serial"}],
        samples=4, samples_per_job=4, threads=2,
    )))  # fmt: skip
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(tmp_path), "--cores", "2", "--configfile", str(conf)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = tmp_path / "results" / "km"
    for name in ("W2", "beta_eff", "energy", "magnetization", "step_density", "events_rate"):
        assert (res / "figures" / f"{name}.png").stat().st_size > 0
    point = "kmc2d_sos_L24_phi0_k21_bkl_cpu"
    job_cfg = yaml.safe_load((res / "jobs" / point / "b0.yaml").read_text())
    assert job_cfg["scheme"] == "bkl" and not {"tile", "T"} & set(job_cfg)
    an = xr.load_dataset(res / "analysis" / f"{point}.nc")
    assert an.attrs["n_samples"] == 4 and an.attrs["reference_beta"] == 0.5
    t = an["t"].values
    z = (an["mean_h_mean"].values[1:] - t[1:]) / an["mean_h_err"].values[1:]
    assert np.all(np.abs(z) < 4)


def test_bench_table_and_darkins_figures(tmp_path: Path) -> None:
    """`simcore bench kmc2d --backend cpu --csv` (with the surfaces of `simcore bench
    kmc2d-surfaces`) feeds darkins2024 Fig. 3 through analysis.papers (the GPU lines of
    config/papers.yaml take the same path)."""
    from analysis.papers import main as paper_main
    from simcore.cli import main

    table = tmp_path / "kmc2d.csv"
    args = ["bench", "kmc2d", "--backend", "cpu", "--L", "24", "48", "--phi", "0", "1",
            "--relax", "1", "--measure", "1", "--repeats", "1", "--bkl-events", "1000",
            "--csv", str(table)]  # fmt: skip
    assert main(args) == 0
    out = tmp_path / "figs"
    surfaces = tmp_path / "surfaces.csv"
    assert main(["bench", "kmc2d-surfaces", "--L", "8", "--phi", "0", "1", "--events-per-cell",
                 "5", "--csv", str(surfaces)]) == 0  # fmt: skip
    args = ["darkins2024_fig3", "--out-dir", str(out), "--name", "f3", str(table), str(surfaces)]
    assert paper_main(args) == 0
    assert sorted(p.name for p in out.iterdir()) == ["f3.pdf", "f3.png"]


def test_cpu_bench_times_a_campaigns_jobs_against_bkl_on_one_core(tmp_path: Path) -> None:
    """`simcore bench kmc2d-cpu`: each CPU point's first job under its scheme on all
    threads, BKL on one core, and the --also schemes on 1 and all threads; a GPU point is
    left out."""
    import csv

    from simcore.cli import main
    from simcore.models.kmc2d.bench_cpu_jobs import split_job

    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(campaign(
        [{"rates": "sos", "L": 24, "phi": 1, "scheme": ["bkl", "serial"]},
         {"rates": "sos", "L": 24, "phi": 1, "backend": "gpu"}],
        samples=2, samples_per_job=2, t_max=2)))  # fmt: skip
    table = tmp_path / "cpu.csv"
    args = ["bench", "kmc2d-cpu", "--campaign", str(conf), "--L", "24", "--phi", "0",
            "--samples", "2", "--t-max", "2", "--threads", "1", "--also", "tiles",
            "--repeats", "1", "--csv", str(table)]  # fmt: skip
    assert main(args) == 0
    rows = list(csv.DictReader(table.open()))
    got = [(r["point"], r["scheme"], r["threads"]) for r in rows]
    assert got == [
        ("kmc2d_sos_L24_phi1_k21_bkl_cpu", "bkl", "1"),
        ("kmc2d_sos_L24_phi1_k21_bkl_cpu", "tiles", "1"),
        ("kmc2d_sos_L24_phi1_k21_serial_cpu", "serial", "1"),
        ("kmc2d_sos_L24_phi1_k21_serial_cpu", "bkl", "1"),
        ("kmc2d_sos_L24_phi1_k21_serial_cpu", "tiles", "1"),
        ("kmc2d_sos_L24_phi0_k21_bkl_cpu", "bkl", "1"),
        ("kmc2d_sos_L24_phi0_k21_bkl_cpu", "tiles", "1"),
    ]
    assert all(float(r["events_per_s"]) > 0 and float(r["events_per_cpu_s"]) > 0 for r in rows)
    assert float(rows[0]["per_cpu_s_vs_bkl_1"]) == 1.0
    assert main(["bench", "kmc2d-cpu", "--campaign", "", "--threads", "0"]) == 2  # no point
    # the one-core processes that the job is compared with share its samples out
    parts = split_job({"samples": 5, "seed": 7, "L": 24}, 2)
    assert [(p["samples"], p["seed"]) for p in parts] == [(3, 7), (2, 8)]


@pytest.mark.parametrize(
    ("args", "option"),
    [(["--tile", "8", "--halo", "8"], "--halo"), (["--tile", "8", "--halo", "0"], "--halo"),
     (["--relax", "-1"], "--relax"), (["--L", "20", "--tile", "8"], "--L/--tile")],
)  # fmt: skip
def test_bench_timestep_bad_options_are_one_line(args: list[str], option: str, capsys) -> None:
    """``simcore bench kmc2d-timestep`` with a halo outside 1 .. tile - 1, a negative
    relaxation or a lattice the tiles do not fit: exit status 2, one line naming it."""
    from simcore.cli import main

    assert main(["bench", "kmc2d-timestep", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and option in err[0]
