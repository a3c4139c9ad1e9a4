"""The model contract as tests that a model's own test suite runs on its model.

Every model, simcore's own or a plug-in's, must behave the same towards the engine: its
example config validates and round-trips, bad input is one line and exit status 2, its
run file has the common layout and provenance, a stopped job resumes bit for bit, threads
do not change a run, and a campaign of it plans and dry-runs.  A model package checks
this in its own tests by subclassing :class:`ModelContract` with its model's name, as a
pandas extension array subclasses pandas' base tests::

    # tests/test_contract.py of the plug-in
    from simcore.testing import ModelContract


    class TestMyModel(ModelContract):
        model = "mymodel"

``pytest`` then runs each ``test_*`` method of the contract on ``mymodel``, found in the
registry as simcore finds it (install the package first: ``pip install -e .``).  A
subclass may override the fixtures ``spec`` (the spec under test: simcore's own suite
parametrizes it over its models) and ``env`` (the environment of the ``simcore``
subprocesses), and the attribute ``snakefile`` (the campaign dry run's Snakefile; by
default simcore's, where simcore runs from its source tree, else that test is skipped).

The helpers the contract is made of are public, and simcore's own tests use these same
functions: :func:`run_simcore` (the ``simcore`` command as a user runs it),
:func:`run_with_stops` (a job stopped after every step and resumed),
:func:`assert_same_run_files`, :func:`example_config`, :func:`campaign_config`,
:func:`run_snakemake` and :func:`simcore_models` (simcore's own models, not those of
other installed packages).

This module imports pytest, a test dependency of simcore and not a runtime one: only test
suites import this module, and no other module of simcore does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import xarray as xr
import yaml

from simcore.campaign import NAME_PATTERN, CampaignError, job_config_yaml, load_campaign
from simcore.checks import ConfigError
from simcore.config import COMMON_KEYS, validate_run_config
from simcore.io.provenance import SIMCORE_DISTRIBUTION, model_provenance, normalized_name
from simcore.models import registry
from simcore.models.spec import BACKENDS, ModelSpec, Simulation

__all__ = [
    "ModelContract",
    "assert_same_run_files",
    "campaign_config",
    "example_config",
    "run_simcore",
    "run_snakemake",
    "run_with_stops",
    "simcore_models",
    "simcore_snakefile",
]

#: The global attributes every run file has, whatever its model.
RUN_FILE_ATTRIBUTES = ("Conventions", "title", "history", "run_segments", "model", "seed",
                       "t_max", "simcore_version", "git_commit", "backend", "device",
                       "hostname", "created", "wall_seconds", "model_distribution",
                       "model_version", "model_commit", "config", "config_hash",
                       "point_config_hash", "point_config_keys")  # fmt: skip


def simcore_models() -> tuple[str, ...]:
    """The models simcore itself ships: those whose entry point belongs to the simcore
    distribution, in name order.  A model of another installed package, or one registered
    in-process, is not among them, so tests that walk simcore's models pass whatever else
    is installed."""
    own = []
    for name in registry.names():
        dist = registry.distribution(name)
        if dist is not None and normalized_name(dist.metadata["Name"] or "") == (
            SIMCORE_DISTRIBUTION
        ):
            own.append(name)
    return tuple(own)


def example_config(spec: ModelSpec, **overrides: Any) -> dict[str, Any]:
    """The spec's example run config with ``model`` and a seed (``overrides`` add keys or
    replace them)."""
    return {"model": spec.name, **spec.example, "seed": 77, **overrides}


def campaign_config(spec: ModelSpec, **extra: Any) -> dict[str, Any]:
    """A campaign of one entry: the spec's example as one point of two jobs (``extra``
    adds campaign keys or replaces them)."""
    point = {k: v for k, v in spec.example.items() if k not in ("samples", "t_max")}
    samples = int(spec.example["samples"])
    return {"campaign": f"c_{spec.name}", "seed": 3, "model": spec.name,
            "t_max": spec.example["t_max"], "samples": 2 * samples, "samples_per_job": samples,
            "points": [point], **extra}  # fmt: skip


def run_simcore(
    *args: str | os.PathLike[str], env: dict[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """Run the ``simcore`` command of this interpreter (as a user would) and capture its
    output (``env``: the environment, default this process's; ``kwargs`` go to
    :func:`subprocess.run`)."""
    env = {**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "-m", "simcore.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        **kwargs,
    )


def run_with_stops(cfg: dict[str, Any], out: Path) -> int:
    """Run a job that stops after every step (``max_wall=0``), resuming from its
    checkpoint each time, until it finishes; returns the number of stops.  While stopped,
    only the checkpoint exists, never the output."""
    from simcore.io.checkpoint import checkpoint_path
    from simcore.runner import EXIT_CHECKPOINTED, EXIT_OK, run_job

    stops = 0
    while (status := run_job(cfg, out, max_wall=0.0, progress=False)) == EXIT_CHECKPOINTED:
        stops += 1
        assert not out.exists() and checkpoint_path(out).exists()
    assert status == EXIT_OK and not checkpoint_path(out).exists()
    return stops


def assert_same_run_files(a: Path, b: Path) -> None:
    """Every variable of two run files equal, except the wall-clock times."""
    da, db = xr.load_dataset(a), xr.load_dataset(b)
    assert set(da.data_vars) == set(db.data_vars)
    for name in da.variables:
        if name != "wall_time":
            np.testing.assert_array_equal(da[name].values, db[name].values, err_msg=name)


def simcore_snakefile() -> Path | None:
    """simcore's Snakefile where simcore runs from its source tree (a checkout, or an
    editable install of one); None where simcore is installed without it."""
    import simcore

    path = Path(simcore.__file__).resolve().parents[1] / "Snakefile"
    return path if path.is_file() else None


def run_snakemake(
    snakefile: Path, workdir: Path, env: dict[str, str] | None, *args: str
) -> subprocess.CompletedProcess[str]:
    """Run Snakemake on ``snakefile`` in ``workdir`` with ``args``; asserts it succeeds
    (the message holds the ends of its output) and returns the finished process."""
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(snakefile),
         "--directory", str(workdir), *args],
        cwd=workdir, capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def _one_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused command wrote to stderr (asserts there is exactly one)."""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


class ModelContract:
    """The model contract as pytest tests: subclass it (as ``Test<Model>``) with ``model``
    set to the model's name, and pytest runs every ``test_*`` method on that model.

    The class is not named ``Test...``, so pytest never collects it by itself.
    """

    #: The name of the model under test (its ``model:`` value).
    model: ClassVar[str] = ""
    #: The Snakefile of the campaign dry run; None: simcore's (:func:`simcore_snakefile`).
    snakefile: ClassVar[str | os.PathLike[str] | None] = None

    @pytest.fixture
    def spec(self) -> ModelSpec:
        """The spec of :attr:`model`, from the registry (as simcore finds it)."""
        if not self.model:
            pytest.fail(f"{type(self).__name__} sets no model = '<name>'", pytrace=False)
        return registry.get(self.model)

    @pytest.fixture
    def env(self) -> dict[str, str]:
        """The environment of the ``simcore`` and ``snakemake`` subprocesses."""
        return dict(os.environ)

    def test_config_round_trip(self, spec: ModelSpec) -> None:
        """The example validates; validating its result again changes nothing, also
        through YAML; it has only common and model keys; its point name is a file name
        starting with the model's; the spec gives a Simulation for it, and a job that
        keeps a spec (``self.spec``) keeps the one that built it."""
        cfg = validate_run_config(example_config(spec))
        assert validate_run_config(dict(cfg)) == cfg
        assert validate_run_config(yaml.safe_load(yaml.safe_dump(cfg))) == cfg
        assert set(cfg) <= set(COMMON_KEYS) | set(spec.keys)
        name = spec.point_name(cfg)
        assert re.fullmatch(NAME_PATTERN, name) and name.startswith(spec.name)
        sim = spec.simulation(cfg)
        assert isinstance(sim, Simulation)
        assert getattr(sim, "spec", spec) is spec

    def test_models_lists_its_backends_and_keys(self, spec: ModelSpec, capsys) -> None:
        """``simcore models`` lists the model with the backends it declares;
        ``simcore models NAME`` says them, where the model comes from, and every key,
        ``backend`` offering only the declared backends."""
        from simcore.cli import main

        assert set(spec.backends) <= set(BACKENDS) and spec.backends
        backends = ", ".join(spec.backends)
        assert main(["models"]) == 0
        listing = capsys.readouterr().out
        assert re.search(rf"^{re.escape(spec.name)}\s.*\(backends: {backends};", listing, re.M)
        assert main(["models", spec.name]) == 0
        text = capsys.readouterr().out
        assert f"\nbackends: {backends}\n" in text
        origin = model_provenance(registry.distribution(spec.name))
        source = re.escape(origin["model_distribution"])
        assert re.search(rf"^from: {source}( |$)", text, re.M), text
        for key in [*COMMON_KEYS, *spec.keys]:
            assert re.search(rf"^  {re.escape(key)}\s", text, re.M), key
        (backend,) = re.findall(r"^  backend\s.*$", text, re.M)
        assert backend.endswith(f"({backends})"), backend

    def test_bad_input_exits_2_and_writes_nothing(
        self, spec: ModelSpec, tmp_path: Path, env: dict[str, str]
    ) -> None:
        """An unknown key (with the closest known one), a missing required key (of the
        model's, else ``seed``), a model that does not exist and each backend the model
        does not declare (refused before any GPU is looked for): one line each naming key
        and value, exit status 2, nothing at --out."""
        required = next((k for k, key in spec.keys.items() if key.required and key.applies is None),
                        "seed")  # fmt: skip
        cases = {
            "typo": ({**example_config(spec), "samplez": 3}, "samplez", "did you mean 'samples'"),
            "missing": (
                {k: v for k, v in example_config(spec).items() if k != required},
                f"'{required}'",
                "missing",
            ),
            "model": (
                example_config(spec, model="no_such_model"),
                "no_such_model",
                "unknown model",
            ),
        }
        declared = " and ".join(spec.backends)
        for other in (b for b in BACKENDS if b not in spec.backends):
            cases[f"backend_{other}"] = (
                example_config(spec, backend=other),
                f"'backend' = '{other}'",
                f"model {spec.name} runs on {declared} only",
            )
        for case, (cfg, what, why) in cases.items():
            path = tmp_path / f"{case}.yaml"
            path.write_text(yaml.safe_dump(cfg))
            out = tmp_path / f"{case}.nc"
            proc = run_simcore("run", path, "--out", out, env=env)
            assert proc.returncode == 2, (case, proc.stderr)
            line = _one_line(proc)
            assert what in line and why in line, (case, line)
            assert "cupy" not in line.lower(), (case, line)
            assert not any(tmp_path.glob(f"{case}.nc*")), case

    def test_run_file_layout(self, spec: ModelSpec, tmp_path: Path, env: dict[str, str]) -> None:
        """dims sample and t; units and a long name on every variable; the provenance,
        the model's distribution and version (simcore's version and commit for simcore's
        own models) and the point's keys in the global attributes."""
        path = tmp_path / "job.yaml"
        path.write_text(yaml.safe_dump(example_config(spec)))
        proc = run_simcore("run", path, "--out", tmp_path / "run.nc", "--quiet", env=env)
        assert proc.returncode == 0, proc.stderr
        cfg = validate_run_config(example_config(spec))
        with xr.open_dataset(tmp_path / "run.nc") as ds:
            assert {"sample", "t"} <= set(ds.dims)
            assert ds.sizes["sample"] == cfg["samples"]
            np.testing.assert_array_equal(ds["sample"].values, np.arange(cfg["samples"]))
            for name, var in ds.variables.items():
                assert "units" in var.attrs, name
                assert "long_name" in var.attrs, name
            for key in RUN_FILE_ATTRIBUTES:
                assert key in ds.attrs, key
            assert ds.attrs["model"] == spec.name
            origin = model_provenance(registry.distribution(spec.name))
            for key in ("model_distribution", "model_version"):
                assert ds.attrs[key] == origin[key], key
            if normalized_name(origin["model_distribution"]) == SIMCORE_DISTRIBUTION:
                assert ds.attrs["model_version"] == ds.attrs["simcore_version"]
                assert ds.attrs["model_commit"] == ds.attrs["git_commit"]
            shared = ds.attrs["point_config_keys"].split()
            assert set(spec.point_keys) & set(cfg) <= set(shared)
            assert yaml.safe_load(ds.attrs["config"]) == cfg

    def test_resume_is_bit_identical(self, spec: ModelSpec, tmp_path: Path) -> None:
        """Stopped after every sampling time and resumed from the checkpoint each time, a
        job writes the same file as when run straight through."""
        from simcore.runner import EXIT_OK, run_job

        cfg = validate_run_config(example_config(spec))
        assert run_job(cfg, tmp_path / "straight.nc", progress=False) == EXIT_OK
        assert run_with_stops(cfg, tmp_path / "stopped.nc") >= 2
        assert_same_run_files(tmp_path / "straight.nc", tmp_path / "stopped.nc")

    def test_threads_do_not_change_the_run_file(
        self, spec: ModelSpec, tmp_path: Path, env: dict[str, str]
    ) -> None:
        """A CPU job that takes the campaign's threads (the spec says so for its example)
        writes the same run file on 1 and on 2 numba threads."""
        if not spec.uses_threads(validate_run_config(example_config(spec))):
            pytest.skip(f"a CPU job of {spec.name}'s example runs on one core")
        path = tmp_path / "job.yaml"
        path.write_text(yaml.safe_dump(example_config(spec)))
        for threads in (1, 2):
            out = tmp_path / f"t{threads}.nc"
            proc = run_simcore("run", path, "--out", out, "--quiet",
                               env={**env, "NUMBA_NUM_THREADS": str(threads)})  # fmt: skip
            assert proc.returncode == 0, proc.stderr
        assert_same_run_files(tmp_path / "t1.nc", tmp_path / "t2.nc")

    def test_campaign_plan(self, spec: ModelSpec, tmp_path: Path) -> None:
        """A campaign of the example plans one point of two jobs: each job file's text
        reads back as its run config, which validates unchanged and names the point; its
        resources are positive; the figures are the spec's.  The same campaign on a
        backend the model does not declare is refused in one line naming the backend."""
        conf = tmp_path / "c.yaml"
        conf.write_text(yaml.safe_dump(campaign_config(spec)))
        camp = load_campaign(conf)
        assert camp.model == spec.name and len(camp.points) == 1
        (point,) = camp.points
        assert point.n_blocks == 2
        for name, block in camp.jobs():
            job = camp.job_config(name, block)
            assert yaml.safe_load(job_config_yaml(job)) == job
            cfg = validate_run_config(dict(job))
            assert {k: cfg[k] for k in job} == job
            assert spec.point_name(cfg) == name
            resources = camp.job_resources(name, block)
            assert resources["runtime"] >= 1 and resources["mem_mb"] >= 1, resources
        assert camp.figure_names == list(spec.campaign_figures([point.settings]))
        for other in (b for b in BACKENDS if b not in spec.backends):
            conf.write_text(yaml.safe_dump(campaign_config(spec, backend=other)))
            with pytest.raises((CampaignError, ConfigError)) as refused:
                load_campaign(conf)
            message = str(refused.value)
            assert "backend" in message and repr(other) in message, message
            assert len(message.splitlines()) == 1, message

    def test_campaign_dry_run(self, spec: ModelSpec, tmp_path: Path, env: dict[str, str]) -> None:
        """Snakemake's dry run of a campaign of the model plans its two simulate jobs, one
        aggregation, one analysis and its figures (skipped where no Snakefile is at hand:
        simcore installed without its source tree and ``snakefile`` not set)."""
        snakefile = Path(self.snakefile) if self.snakefile else simcore_snakefile()
        if snakefile is None:
            pytest.skip("no Snakefile: simcore runs from no source tree and snakefile is unset")
        conf = tmp_path / "c.yaml"
        conf.write_text(yaml.safe_dump(campaign_config(spec)))
        camp = load_campaign(conf)
        out = run_snakemake(snakefile, tmp_path, env, "-n", "--cores", "1",
                            "--configfile", str(conf))  # fmt: skip
        text = out.stdout + out.stderr
        figures = camp.figures
        for rule, count in (("simulate", 2), ("aggregate", 1), ("analyze", 1),
                            ("figure", len(figures))):  # fmt: skip
            assert re.search(rf"^{rule}\s+{count}$", text, re.M), (rule, text[-2000:])
        for name in figures:
            assert f"figures/{name}.png" in text
