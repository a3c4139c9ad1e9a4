"""The model interface, tested once for every model simcore ships and for a model that
lives outside simcore (tests/plugins/rd1d, installed here with pip, registered by its
entry point alone): the model contract of ``simcore.testing`` (run-config round trip,
bad input, the backends a model declares, the run file's layout and provenance, resume
bit for bit, threads, a campaign's plan and dry run) on each; the plug-in through its
own test suite (that same contract), simcore run, a campaign to its figure, the analysis
and simcore bench; and simcore's own tests with a third-party model installed."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml

from simcore.checks import ConfigError
from simcore.config import validate_run_config
from simcore.io.provenance import (
    IN_PROCESS,
    git_commit,
    git_commit_of,
    installed_commit,
    model_provenance,
)
from simcore.models import registry
from simcore.models.spec import ModelSpec
from simcore.rng.streams import STREAMS
from simcore.runner import run_provenance
from simcore.testing import (
    ModelContract,
    campaign_config,
    example_config,
    run_simcore,
    run_snakemake,
    simcore_models,
)

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "plugins" / "rd1d"
SNAKEFILE = ROOT / "Snakefile"
#: The analysis modules that serve every model (the others are a model's or a paper's).
SHARED_ANALYSIS = ("aggregate", "analyze", "figures", "papers", "dispatch", "plotting",
                   "stats", "estimates", "tables", "table_cli", "literature")  # fmt: skip
#: The models simcore ships (the registry's models whose entry point is simcore's: those
#: of other installed packages are not walked) and the plug-in, which plugin_env installs.
MODELS = [*simcore_models(), "rd1d"]


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory) -> dict[str, str]:
    """The rd1d package pip-installed into a folder of its own (a real install: its
    dist-info carries the entry point), that folder on sys.path and on PYTHONPATH for the
    subprocesses; removed again after this module.  Built from a copy of its source, so
    the build leaves nothing in this tree."""
    source = tmp_path_factory.mktemp("rd1d") / "rd1d"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", "tests"))  # fmt: skip
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(source)],
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
    """Each of simcore's models' specs, and the plug-in's (tests/test_cf.py walks them)."""
    return registry.get(request.param)


class TestEveryModel(ModelContract):
    """The model contract (``simcore.testing.ModelContract``, which plug-ins run on their
    own models) on each of simcore's models and on the installed plug-in."""

    @pytest.fixture(params=MODELS)
    def spec(self, request, plugin_env) -> ModelSpec:
        """Each of simcore's models' specs, and the plug-in's."""
        return registry.get(request.param)

    @pytest.fixture
    def env(self, plugin_env) -> dict[str, str]:
        """Subprocesses see the installed plug-in."""
        return plugin_env


def test_the_plugin_is_found_by_its_entry_point(plugin_env) -> None:
    """rd1d is known by name once installed, without registering it in code, and is no
    model of simcore's; the shipped models are registered by simcore's entry points, and
    `simcore models` lists the plug-in as CPU-only."""
    assert "rd1d" in registry.names()
    assert registry.get("rd1d").analysis == "rd1d.analysis"
    assert set(simcore_models()) >= {"kpz", "ea3d", "ea3d_pt", "kmc2d", "fcc"}
    assert "rd1d" not in simcore_models()
    proc = run_simcore("models", env=plugin_env)
    assert proc.returncode == 0
    assert re.search(r"^rd1d\s.*\(backends: cpu;", proc.stdout, re.M), proc.stdout
    assert re.search(r"^kpz\s.*\(backends: cpu, gpu;", proc.stdout, re.M), proc.stdout


def test_the_plugin_passes_its_own_test_suite(plugin_env, tmp_path) -> None:
    """rd1d's own tests (tests/plugins/rd1d/tests: simcore.testing's contract on rd1d), run
    by pytest as a plug-in author runs them, with the plug-in installed, all pass; only
    the threads test is skipped (rd1d's job runs on one core): simcore's Snakefile is at
    hand, so the campaign dry run runs too."""
    env = {**plugin_env, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
         str(PLUGIN / "tests")],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    summary = out.strip().splitlines()[-1]
    contract = [n for n in dir(ModelContract) if n.startswith("test_")]
    assert re.search(rf"\b{len(contract) - 1} passed, 1 skipped\b", summary), out[-2000:]
    assert "SKIPPED" in out and "runs on one core" in out, out[-2000:]


def test_gpu_for_a_cpu_only_plugin_is_refused_in_one_line(plugin_env, tmp_path) -> None:
    """rd1d declares only the CPU: `backend: gpu` is refused by validation (one line
    naming the key, the value and rd1d's backends, exit status 2, no run file, nothing
    about CuPy or a GPU), and so is a campaign of it on the gpu."""
    cfg = example_config(registry.get("rd1d"), backend="gpu")
    with pytest.raises(ConfigError) as refused:
        validate_run_config(dict(cfg))
    assert (refused.value.key, refused.value.value) == ("backend", "gpu")
    path = tmp_path / "gpu.yaml"
    path.write_text(yaml.safe_dump(cfg))
    proc = run_simcore("run", path, "--out", tmp_path / "gpu.nc", env=plugin_env)
    assert proc.returncode == 2 and not list(tmp_path.glob("gpu.nc*")), proc.stderr
    assert proc.stderr.strip() == (
        "simcore: error: config key 'backend' = 'gpu': model rd1d runs on cpu only "
        "(the backends its spec declares)"
    )


def test_run_files_name_the_model_distribution(plugin_env, tmp_path) -> None:
    """A run file records the distribution that provides its model: simcore-rd1d 0.1.0
    for the plug-in (installed as a copy, so with no commit), simcore with its version
    and git commit for simcore's own models; a model registered in-process says it has no
    distribution."""
    from simcore.runner import EXIT_OK, run_job

    rd1d = registry.get("rd1d")
    cfg = validate_run_config(example_config(rd1d))
    assert run_job(cfg, tmp_path / "rd1d.nc", progress=False) == EXIT_OK
    with xr.open_dataset(tmp_path / "rd1d.nc") as ds:
        assert ds.attrs["model_distribution"] == "simcore-rd1d"
        assert ds.attrs["model_version"] == "0.1.0"
        assert ds.attrs["model_commit"] == ""
    kpz = registry.get("kpz")
    attrs = run_provenance(validate_run_config(example_config(kpz)), kpz, None)
    assert attrs["model_distribution"] == "simcore"
    assert attrs["model_version"] == metadata.version("simcore")
    assert attrs["model_commit"] == git_commit()

    class InProcess(type(rd1d)):
        name = "rd1d_in_process"

    registry.register(InProcess())
    try:
        assert registry.distribution("rd1d_in_process") is None
        copy = validate_run_config(example_config(InProcess()))
        attrs = run_provenance(copy, registry.get("rd1d_in_process"), None)
    finally:
        registry.unregister("rd1d_in_process")
    assert attrs["model_distribution"] == IN_PROCESS
    assert attrs["model_version"] == attrs["model_commit"] == ""


def _distribution(folder: Path, direct_url: dict | None) -> metadata.Distribution:
    """An installed distribution's metadata folder (name ``plug``, version 1.2) with the
    given direct_url.json (PEP 610), read by importlib.metadata as any other."""
    info = folder / "plug-1.2.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plug\nVersion: 1.2\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return metadata.PathDistribution(info)


def test_the_commit_comes_from_direct_url(tmp_path) -> None:
    """A plug-in installed from a VCS URL records the commit pip wrote to direct_url.json;
    one installed editable from a folder of a git checkout records that checkout's commit
    (of this tree here, as ``git_commit_of`` reads it); one installed from an index, an
    archive or a copy of a folder records none."""
    vcs = {
        "url": "https://example.org/plug.git",
        "vcs_info": {"vcs": "git", "commit_id": "0123456789abcdef0123456789abcdef01234567"},
    }
    editable = {"url": PLUGIN.as_uri(), "dir_info": {"editable": True}}
    cases = {
        "vcs": (vcs, "0123456789abcdef0123456789abcdef01234567"),
        "editable": (editable, git_commit_of(str(PLUGIN))),
        "folder": ({"url": PLUGIN.as_uri(), "dir_info": {}}, ""),
        "archive": ({"url": "https://example.org/plug-1.2.tar.gz", "archive_info": {}}, ""),
        "index": (None, ""),
    }  # fmt: skip
    for case, (direct_url, commit) in cases.items():
        dist = _distribution(tmp_path / case, direct_url)
        assert installed_commit(dist) == commit, case
        assert model_provenance(dist) == {"model_distribution": "plug", "model_version": "1.2",
                                          "model_commit": commit}, case  # fmt: skip
    if (ROOT / ".git").exists():
        assert git_commit_of(str(PLUGIN)).split("-")[0] == git_commit().split("-")[0]


def test_simcore_tests_pass_with_a_third_party_model_installed(plugin_env, tmp_path) -> None:
    """With a model of another package installed (rd1d on the path of a fresh pytest),
    simcore's tests that walk its models still walk exactly simcore's five (plus rd1d,
    which they install themselves) and pass: the contract's round trip, the grep for model
    names and the wheel's entry points against simcore's own."""
    env = {**plugin_env, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
         f"{ROOT / 'tests' / 'test_models.py'}::TestEveryModel::test_config_round_trip",
         f"{ROOT / 'tests' / 'test_models.py'}::test_no_model_is_named_outside_the_models",
         f"{ROOT / 'tests' / 'test_packaging.py'}"
         "::test_wheel_holds_the_package_data_and_entry_points"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert re.search(rf"\b{len(MODELS) + 2} passed\b", out.strip().splitlines()[-1]), out[-2000:]


def test_nothing_in_simcore_imports_the_tests() -> None:
    """pytest is a test dependency: only simcore.testing imports it, and no module of
    simcore or analysis imports simcore.testing."""
    uses = re.compile(r"^\s*(import pytest|from pytest\b|.*\bsimcore\.testing\b|"
                      r"from simcore import .*\btesting\b)", re.M)  # fmt: skip
    places = [*(ROOT / "simcore").rglob("*.py"), *(ROOT / "analysis").rglob("*.py")]
    found = [p.relative_to(ROOT).as_posix() for p in places
             if p.name != "testing.py" and uses.search(p.read_text())]  # fmt: skip
    assert not found


def test_a_spec_declares_known_backends() -> None:
    """The registry refuses a spec whose backends are not distinct known ones (a tuple of
    cpu and gpu): said when it is registered, not when a run asks for it."""
    for bad in ((), ("tpu",), ("cpu", "cpu"), ["cpu"]):

        class Bad(type(registry.get("kpz"))):
            name = "bad_backends"
            backends = bad

        with pytest.raises(registry.RegistryError, match="declares backends"):
            registry.register(Bad())
        assert "bad_backends" not in registry.names()


def test_plugin_campaign_to_its_figure_and_physics(tmp_path, plugin_env) -> None:
    """The plug-in through a whole Snakemake campaign: runs, dataset, analysis, figure;
    its mean W^2 agrees with the exact t (1 - 1/L) within 4 jackknife errors (40 samples:
    a failure by chance has probability ~1e-4 per time, 10 times here)."""
    spec = registry.get("rd1d")
    cfg = campaign_config(spec, samples=40, samples_per_job=20)
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(cfg))
    run_snakemake(SNAKEFILE, tmp_path, plugin_env, "--cores", "2", "--configfile", str(conf))
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
    cfg = campaign_config(
        spec,
        samples=16,
        samples_per_job=2,
        paper_figures=["rd1d_speed"],
        benchmarks=[f"rd1d --L {L} --mcs 2 --repeats 2" for L in (64, 256)],
    )
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(cfg))
    dry = run_snakemake(
        SNAKEFILE, tmp_path, plugin_env, "-n", "--cores", "2", "--configfile", str(conf)
    )
    block = dry.stdout.split("rule benchmark:", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"^\s+threads: 2$", block, re.M), block
    proc = run_snakemake(SNAKEFILE, tmp_path, plugin_env, "--cores", "2", "--configfile", str(conf))
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
    names = "|".join(simcore_models())
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


def _model_analysis_modules() -> set[str]:
    """The modules of analysis/ that belong to a model (by the registry: each of simcore's
    models' analysis module and the modules of its paper figures) and their parts, named
    after them (``kpz_figures`` of ``kpz``, ``kelling2017_corr`` of ``kelling2017``)."""
    owners = set()
    for name in simcore_models():
        spec = registry.get(name)
        owners |= {spec.analysis, *(fig.draw.partition(":")[0] for fig in spec.paper_figures)}
    stems = {m.removeprefix("analysis.") for m in owners if m.startswith("analysis.")}
    files = {p.stem for p in (ROOT / "analysis").glob("*.py")}
    assert stems <= files, sorted(stems - files)
    return {f for f in files if any(f == s or f.startswith(f"{s}_") for s in stems)}


def _imported_analysis_modules(path: Path) -> set[str]:
    """The modules of analysis/ that ``path`` imports (anywhere in it, nested imports too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "analysis":
            found |= {f"analysis.{a.name}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return {m.split(".")[1] for m in found if m.startswith("analysis.")}


def test_shared_analysis_imports_no_model() -> None:
    """A shared analysis module (neither a model's analysis module nor a paper module of a
    model, nor a part of one: see :func:`_model_analysis_modules`) imports none of them:
    the shared analysis knows no model, so a model registered by another package is
    analysed the same way."""
    owned = _model_analysis_modules()
    shared = sorted(p for p in (ROOT / "analysis").glob("*.py") if p.stem not in owned)
    assert set(SHARED_ANALYSIS) <= {p.stem for p in shared}, owned & set(SHARED_ANALYSIS)
    assert {"kpz", "ea3d", "kelling2017"} <= owned  # the registry was read
    for path in shared:
        bad = sorted(_imported_analysis_modules(path) & owned)
        assert not bad, f"{path.relative_to(ROOT)} imports model analysis module(s) {bad}"
