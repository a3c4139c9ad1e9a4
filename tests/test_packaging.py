"""simcore as a user installs it: a wheel (not an editable install) carries every CUDA
source, the campaign schema and the entry points of simcore's own models, and, installed
into a fresh virtual environment, runs each of them and `simcore status --config` from
there.  Models of other installed packages are none of these tests' business."""

from __future__ import annotations

import os
import re
import site
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
import yaml

from simcore.models import registry
from simcore.testing import simcore_models

ROOT = Path(__file__).resolve().parents[1]


def package_data_in_tree() -> set[str]:
    """The non-Python files read at run time: CUDA sources and headers, the campaign
    schema, the analysis's recorded tables."""
    files = {p for p in (ROOT / "simcore").rglob("cuda/*") if p.is_file()}
    files |= set((ROOT / "simcore").rglob("*.schema.yaml"))
    files |= set((ROOT / "analysis" / "data").glob("*.csv"))
    return {p.relative_to(ROOT).as_posix() for p in files}


def _requirements(lines) -> dict[str, str]:
    """name (lower case, - for _) -> version bounds, of requirement strings."""
    out = {}
    for line in lines:
        name, bounds = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", line.strip()).groups()
        out[name.lower().replace("_", "-")] = bounds.replace(" ", "")
    return out


def test_conda_environment_matches_pyproject() -> None:
    """environment.yml holds pyproject.toml's dependencies and its test extra (which holds
    the workflow and slurm extras), with the same bounds, and its Python."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert set(extras["workflow"]) | set(extras["slurm"]) <= set(extras["test"])
    wanted = _requirements([*project["dependencies"], *extras["test"]])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = _requirements(d for d in env["dependencies"] if isinstance(d, str))
    assert conda.pop("python") == project["requires-python"]
    assert conda.pop("pip") == ""
    assert conda == wanted
    assert {"conda-forge", "bioconda"} <= set(env["channels"])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """simcore built as a wheel from this tree."""
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out), str(ROOT)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("simcore-*.whl")
    return path


def test_wheel_holds_the_package_data_and_entry_points(wheel: Path) -> None:
    """Every CUDA source (simcore/**/cuda/*) and the schema are in the wheel, and its
    entry points register exactly simcore's own models (those whose entry point here is
    simcore's; other installed plug-ins are not compared)."""
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        (eps,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        entry_points = zf.read(eps).decode()
    missing = package_data_in_tree() - names
    assert not missing, f"not in the wheel: {sorted(missing)}"
    assert len(package_data_in_tree()) >= 8  # 4 kernels, 3 headers, the schema
    section = entry_points.split("[simcore.models]", 1)[1].split("[", 1)[0]
    assert {line.split("=")[0].strip() for line in section.strip().splitlines()} == set(
        simcore_models()
    )


def site_packages_here() -> list[str]:
    """The site-packages folders of the environment running the tests: a virtual
    environment's own (and the base ones, if it sees them), or the interpreter's."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [d for d in dict.fromkeys(dirs) if Path(d).is_dir()]


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory) -> Path:
    """A new virtual environment with the wheel installed; returns its bin folder.

    Its dependencies come from the site-packages of the environment running the tests,
    named in a .pth file of the new venv (after its own site-packages, so simcore is the
    wheel's; ``--ignore-installed`` installs it although this environment's simcore is
    visible too).  Not ``--system-site-packages``: inside a virtual environment that would
    show the base interpreter's packages, not this environment's."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    purelib = subprocess.run(
        [str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(purelib) / "simcore_test_deps.pth").write_text("\n".join(site_packages_here()) + "\n")
    proc = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
         "--ignore-installed", str(wheel)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return bin_dir


def run_in(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """A command of the venv, from a folder outside the source tree, no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, timeout=900)


@pytest.mark.slow
def test_wheel_install_runs_every_model(installed: Path, tmp_path: Path) -> None:
    """From the installed wheel: simcore is imported from the venv (not this tree), finds
    its models and every CUDA source, runs each of its models' example on the CPU, and
    `simcore status --config` reads a campaign with the schema it ships."""
    where = run_in(installed, tmp_path, str(installed / "python"), "-c",
                   "import simcore, simcore.backends.cuda as c; print(simcore.__file__); "
                   "print(c.CUDA_INCLUDE)")  # fmt: skip
    assert where.returncode == 0, where.stderr
    module, include = where.stdout.split()
    assert module.startswith(str(installed.parent)) and include.startswith(str(installed.parent))
    site = Path(module).parents[1]
    for rel in package_data_in_tree():
        assert (site / rel).is_file(), rel
    for name in simcore_models():
        spec = registry.get(name)
        job = tmp_path / f"{name}.yaml"
        job.write_text(yaml.safe_dump({"model": name, **spec.example, "seed": 5}))
        proc = run_in(installed, tmp_path, "simcore", "run", job.name, "--out", f"{name}.nc")
        assert proc.returncode == 0, (name, proc.stderr[-2000:])
        assert (tmp_path / f"{name}.nc").stat().st_size > 0
    camp = tmp_path / "camp.yaml"
    camp.write_text(yaml.safe_dump({
        "campaign": "w", "seed": 1, "model": "kpz", "t_max": 10,
        "points": [{"dim": 1, "L": 32, "waiting_times": [2]}]}))  # fmt: skip
    (tmp_path / "results" / "w" / "runs").mkdir(parents=True)
    proc = run_in(installed, tmp_path, "simcore", "status", "results/w", "--config", camp.name)
    assert proc.returncode == 0, proc.stderr
    assert "kpz_d1_L32_p1_q0_sequential_cpu" in proc.stdout and "0/4" in proc.stdout
