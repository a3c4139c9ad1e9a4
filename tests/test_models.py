"""The model interface, tested once for every registered model and for a model that lives
outside simcore (tests/plugins/rd1d, installed here with pip, registered by its entry
point alone): run-config round trip, bad input, the run file's layout, resume bit for
bit, a campaign's dry run, and the plug-in through simcore run, a campaign to its figure,
the analysis and simcore bench."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
from conftest import assert_same_run_files, run_simcore, run_with_stops

from simcore.campaign import NAME_PATTERN, load_campaign
from simcore.config import COMMON_KEYS, validate_run_config
from simcore.models import registry
from simcore.models.spec import ModelSpec, Simulation
from simcore.rng.streams import STREAMS

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "plugins" / "rd1d"
#: The analysis modules that serve every model (the others are a model's or a paper's).
SHARED_ANALYSIS = ("aggregate", "analyze", "figures", "papers", "dispatch", "plotting",
                   "stats", "estimates", "tables")  # fmt: skip
#: The models simcore ships (from the registry) and the plug-in.
MODELS = [*registry.names(), "rd1d"]


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory) -> dict[str, str]:
    """The rd1d package pip-installed into a folder of its own (a real install: its
    dist-info carries the entry point), that folder on sys.path and on PYTHONPATH for the
    subprocesses; removed again after this module."""
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(PLUGIN)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    sys.path.insert(0, str(target))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    yield env
    sys.path.remove(str(target))
    registry.unregister("rd1d")
    for name in [m for m in sys.modules if m == "rd1d" or m.startswith("rd1d.")]:
        del sys.modules[name]


@pytest.fixture(params=MODELS)
def spec(request, plugin_env) -> ModelSpec:
    """Every registered model's spec, and the plug-in's."""
    return registry.get(request.param)


def example_config(spec: ModelSpec, **overrides) -> dict:
    """The spec's example run config with a seed."""
    return {"model": spec.name, **spec.example, "seed": 77, **overrides}


def test_the_plugin_is_found_by_its_entry_point(plugin_env) -> None:
    """rd1d is known by name once installed, without registering it in code; the shipped
    models are registered by entry points too."""
    assert "rd1d" in registry.names()
    assert registry.get("rd1d").analysis == "rd1d.analysis"
    assert set(registry.names()) >= {"kpz", "ea3d", "kmc2d", "fcc"}
    proc = run_simcore("models", env=plugin_env)
    assert proc.returncode == 0 and re.search(r"^rd1d\s", proc.stdout, re.M)


def test_config_round_trip(spec: ModelSpec) -> None:
    """The example validates; validating its result again changes nothing, also through
    YAML; its point name is a file name starting with the model's."""
    cfg = validate_run_config(example_config(spec))
    assert validate_run_config(dict(cfg)) == cfg
    assert validate_run_config(yaml.safe_load(yaml.safe_dump(cfg))) == cfg
    assert set(cfg) <= set(COMMON_KEYS) | set(spec.keys)
    name = spec.point_name(cfg)
    assert re.fullmatch(NAME_PATTERN, name) and name.startswith(spec.name)
    assert isinstance(spec.simulation(cfg), Simulation)


def test_bad_input_exits_2_and_writes_nothing(spec: ModelSpec, tmp_path, plugin_env) -> None:
    """An unknown key (with the closest known one), a missing required key and a model
    that does not exist: one line each, exit status 2, nothing at --out."""
    required = next(k for k, key in spec.keys.items() if key.required and key.applies is None)
    cases = {
        "typo": ({**example_config(spec), "samplez": 3}, "samplez", "did you mean 'samples'"),
        "missing": (
            {k: v for k, v in example_config(spec).items() if k != required},
            f"'{required}'",
            "missing",
        ),
        "model": (example_config(spec, model="no_such_model"), "no_such_model", "unknown model"),
    }
    for case, (cfg, what, why) in cases.items():
        path = tmp_path / f"{case}.yaml"
        path.write_text(yaml.safe_dump(cfg))
        out = tmp_path / f"{case}.nc"
        proc = run_simcore("run", path, "--out", out, env=plugin_env)
        assert proc.returncode == 2, (case, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and what in lines[0] and why in lines[0], (case, lines)
        assert not any(tmp_path.glob(f"{case}.nc*")), case


def test_run_file_layout(spec: ModelSpec, tmp_path, plugin_env) -> None:
    """dims sample and t; units and a long name on every variable; the provenance and
    the point's keys in the global attributes."""
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(example_config(spec)))
    proc = run_simcore("run", path, "--out", tmp_path / "run.nc", "--quiet", env=plugin_env)
    assert proc.returncode == 0, proc.stderr
    cfg = validate_run_config(example_config(spec))
    with xr.open_dataset(tmp_path / "run.nc") as ds:
        assert {"sample", "t"} <= set(ds.dims)
        assert ds.sizes["sample"] == cfg["samples"]
        np.testing.assert_array_equal(ds["sample"].values, np.arange(cfg["samples"]))
        for name, var in ds.variables.items():
            assert "units" in var.attrs, name
            assert "long_name" in var.attrs, name
        for key in ("Conventions", "title", "model", "seed", "t_max", "simcore_version",
                    "git_commit", "backend", "device", "hostname", "created", "wall_seconds",
                    "config", "config_hash", "point_config_hash", "point_config_keys"):  # fmt: skip
            assert key in ds.attrs, key
        assert ds.attrs["model"] == spec.name
        shared = ds.attrs["point_config_keys"].split()
        assert set(spec.point_keys) & set(cfg) <= set(shared)
        assert yaml.safe_load(ds.attrs["config"]) == cfg


def test_resume_is_bit_identical(spec: ModelSpec, tmp_path) -> None:
    """Stopped after every sampling time and resumed from the checkpoint each time, a job
    writes the same file as when run straight through."""
    from simcore.runner import EXIT_OK, run_job

    cfg = validate_run_config(example_config(spec))
    assert run_job(cfg, tmp_path / "straight.nc", progress=False) == EXIT_OK
    assert run_with_stops(cfg, tmp_path / "stopped.nc") >= 2
    assert_same_run_files(tmp_path / "straight.nc", tmp_path / "stopped.nc")


def test_threads_do_not_change_the_run_file(spec: ModelSpec, tmp_path, plugin_env) -> None:
    """A CPU job that takes the campaign's threads (the spec says so for its example)
    writes the same run file on 1 and on 2 numba threads."""
    if not spec.uses_threads(validate_run_config(example_config(spec))):
        pytest.skip(f"a CPU job of {spec.name}'s example runs on one core")
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(example_config(spec)))
    for threads in (1, 2):
        env = {**plugin_env, "NUMBA_NUM_THREADS": str(threads)}
        proc = run_simcore("run", path, "--out", tmp_path / f"t{threads}.nc", "--quiet", env=env)
        assert proc.returncode == 0, proc.stderr
    assert_same_run_files(tmp_path / "t1.nc", tmp_path / "t2.nc")


def campaign(spec: ModelSpec, **extra) -> dict:
    """A campaign of one entry, the spec's example split into two jobs."""
    point = {k: v for k, v in spec.example.items() if k not in ("samples", "t_max")}
    samples = int(spec.example["samples"])
    return {"campaign": f"c_{spec.name}", "seed": 3, "model": spec.name,
            "t_max": spec.example["t_max"], "samples": 2 * samples, "samples_per_job": samples,
            "points": [point], **extra}  # fmt: skip


def snakemake(workdir: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
         "--directory", str(workdir), *args],
        cwd=workdir, capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def test_campaign_dry_run(spec: ModelSpec, tmp_path, plugin_env) -> None:
    """A campaign of the model plans its jobs, one analysis and its figures."""
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(campaign(spec)))
    camp = load_campaign(conf)
    assert camp.model == spec.name and len(camp.points) == 1 and camp.points[0].n_blocks == 2
    out = snakemake(tmp_path, plugin_env, "-n", "--cores", "1", "--configfile", str(conf))
    text = out.stdout + out.stderr
    figures = spec.campaign_figures([camp.points[0].settings])
    for rule, count in (("simulate", 2), ("aggregate", 1), ("analyze", 1),
                        ("figure", len(figures))):  # fmt: skip
        assert re.search(rf"^{rule}\s+{count}$", text, re.M), (rule, text[-2000:])
    for name in figures:
        assert f"figures/{name}.png" in text


def test_plugin_campaign_to_its_figure_and_physics(tmp_path, plugin_env) -> None:
    """The plug-in through a whole Snakemake campaign: runs, dataset, analysis, figure;
    its mean W^2 agrees with the exact t (1 - 1/L) within 4 jackknife errors (40 samples:
    a failure by chance has probability ~1e-4 per time, 10 times here)."""
    spec = registry.get("rd1d")
    cfg = campaign(spec, samples=40, samples_per_job=20)
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, plugin_env, "--cores", "2", "--configfile", str(conf))
    res = tmp_path / "results" / "c_rd1d"
    assert (res / "figures" / "W2.png").stat().st_size > 0
    with xr.open_dataset(res / "analysis" / "rd1d_L32_cpu.nc") as an:
        t = an["t"].values
        keep = t > 0
        dev = np.abs(an["W2_mean"].values - t * (1 - 1 / 32))[keep]
        assert np.all(dev <= 4 * an["W2_err"].values[keep])
    status = run_simcore("status", res, "--config", conf, env=plugin_env)
    assert status.returncode == 0 and "rd1d_L32_cpu" in status.stdout and "40/40" in status.stdout


def test_benchmark_job_has_the_machine_to_itself(tmp_path, plugin_env) -> None:
    """A benchmark job takes every core (--cores 2), so no other job runs while it does,
    although it and the simulate jobs are all ready at the start (it has no inputs); its
    table draws the comparison figure.  The plug-in's bench kernel keeps this cheap."""
    spec = registry.get("rd1d")
    cfg = campaign(
        spec,
        samples=16,
        samples_per_job=2,
        paper_figures=["rd1d_speed"],
        benchmarks=[f"rd1d --L {L} --mcs 2 --repeats 2" for L in (64, 256)],
    )
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(cfg))
    dry = snakemake(tmp_path, plugin_env, "-n", "--cores", "2", "--configfile", str(conf))
    block = dry.stdout.split("rule benchmark:", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"^\s+threads: 2$", block, re.M), block
    proc = snakemake(tmp_path, plugin_env, "--cores", "2", "--configfile", str(conf))
    running: dict[str, str] = {}  # jobid -> rule, in the order Snakemake logs them
    alone = None  # whether the benchmark ran alone; None until it started
    rule = None
    for line in (proc.stdout + proc.stderr).splitlines():
        if m := re.match(r"(?:local)?rule (\w+):$", line.strip()):
            rule = m.group(1)
        elif (m := re.match(r"jobid: (\d+)$", line.strip())) and rule:
            if rule == "benchmark":
                alone = not running
            elif "benchmark" in running.values():
                alone = False
            running[m.group(1)] = rule
            rule = None
        elif m := re.match(r"Finished jobid: (\d+)", line.strip()):
            running.pop(m.group(1))
    assert alone is True, proc.stderr[-3000:]
    res = tmp_path / "results" / "c_rd1d"
    assert len((res / "bench" / "rd1d.csv").read_text().splitlines()) == 1 + 2 * 2
    assert (res / "figures" / "paper_rd1d_speed.png").stat().st_size > 0


def test_plugin_bench(tmp_path, plugin_env) -> None:
    """`simcore bench rd1d` is there with only its own options, and writes its table."""
    helptext = run_simcore("bench", "rd1d", "--help", env=plugin_env)
    assert (
        helptext.returncode == 0 and "--L" in helptext.stdout and "--scheme" not in helptext.stdout
    )
    proc = run_simcore("bench", "rd1d", "--L", "64", "--mcs", "2", "--csv", tmp_path / "b.csv",
                       env=plugin_env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "deposits/ns" in proc.stdout
    assert (tmp_path / "b.csv").read_text().startswith("L,deposits_per_ns,commit")


def test_stream_tags_are_distinct_and_the_cuda_sources_use_them() -> None:
    """One table of Philox stream tags: no tag twice, each in a byte, and no CUDA source
    defines a tag of its own (they get the table's as -DSTREAM_<NAME>)."""
    tags = list(STREAMS.values())
    assert len(set(tags)) == len(tags) and all(0 < t < 0x80 for t in tags)
    for source in (ROOT / "simcore").rglob("cuda/*.cu*"):
        text = source.read_text()
        assert not re.search(r"#define\s+STREAM_", text), source
        assert not re.search(r"0x[0-9a-fA-F]+u?\s*<<\s*24", text), source
        for name in re.findall(r"\bSTREAM_([A-Z_]+)\b", text):
            assert name in STREAMS, (source, name)


def test_no_model_is_named_outside_the_models() -> None:
    """The engine, CLI, campaign, runner, status, the workflow and the shared analysis
    (aggregation, the analysis, figure and paper CLIs and their helpers) contain no
    dispatch on a model's name: models are looked up in the registry."""
    names = "|".join(registry.names())
    pattern = re.compile(rf"""(==|!=|\bin\b)\s*\(?\s*["']({names})["']|["']({names})["']\s*:""")
    models = ROOT / "simcore" / "models"
    places = [*(ROOT / "simcore").glob("*.py"), *(ROOT / "simcore" / "campaign").glob("*.py"),
              *(ROOT / "simcore" / "io").glob("*.py"), *models.glob("*.py"),
              ROOT / "Snakefile", *(ROOT / "workflow").rglob("*.smk"),
              *(ROOT / "workflow").rglob("*.py"),
              *(ROOT / "analysis" / f"{m}.py" for m in SHARED_ANALYSIS)]  # fmt: skip
    assert all(p.exists() for p in places)
    for path in places:
        for i, line in enumerate(path.read_text().splitlines(), 1):
            assert not pattern.search(line), f"{path.relative_to(ROOT)}:{i}: {line.strip()}"
