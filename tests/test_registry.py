"""How a spec builds its jobs and how the registry finds specs: every job gets the spec
that builds it (no job looks its model up by name), the CPU/GPU choice is the spec's
``jobs`` table (imported only when a job is built) or the spec's own override, the
registry refuses a spec that leaves a declared backend without a job, and two installed
distributions that register the same model name are warned about, naming both and the
one used."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import xarray as xr

from simcore.config import validate_run_config
from simcore.models import make_simulation, registry
from simcore.models.registry import DuplicateModelWarning, RegistryError
from simcore.runner import EXIT_OK, run_job
from simcore.testing import example_config, simcore_models

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", simcore_models())
def test_a_job_keeps_the_spec_that_built_it(name: str) -> None:
    """The spec's CPU job, built through the spec or make_simulation, holds that spec."""
    spec = registry.get(name)
    cfg = validate_run_config(example_config(spec))
    assert spec.simulation(cfg).spec is spec
    assert make_simulation(cfg).spec is spec
    assert make_simulation(cfg, spec).spec is spec
    assert set(spec.jobs) == set(spec.backends)


def test_a_subclass_spec_gives_its_jobs_its_own_units(tmp_path: Path) -> None:
    """A spec registered in-process under another name (here kpz's, with its own time
    unit) builds kpz's job, which writes and describes times in the new spec's unit:
    the job asks its spec, not the registry's entry for ``kpz``."""

    class Ticks(type(registry.get("kpz"))):
        name = "kpz_in_ticks"
        time_unit = "ticks"

    spec = Ticks()
    registry.register(spec)
    try:
        cfg = validate_run_config(example_config(spec))
        sim = spec.simulation(cfg)
        assert sim.spec is spec
        assert sim.describe(sim.initial_state()).endswith(" ticks")
        assert run_job(cfg, tmp_path / "ticks.nc", progress=False) == EXIT_OK
        with xr.open_dataset(tmp_path / "ticks.nc") as ds:
            assert ds["t"].attrs["model_units"] == "ticks"
            assert ds["s"].attrs["model_units"] == "ticks"
            assert ds.attrs["model"] == "kpz_in_ticks"
    finally:
        registry.unregister("kpz_in_ticks")


def test_a_spec_names_a_job_for_each_backend() -> None:
    """A spec that relies on the default switch must name a job for every backend it
    declares (said at registration); one that builds its jobs itself need not."""
    kpz = type(registry.get("kpz"))

    class NoGPUJob(kpz):
        name = "no_gpu_job"
        jobs = {"cpu": kpz.jobs["cpu"]}

    with pytest.raises(RegistryError, match=r"no_gpu_job.*jobs needs one per declared backend"):
        registry.register(NoGPUJob())
    assert "no_gpu_job" not in registry.names()

    class OwnSwitch(kpz):
        name = "own_switch"
        jobs = {}

        def simulation(self, cfg):
            from simcore.models.kpz.simulation import KPZSimulation

            return KPZSimulation(cfg, spec=self)

    spec = OwnSwitch()
    registry.register(spec)
    try:
        cfg = validate_run_config(example_config(spec))
        assert make_simulation(cfg).spec is spec
    finally:
        registry.unregister("own_switch")


def test_specs_import_no_job_module() -> None:
    """Loading every spec imports none of the modules its ``jobs`` name (a GPU job's may
    import CUDA libraries), and no job module asks the registry for its model."""
    code = textwrap.dedent("""
        import sys
        from simcore.models import registry
        from simcore.testing import simcore_models
        for name in simcore_models():
            for target in registry.get(name).jobs.values():
                module = target.partition(":")[0]
                assert module not in sys.modules, (name, module)
                print(module)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    modules = set(proc.stdout.split())
    assert modules
    for module in modules:
        source = Path(importlib.util.find_spec(module).origin).read_text()
        assert not re.search(r"\bregistry\b", source), module


#: The spec module of a distribution of :func:`_distribution`.
_SPEC_MODULE = """from simcore.models.spec import ModelSpec


class Spec(ModelSpec):
    name = {model!r}
    title = "from {dist}"
    jobs = {{"cpu": "{package}.job:Job"}}


SPEC = Spec()
"""


def _distribution(root: Path, dist: str, version: str, model: str, package: str) -> Path:
    """A folder holding an installed distribution ``dist`` whose entry point registers
    ``model`` as ``package.spec:SPEC`` (a spec whose title names the distribution)."""
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    (root / package / "spec.py").write_text(
        _SPEC_MODULE.format(model=model, dist=dist, package=package)
    )
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[simcore.models]\n{model} = {package}.spec:SPEC\n")
    return root


def test_two_distributions_of_one_model_name_are_warned_about(tmp_path, monkeypatch) -> None:
    """Two installed distributions registering the same model name: the first on
    sys.path is used, as before, and a DuplicateModelWarning (once per process) names both
    distributions, their entry points and which one wins."""
    name = "dup_model"
    first = _distribution(tmp_path / "a", "dup-first", "1.0", name, "dup_first")
    second = _distribution(tmp_path / "b", "dup-second", "2.0", name, "dup_second")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))  # first on sys.path
    try:
        with pytest.warns(DuplicateModelWarning) as caught:
            assert name in registry.names()
        (warning,) = [w for w in caught if issubclass(w.category, DuplicateModelWarning)]
        text = str(warning.message)
        assert re.search(
            r"model 'dup_model' is registered by more than one distribution .*: "
            r"dup-first 1\.0 \(.*dup_model = 'dup_first\.spec:SPEC'\) is used, being first on "
            r"sys\.path; ignored: dup-second 2\.0 \(.*dup_model = 'dup_second\.spec:SPEC'\)",
            text,
        ), text
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # said once per process
            assert registry.get(name).title == "from dup-first"
            assert registry.distribution(name).metadata["Name"] == "dup-first"
    finally:
        registry.unregister(name)
        registry._warned.discard(name)
        for module in [m for m in sys.modules if m.split(".")[0] in ("dup_first", "dup_second")]:
            del sys.modules[module]
