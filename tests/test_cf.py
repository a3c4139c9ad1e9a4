"""The files simcore writes follow the CF conventions: the IOOS compliance checker's CF test
(the version of :data:`simcore.io.dataset.CONVENTIONS`) finds no error in a run file, a
dataset and an analysis file of every registered model and of the plug-in (the contract
tests' models and example configs, so a new model is covered without a line here), and
the global attributes of a run file say what its config says, numbers as numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

# The contract tests' models (the registry's and the plug-in), their example configs and
# the installed plug-in: a model added to the registry is checked here too.
from test_models import example_config, plugin_env, spec  # noqa: F401

from simcore.config import validate_run_config
from simcore.io.dataset import CONVENTIONS, run_attributes
from simcore.models import registry

#: The compliance checker's CF test, the version the files declare.
CHECKER = "cf:" + CONVENTIONS.removeprefix("CF-")
KINDS = ("run", "dataset", "analysis")
#: Which files still fail, and why (strict: the test says when one starts passing).


def cf_problems(path: Path) -> tuple[list[str], list[str]]:
    """(errors, warnings) of the compliance checker's CF test on one file; a check that
    raises counts as an error.  Skips the test where compliance_checker is not installed."""
    runner = pytest.importorskip(
        "compliance_checker.runner", reason="compliance-checker is not installed"
    )
    suite = runner.CheckSuite()
    suite.load_all_available_checkers()
    ds = suite.load_dataset(str(path))
    try:
        groups = suite.run_all(ds, [CHECKER])
    finally:
        ds.close()
    assert CHECKER in groups, f"the compliance checker has no {CHECKER} test"
    results, raised = groups[CHECKER]
    found: dict[int, list[str]] = {3: [], 2: [], 1: []}
    for result in results:
        value = result.value
        failed = (not value) if isinstance(value, bool) else value[0] < value[1]
        if failed:
            found[result.weight].extend(result.msgs or [str(result.name)])
    errors = found[3] + [f"check {name} raised {exc!r}" for name, (exc, _) in raised.items()]
    return errors, found[2]


def make_files(model, folder: Path) -> dict[str, Path]:
    """A run file (the first of two jobs of the model spec's example), the dataset of both
    and its analysis, written by the pipeline's own entry points."""
    from analysis import aggregate, analyze
    from simcore.runner import EXIT_OK, run_job

    n = int(model.example["samples"])
    runs = []
    for block in range(2):
        cfg = validate_run_config(example_config(
            model, seed=77 + block, block=block, sample_offset=block * n, campaign="cf",
            point=f"{model.name}_example",
        ))  # fmt: skip
        runs.append(folder / f"b{block}.nc")
        assert run_job(cfg, runs[-1], progress=False) == EXIT_OK
    files = {"run": runs[0], "dataset": folder / "dataset.nc", "analysis": folder / "analysis.nc"}
    assert aggregate.main(["--out", str(files["dataset"]), *map(str, runs)]) == 0
    assert analyze.main([str(files["dataset"]), "--out", str(files["analysis"])]) == 0
    return files


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    """The files of each model, made once per model for the three kinds."""
    made: dict[str, dict[str, Path]] = {}

    def files_of(model_spec) -> dict[str, Path]:
        if model_spec.name not in made:
            made[model_spec.name] = make_files(model_spec, tmp_path_factory.mktemp(model_spec.name))
        return made[model_spec.name]

    return files_of


@pytest.mark.parametrize("kind", KINDS)
def test_files_pass_the_cf_checker(spec, kind: str, model_files) -> None:  # noqa: F811
    """No error of the CF test; its warnings are printed (-s or -rP shows them)."""
    pytest.importorskip("compliance_checker", reason="compliance-checker is not installed")
    path = model_files(spec)[kind]
    errors, warnings = cf_problems(path)
    for message in warnings:
        print(f"{spec.name} {kind}: CF warning: {message}")
    assert not errors, f"{spec.name} {kind} file: " + "; ".join(errors)


def test_run_attributes_say_what_the_config_says() -> None:
    """Numbers stay numbers (the seed an unsigned 64-bit integer, pairs integer arrays), a
    key left to a computed default (kpz's border) has no attribute, the title names the
    same values, and keys that do not apply to a run (kpz's DD keys for sequential) are
    absent; the point's keys and hash are those of the config."""
    prov = {"simcore_version": "0", "created": "2025-01-01T00:00:00+00:00"}
    spec_ = registry.get("kpz")
    dd = validate_run_config(example_config(spec_, seed=2**64 - 1))
    a = run_attributes(dd, spec_, prov, 1.0)
    assert a["Conventions"] == CONVENTIONS and a["history"].startswith(prov["created"])
    assert a["seed"] == 2**64 - 1 and a["seed"].dtype == np.uint64
    assert a["L"] == 16 and isinstance(a["L"], int) and a["p"] == 1.0
    assert a["domain"].dtype == np.int64 and a["domain"].tolist() == [8, 8]
    assert dd["border"] is None and "border" not in a and "border" not in a["title"]
    assert "border" in a["point_config_keys"].split()  # a key of the point, left to default
    for key in ("L", "scheme", "domain", "t_async"):
        assert f"{key}={a[key].tolist() if key == 'domain' else a[key]}" in a["title"]
    assert "institution" not in a or a["institution"]
    raw = {k: v for k, v in example_config(spec_, scheme="sequential").items() if k != "domain"}
    sequential = validate_run_config(raw)
    b = run_attributes(sequential, spec_, prov, 1.0)
    assert not {"tc", "domain", "t_async", "border"} & (set(b) | set(sequential))
    assert yaml.safe_load(b["config"]) == sequential
