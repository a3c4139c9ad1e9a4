"""Shared fixtures and helpers: small run configs, running a job to its file or step by step,
comparing run files, and calling the simcore command.  The helpers of the model contract
(the simcore command, a job stopped after every step, comparing run files) are
``simcore.testing``'s, which plug-ins' test suites use too: imported here, not copied."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
import yaml

# The contract tests' asserts report their values as a test module's do.
pytest.register_assert_rewrite("simcore.testing")

from simcore.testing import assert_same_run_files, run_simcore, run_with_stops  # noqa: E402

__all__ = ["assert_quoted", "assert_same_run_files", "default_sigint", "gpu_count", "nvcc_ptx",
           "page_text", "run_and_load", "run_simcore", "run_steps", "run_with_stops",
           "small_config"]  # fmt: skip

ROOT = Path(__file__).resolve().parents[1]

#: The plug-ins' own test suites run with the plug-in installed (tests/test_models.py
#: runs them so), never as part of simcore's.
collect_ignore = ["plugins"]


def page_text(page: str) -> str:
    """A page of the repository (``README.md``, ``docs/...``) with its line breaks as spaces
    and without bold, so that a quoted text may wrap or be emphasised."""
    return " ".join((ROOT / page).read_text().replace("**", "").split())


def assert_quoted(text: str, page: str = "README.md", what: str = "") -> None:
    """A number a test measures must stand in the page that quotes it, as ``text``: the
    page and the measurement cannot drift apart (tests/test_quoted_numbers.py does the
    same for the numbers of the published data)."""
    text = " ".join(text.split())
    assert text in page_text(page), f"{page} lacks {text!r} ({what or 'a measured number'})"


def default_sigint() -> None:
    """In a child before it starts (``preexec_fn``): Ctrl-C's default disposition.  A test
    run started in the background (``cmd &`` in a script, as a CI runner may) inherits
    SIGINT ignored, and a program that starts with SIGINT ignored keeps ignoring it, as a
    user's foreground command never does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def gpu_count() -> int:
    """CUDA devices this process sees (0 without CuPy, a driver or a device): the skip
    condition of every GPU test."""
    try:
        import cupy as cp

        return int(cp.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no cupy, no driver, no device: all mean "no GPU"
        return 0


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


def nvcc_ptx(tmp_path: Path, source: Path, defines, extra=()) -> str:
    """Compile a CUDA source to PTX for sm_90 with the options the GPU loader uses
    (simcore.backends.cuda.compile_options); asserts success and returns the PTX."""
    from simcore.backends.cuda import compile_options

    out = tmp_path / "k.ptx"
    cmd = ["nvcc", "-arch=sm_90", "--ptx", *compile_options(tuple(defines), *extra)]
    res = subprocess.run([*cmd, str(source), "-o", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return out.read_text()
