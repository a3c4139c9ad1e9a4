"""fcc through the shared path: run configs, campaigns, simcore run, resume, aggregation,
analysis, figures and Snakemake (CPU only; the GPU backend is only validated here)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
from conftest import (
    assert_same_run_files,
    gpu_count,
    run_and_load,
    run_simcore,
    run_steps,
    run_with_stops,
)
from test_kpz_gpu import needs_gpu

from analysis.aggregate import aggregate
from analysis.estimates import local_slope_of
from analysis.fcc import analyze as analyze_fcc
from analysis.fcc import draw_figures as draw_fcc
from simcore.campaign import load_campaign
from simcore.config import ConfigError, validate_run_config
from simcore.models import registry
from simcore.runner import EXIT_OK, run_job

#: The fcc campaign figures (named by the spec, drawn by analysis.fcc).
FIGURE_NAMES = tuple(registry.get("fcc").campaign_figures([]))

ROOT = Path(__file__).resolve().parents[1]

#: Variables of every fcc run file with their dims, and the units of some.
RUN_VARS = {"open_bonds": ("sample", "t"), "energy": ("sample", "t"),
            "domain_size": ("sample", "t"), "moves": ("sample", "t"),
            "wall_time": ("sample", "t"), "structure_factor": ("sample", "t", "k"),
            "slice": ("sample", "row", "col")}  # fmt: skip
#: The geometry of each parallel scheme at L = 16 (the smallest blocks and slabs).
GEOMETRY = {"sequential": {}, "dt": {"block_side": 8}, "slabs": {"n_slabs": 2}}


def job(scheme: str = "sequential", **over) -> dict:
    """An fcc run config that finishes in well under a second (L = 16: 2048 sites)."""
    cfg = {"model": "fcc", "L": 16, "c": 0.325, "epsilon": 1.5, "scheme": scheme,
           "samples": 2, "seed": 12, "t_max": 20, **GEOMETRY[scheme]}  # fmt: skip
    cfg.update(over)
    return {k: v for k, v in cfg.items() if v is not None}


def run(cfg: dict, path: Path) -> xr.Dataset:
    return run_and_load(validate_run_config(cfg), path)


# ---------------------------------------------------------------------------- run configs


@pytest.mark.parametrize(
    ("scheme", "over", "key"),
    [("sequential", {"L": 17}, "L"), ("sequential", {"L": 6}, "L"),
     ("sequential", {"L": 16.0}, "L"), ("sequential", {"L": 4096}, "L"),
     ("sequential", {"c": 1.5}, "c"), ("sequential", {"c": 0}, "c"),
     ("sequential", {"c": None}, "c"), ("sequential", {"c": "0.3"}, "c"),
     ("sequential", {"epsilon": -1.0}, "epsilon"),
     ("sequential", {"epsilon": float("nan")}, "epsilon"),
     ("sequential", {"active": "A"}, "active"), ("sequential", {"scheme": "tiles"}, "scheme"),
     ("dt", {"block_side": 12, "L": 48}, "block_side"), ("dt", {"block_side": 4}, "block_side"),
     ("dt", {"block_side": 16, "L": 48}, "L"), ("dt", {"block_side": None, "L": 32}, "L"),
     ("slabs", {"n_slabs": 3}, "L"), ("slabs", {"n_slabs": 4}, "n_slabs"),
     ("slabs", {"n_slabs": 0}, "n_slabs"),
     ("sequential", {"block_side": 8}, "block_side"), ("dt", {"n_slabs": 2}, "n_slabs"),
     ("slabs", {"block_side": 8}, "block_side"),
     ("sequential", {"backend": "gpu"}, "scheme"), ("slabs", {"backend": "gpu"}, "scheme"),
     ("dt", {"backend": "gpu", "block_side": 128, "L": 256}, "block_side"),
     ("dt", {"block_side": 128, "L": 256}, "block_side"), ("dt", {"active": "B"}, "active"),
     ("slabs", {"active": "B"}, "active"),
     ("sequential", {"backend": "tpu"}, "backend"), ("sequential", {"tile": 8}, "tile"),
     ("sequential", {"rates": "sos"}, "rates")],
)  # fmt: skip
def test_bad_fcc_configs_name_their_key(scheme: str, over: dict, key: str) -> None:
    """Every bad value: a one-line ConfigError naming the key (and so its value)."""
    cfg = job(scheme)
    cfg.update(over)
    cfg = {k: v for k, v in cfg.items() if v is not None}
    with pytest.raises(ConfigError) as err:
        validate_run_config(cfg)
    assert err.value.key == key and "\n" not in str(err.value)
    assert f"'{key}'" in str(err.value)


def test_defaults_and_the_keys_of_other_schemes() -> None:
    """Defaults; a config holds the geometry key of its own scheme only; a validated
    config is valid again; backend gpu with scheme dt validates (it is not run here)."""
    seq = validate_run_config(job())
    assert (seq["active"], seq["scheme"], seq["backend"]) == ("B", "sequential", "cpu")
    assert not {"block_side", "n_slabs"} & set(seq)
    dt = validate_run_config(job("dt", block_side=None, L=64))
    assert dt["block_side"] == 32 and "n_slabs" not in dt
    slabs = validate_run_config(job("slabs", n_slabs=None, L=32, active="both"))
    assert slabs["n_slabs"] == 4 and "block_side" not in slabs and slabs["active"] == "both"
    for cfg in (seq, dt, slabs):
        assert validate_run_config(dict(cfg)) == cfg
    assert isinstance(validate_run_config(job(epsilon=0))["epsilon"], float)
    gpu = validate_run_config(job("dt", backend="gpu"))
    assert gpu["backend"] == "gpu" and gpu["block_side"] == 8


def test_simcore_run_bad_config_exit_2(tmp_path: Path, write_config) -> None:
    """`simcore run` of a bad fcc config: exit status 2, one line naming key and value."""
    out = tmp_path / "r.nc"
    for over, key, value in (({"L": 15}, "L", "15"), ({"c": 1.5}, "c", "1.5"),
                             ({"block_side": 8}, "block_side", "8")):  # fmt: skip
        res = run_simcore("run", write_config(job(**over)), "--out", out, "--quiet")
        assert res.returncode == 2
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and f"'{key}'" in lines[0] and value in lines[0], res.stderr
        assert not out.exists()


@pytest.mark.skipif(gpu_count() > 0, reason="there is a GPU")
def test_gpu_backend_without_a_gpu_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        run_job(validate_run_config(job("dt", backend="gpu")), tmp_path / "g.nc", progress=False)
    assert err.value.key == "backend" and not (tmp_path / "g.nc").exists()


# ---------------------------------------------------------------------------- campaigns


def campaign(points: list[dict], **over) -> dict:
    cfg = {"campaign": "fc", "seed": 5, "model": "fcc", "samples": 6, "samples_per_job": 4,
           "t_max": 20, "points": points}  # fmt: skip
    cfg.update(over)
    return cfg


def test_campaign_points_names_and_jobs() -> None:
    """Point names; block_side lists expand scheme dt only and n_slabs lists scheme slabs
    only; job configs, threads, resources and the figure names."""
    camp = load_campaign(campaign(
        [{"L": [32, 64], "c": 0.325, "epsilon": 1.5, "scheme": ["sequential", "dt", "slabs"],
          "block_side": [8, 16], "n_slabs": 4},
         {"L": 64, "c": 0.325, "epsilon": 1.5, "active": "both", "scheme": "dt",
          "block_side": 32, "backend": "gpu"}],
        threads=3,
    ))  # fmt: skip
    names = camp.point_names
    stem = "fcc_L32_c0.325_eps1.5_"
    assert names[:4] == [f"{stem}B_sequential_cpu", f"{stem}both_dt8_cpu",
                         f"{stem}both_dt16_cpu", f"{stem}both_slabs4_cpu"]  # fmt: skip
    assert names[-1] == "fcc_L64_c0.325_eps1.5_both_dt32_gpu"
    assert len(names) == 2 * 4 + 1
    dt = camp.job_config("fcc_L32_c0.325_eps1.5_both_dt16_cpu", 1)
    assert dt["samples"] == 2 and dt["sample_offset"] == 4 and dt["block_side"] == 16
    assert list(dt)[:8] == ["model", "L", "c", "epsilon", "active", "scheme", "block_side",
                            "backend"]  # fmt: skip
    seq = camp.job_config("fcc_L32_c0.325_eps1.5_B_sequential_cpu", 0)
    assert not {"block_side", "n_slabs", "waiting_times", "dim", "tile"} & set(seq)
    assert camp.job_config("fcc_L64_c0.325_eps1.5_both_slabs4_cpu", 0)["n_slabs"] == 4
    for name, block in camp.jobs():  # every job config is a valid run config
        validate_run_config(camp.job_config(name, block))
    assert camp.job_threads("fcc_L32_c0.325_eps1.5_both_dt8_cpu") == 3
    assert camp.job_threads("fcc_L32_c0.325_eps1.5_both_slabs4_cpu") == 3
    assert camp.job_threads("fcc_L32_c0.325_eps1.5_B_sequential_cpu") == 1
    assert camp.job_threads(names[-1]) == 1 and camp.job_resources(names[-1], 0)["gpu"] == 1
    assert camp.figure_names == list(FIGURE_NAMES)
    sel = load_campaign(campaign(
        [{"L": 32, "c": 0.325, "epsilon": [1.0, 1.5]}],
        paper_figures=[{"figure": "fig6", "name": "deep", "select": {"epsilon": 1.5}}],
    ))  # fmt: skip
    assert sel.figure_points("deep") == ["fcc_L32_c0.325_eps1.5_B_sequential_cpu"]


def test_job_resources_scale_with_attempts() -> None:
    camp = load_campaign(campaign([{"L": 256, "c": 0.325, "epsilon": 1.5}],
                                  samples=16, samples_per_job=16, t_max=10000))  # fmt: skip
    res = camp.job_resources("fcc_L256_c0.325_eps1.5_B_sequential_cpu", 0)
    # 2 (safety) x (256^3 / 2 x 1e4 x 16 attempts / 1e7 per s + the observables: 43 times
    # x 16 samples x 256^3 sites / 5e6 per s) / 60 = 4473.9 + 77.0 -> 4551 min
    assert res["runtime"] == 4551 and res["gpu"] == 0
    # memory: the base, and the measurement of S(k), about 98 bytes per site of the box
    assert res["mem_mb"] > 1024 + 98 * 256**3 / 2**20
    assert camp.job_resources("fcc_L256_c0.325_eps1.5_B_sequential_cpu", 0, 2)["runtime"] == (
        2 * res["runtime"]
    )


@pytest.mark.parametrize(
    ("entry", "words"),
    [({"L": 33, "c": 0.3, "epsilon": 1}, ["points[0].L", "33"]),
     ({"L": 32, "epsilon": 1}, ["points[0].c", "missing"]),
     ({"L": 32, "c": 0.3}, ["points[0].epsilon", "missing"]),
     ({"L": 48, "c": 0.3, "epsilon": 1, "scheme": "dt", "block_side": 12},
      ["points[0].block_side", "12", "power of two"]),
     ({"L": 48, "c": 0.3, "epsilon": 1, "scheme": "dt"}, ["points[0].L", "48", "64"]),
     ({"L": 32, "c": 0.3, "epsilon": 1, "scheme": "tiles"}, ["points[0].scheme", "tiles"]),
     ({"L": 32, "c": 0.3, "epsilon": 1, "p": 0.5}, ["points[0].p", "unknown key of model fcc"]),
     ({"L": 32, "c": 0.3, "epsilon": 1, "backend": "gpu"}, ["points[0].scheme", "gpu"]),
     ({"L": 32, "c": 1.5, "epsilon": 1}, ["points[0].c", "1.5"])],
)  # fmt: skip
def test_campaign_errors_name_the_entry_key(entry: dict, words: list[str]) -> None:
    with pytest.raises(ValueError) as err:
        load_campaign(campaign([entry]))
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg


# ---------------------------------------------------------------------------- runs


def test_simcore_run_writes_the_run_file(tmp_path: Path, write_config) -> None:
    """A real `simcore run` (scheme dt): the variables and their dims, CF attributes, the
    run config's keys as attributes (block_side, not n_slabs)."""
    cfg = job("dt", campaign="c", point="p", sample_offset=4)
    out = tmp_path / "run.nc"
    res = run_simcore("run", write_config(cfg), "--out", out, "--quiet")
    assert res.returncode == 0, res.stderr
    ds = xr.load_dataset(out)
    assert {name: ds[name].dims for name in ds.data_vars} == RUN_VARS
    assert dict(ds.sizes) == {"sample": 2, "t": ds.sizes["t"], "k": 7, "row": 16, "col": 16}
    assert ds["t"].dtype == np.int64 and ds["t"].values[0] == 0
    assert ds["t"].values[-1] == 20 and ds["sample"].values.tolist() == [4, 5]
    for name in ds.variables:
        assert {"long_name", "units"} <= set(ds[name].attrs), name
    model_units = {name: ds[name].attrs.get("model_units") for name in ds.variables}
    assert model_units["t"] == "MCS" and model_units["k"] == "1/lattice spacing"
    assert model_units["domain_size"] == "lattice spacing" and model_units["energy"] == "epsilon"
    assert model_units["open_bonds"] is None and ds["wall_time"].attrs["units"] == "s"
    a = ds.attrs
    assert a["Conventions"].startswith("CF-") and a["model"] == "fcc" and a["scheme"] == "dt"
    assert a["block_side"] == 8 and "n_slabs" not in a and a["active"] == "both"
    assert a["c"] == 0.325 and a["epsilon"] == 1.5
    assert yaml.safe_load(a["config"])["block_side"] == 8


@pytest.mark.parametrize("scheme", ["sequential", "dt", "slabs"])
def test_a_quench_coarsens(tmp_path: Path, scheme: str) -> None:
    """Each scheme: exchanges accumulate, open bonds and energy fall, domains grow, the
    random mixture starts at about 12 (1 - c) open bonds per B; the slice is the z = 0
    plane of the sc picture (no B on a non-fcc site)."""
    ds = run(job(scheme, t_max=30), tmp_path / "q.nc")
    moves = ds["moves"].values
    assert np.all(moves[:, 0] == 0) and np.all(np.diff(moves, axis=1) >= 0)
    assert np.all(moves[:, -1] > 0)
    ob, e, size = (ds[v].values for v in ("open_bonds", "energy", "domain_size"))
    assert np.all(np.abs(ob[:, 0] - 12 * (1 - 0.325)) < 0.5)
    assert np.all(ob[:, -1] < ob[:, 0] - 1) and np.all(e[:, -1] < e[:, 0])
    assert np.all(size[:, -1] > size[:, 0])
    assert np.all(np.isfinite(ds["structure_factor"].values))
    y, x = np.nonzero(ds["slice"].values[0])
    assert y.size > 0 and np.all((x + y) % 2 == 0)


@pytest.mark.parametrize("scheme", ["sequential", "dt", "slabs"])
def test_resume_after_every_step_is_bit_identical(tmp_path: Path, scheme: str) -> None:
    """Stopping after every sampling time (max_wall=0) and resuming from the checkpoint
    gives the run file of an uninterrupted run."""
    cfg = validate_run_config(job(scheme, t_max=40))
    ref = tmp_path / "ref.nc"
    assert run_job(cfg, ref, progress=False) == EXIT_OK
    out = tmp_path / "out.nc"
    assert run_with_stops(cfg, out) > 10
    assert_same_run_files(ref, out)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(("L", "b", "active"), [(32, 8, "both"), (128, 64, "both")])
def test_gpu_job_equals_cpu_job_and_resumes(tmp_path: Path, L: int, b: int, active: str):
    """The whole job (FCCSimulation, scheme dt) on the GPU gives the CPU job's run file;
    stopping after three sampling times, writing a checkpoint and resuming it in a new job
    changes nothing."""
    from simcore.io.checkpoint import load_checkpoint, save_checkpoint
    from simcore.models import make_simulation

    cfg = job("dt", L=L, block_side=b, active=active, samples=3, t_max=30, sample_offset=3)
    ds = {}
    for backend in ("cpu", "gpu"):
        sim = make_simulation(validate_run_config({**cfg, "backend": backend}))
        ds[backend] = sim.to_dataset(run_steps(sim))
    gpu_cfg = validate_run_config({**cfg, "backend": "gpu"})
    first = make_simulation(gpu_cfg)
    save_checkpoint(tmp_path / "c.npz", first.to_host(run_steps(first, stop_after=3)))
    saved = load_checkpoint(tmp_path / "c.npz")
    again = make_simulation(gpu_cfg)
    st = again.from_host({k: (int(v) if v.ndim == 0 else v) for k, v in saved.items()})
    ds["resumed"] = again.to_dataset(run_steps(again, st))
    for other in ("gpu", "resumed"):
        for name in ds["cpu"].variables:
            if name != "wall_time":
                a, o = ds["cpu"][name].values, ds[other][name].values
                assert np.array_equal(a, o), (other, name)


# ---------------------------------------------------------------------------- analysis


def test_local_slope_is_the_exponent_of_a_power_law() -> None:
    """x_eff of L = 3 t^0.3 is 0.3 at every pair of times; t = 0 is skipped."""
    t = np.array([0.0, 1, 2, 5, 10, 30])
    size = xr.DataArray(np.r_[1.0, 3 * t[1:] ** 0.3], dims="t", coords={"t": t})
    x = local_slope_of(size, t)
    assert x.dims == ("t_eff",) and x.sizes["t_eff"] == 4
    np.testing.assert_allclose(x.values, 0.3)


def test_blocks_aggregate_and_the_analysis_gives_x_eff(tmp_path: Path) -> None:
    """Two blocks of a campaign point aggregate into one dataset; the analysis (through
    the dispatch of analysis.analyze) gives jackknife means and errors and x_eff, and
    analysis.figures draws every fcc figure."""
    from analysis.analyze import main as analyze_main
    from analysis.figures import make_figures

    camp = load_campaign(campaign([{"L": 16, "c": 0.325, "epsilon": 1.5}], t_max=30))
    point = camp.point_names[0]
    paths = []
    for block in camp.points[0].blocks:
        paths.append(tmp_path / f"b{block}.nc")
        run(camp.job_config(point, block), paths[-1])
    ds = aggregate(paths)
    assert ds.sizes["sample"] == 6 and ds.attrs["n_runs"] == 2
    assert ds["sample"].values.tolist() == list(range(6))
    ds.to_netcdf(tmp_path / "ds.nc")
    assert analyze_main([str(tmp_path / "ds.nc"), "--out", str(tmp_path / "an.nc")]) == 0
    an = xr.load_dataset(tmp_path / "an.nc")
    for name in ("open_bonds", "energy", "domain_size"):
        np.testing.assert_allclose(an[f"{name}_mean"].values, ds[name].values.mean(axis=0))
        assert np.all(an[f"{name}_err"].values > 0), name
    assert an["structure_factor_mean"].dims == ("t", "k")
    x, err = an["x_eff"].values, an["x_eff_err"].values
    assert an["x_eff"].dims == ("t_eff",) and x.size == an.sizes["t"] - 2
    assert np.all(np.isfinite(x)) and np.all(err > 0) and 0 < np.mean(x) < 1
    assert an.attrs["reference_x"] == pytest.approx(1 / 3) and an.attrs["n_samples"] == 6
    assert an["slice"].dims == ("row", "col")
    written = make_figures([tmp_path / "an.nc"], tmp_path / "figs")
    assert [p.name for p in written] == [f"{n}.{e}" for n in FIGURE_NAMES for e in ("png", "pdf")]
    assert all(p.stat().st_size > 0 for p in written)
    with pytest.raises(ValueError, match="missing"):
        analyze_fcc(ds.drop_vars("domain_size"))
    with pytest.raises(ValueError, match="missing"):
        draw_fcc([ds])


# ---------------------------------------------------------------------------- snakemake


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
def test_fcc_campaign_through_snakemake(tmp_path: Path) -> None:
    """A tiny campaign (sequential and dt) from the campaign file to its figures."""
    conf = tmp_path / "fc.yaml"
    conf.write_text(yaml.safe_dump(campaign(
        [{"L": 16, "c": 0.325, "epsilon": 1.5, "scheme": ["sequential", "dt"], "block_side": 8}],
        samples=2, samples_per_job=2, threads=2,
    )))  # fmt: skip
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(tmp_path), "--cores", "2", "--configfile", str(conf)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = tmp_path / "results" / "fc"
    for name in FIGURE_NAMES:
        for ext in ("png", "pdf"):
            assert (res / "figures" / f"{name}.{ext}").stat().st_size > 0
    point = "fcc_L16_c0.325_eps1.5_both_dt8_cpu"
    job_cfg = yaml.safe_load((res / "jobs" / point / "b0.yaml").read_text())
    assert job_cfg["block_side"] == 8 and "n_slabs" not in job_cfg
    an = xr.load_dataset(res / "analysis" / f"{point}.nc")
    assert an.attrs["n_samples"] == 2 and np.isfinite(an["x_eff"].values).all()


def test_bench_table_and_kelling2012_figures(tmp_path: Path) -> None:
    """`simcore bench fcc` on the CPU writes a row per implementation and stop (the CPU ones
    at the first and last stop only), speeds are positive, open bonds fall along the
    quench, and Figs. 6 and 7 are drawn from the table."""
    from analysis.kelling2012 import load_fcc_bench
    from analysis.papers import make_figure

    table = tmp_path / "b.csv"
    res = run_simcore("bench", "fcc", "--L", "16", "--backend", "cpu", "--quench", "0", "3",
                      "8", "--block-side", "8", "--cpu-block-side", "8", "--slabs", "2",
                      "--repeats", "1", "--csv", str(table))  # fmt: skip
    assert res.returncode == 0, res.stderr
    rows = load_fcc_bench(table)
    assert {r["t_quench"] for r in rows} == {0, 8} and len(rows) == 2 * 5
    assert all(r["attempts_per_s"] > 0 for r in rows)
    assert rows[-1]["open_bonds"] < rows[0]["open_bonds"] - 1
    assert "| CPU DD | 1 | both | 0 |" in res.stdout
    for fig in ("kelling2012_fig6", "kelling2012_fig7"):
        paths = make_figure(fig, [table], tmp_path)
        assert all(p.stat().st_size > 0 for p in paths)
