"""Shared fixtures and helpers: small run configs, running a job to its file or step by step,
comparing run files, and calling the simcore command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml


def small_config(**overrides) -> dict:
    """A run config that finishes in about a second."""
    cfg = {
        "model": "kpz",
        "dim": 2,
        "L": 16,
        "p": 1.0,
        "q": 0.0,
        "scheme": "sequential",
        "backend": "cpu",
        "samples": 3,
        "seed": 2024,
        "t_max": 60,
        "waiting_times": [5, 20],
    }
    cfg.update(overrides)
    return cfg


@pytest.fixture
def write_config(tmp_path):
    """Write a run config to a YAML file and return its path."""

    def _write(cfg: dict, name: str = "job.yaml") -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(cfg))
        return path

    return _write


def run_with_stops(cfg: dict, out: Path) -> int:
    """Run a job that stops after every sampling time (``max_wall=0``), resuming from its
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


def run_and_load(cfg: dict, path: Path):
    """Run a validated job config to ``path`` (must succeed) and load its dataset."""
    import xarray as xr

    from simcore.runner import EXIT_OK, run_job

    assert run_job(cfg, path, progress=False) == EXIT_OK
    return xr.load_dataset(path)


def run_steps(sim, st: dict | None = None, stop_after: int | None = None) -> dict:
    """Step a simulation from ``st`` (default: its initial state) until done, or for
    ``stop_after`` sampling steps; returns the state."""
    st = sim.initial_state() if st is None else st
    n = 0
    while not sim.done(st) and (stop_after is None or n < stop_after):
        sim.step(st)
        n += 1
    return st


def assert_same_run_files(a: Path, b: Path) -> None:
    """Every variable of two run files equal, except the wall-clock times."""
    import numpy as np
    import xarray as xr

    da, db = xr.load_dataset(a), xr.load_dataset(b)
    assert set(da.data_vars) == set(db.data_vars)
    for name in da.variables:
        if name != "wall_time":
            np.testing.assert_array_equal(da[name].values, db[name].values, err_msg=name)


def nvcc_ptx(tmp_path: Path, source: Path, defines, extra=()) -> str:
    """Compile a CUDA source to PTX for sm_90 with the options the GPU loader uses
    (simcore.backends.cuda.compile_options); asserts success and returns the PTX."""
    from simcore.backends.cuda import compile_options

    out = tmp_path / "k.ptx"
    cmd = ["nvcc", "-arch=sm_90", "--ptx", *compile_options(tuple(defines), *extra)]
    res = subprocess.run([*cmd, str(source), "-o", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return out.read_text()


def run_simcore(*args: str, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """Run the installed ``simcore`` command (as a user would) and capture its output
    (``env``: the environment, default this process's)."""
    env = {**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "-m", "simcore.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        **kwargs,
    )
