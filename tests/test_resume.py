"""Checkpoints resume bit-identically; a killed run leaves nothing at the output path."""

import os
import signal
import subprocess
import sys

import numpy as np
import pytest
import xarray as xr
from conftest import run_simcore, run_with_stops, small_config

from simcore.config import validate_run_config
from simcore.io.atomic import atomic_path
from simcore.runner import EXIT_CHECKPOINTED, EXIT_OK, run_job


def _same_data(a: str, b: str) -> None:
    with xr.open_dataset(a) as da, xr.open_dataset(b) as db:
        assert set(da.data_vars) == set(db.data_vars)
        for name in da.variables:
            np.testing.assert_array_equal(da[name].values, db[name].values)


@pytest.mark.parametrize("dim,L", [(1, 64), (2, 16)])
def test_resume_after_every_step_is_bit_identical(tmp_path, dim, L):
    """Stopping after every sampling step (max_wall=0) and resuming gives the same data."""
    cfg = validate_run_config(small_config(dim=dim, L=L, p=0.7, q=0.2))
    ref = tmp_path / "ref.nc"
    assert run_job(cfg, ref, progress=False) == EXIT_OK
    out = tmp_path / "out.nc"
    assert run_with_stops(cfg, out) > 10
    _same_data(ref, out)


@pytest.mark.parametrize("prng", ["philox", "mt19937"])
def test_ea3d_resume_after_every_step_is_bit_identical(tmp_path, prng):
    """The spin glass too: its coded spin words (and a stateful generator's state) are the
    whole state besides the results."""
    cfg = validate_run_config(
        {"model": "ea3d", "L": 6, "T": 1.0, "samples": 128, "seed": 5, "t_max": 60,
         "prng": prng}
    )  # fmt: skip
    ref = tmp_path / "ref.nc"
    assert run_job(cfg, ref, progress=False) == EXIT_OK
    out = tmp_path / "out.nc"
    stops = 0
    while (status := run_job(cfg, out, max_wall=0.0, progress=False)) == EXIT_CHECKPOINTED:
        stops += 1
    assert status == EXIT_OK and stops > 10
    _same_data(ref, out)


def test_cli_resume_and_foreign_checkpoint(tmp_path, write_config):
    """`--max-wall 0` exits 3 with a checkpoint; the same command finishes it; a checkpoint
    of another config is refused."""
    conf = write_config(small_config())
    ref, out = tmp_path / "ref.nc", tmp_path / "out.nc"
    assert run_simcore("run", conf, "--out", ref, "--quiet").returncode == 0
    first = run_simcore("run", conf, "--out", out, "--max-wall", "0")
    assert first.returncode == 3 and "resume" in first.stderr and not out.exists()
    other = write_config(small_config(seed=7), "other.yaml")
    refused = run_simcore("run", other, "--out", out, "--quiet")
    assert refused.returncode == 2 and "checkpoint" in refused.stderr
    second = run_simcore("run", conf, "--out", out)
    assert second.returncode == 0 and "resuming" in second.stderr
    _same_data(ref, out)


def test_stop_at_stops_after_a_step_and_the_history_shows_the_segments(tmp_path, write_config):
    """`--stop-at` (or $SIMCORE_STOP_AT, which a campaign's max_wall sets) in the past stops
    after one step with a checkpoint (exit 3); the finished file's history has one line
    per segment: started from scratch, then resumed where the last one stopped.  A value
    that is no time is one line naming the variable, exit status 2."""
    import os
    import time

    import xarray as xr

    from simcore.walltime import STOP_AT_ENV

    conf = write_config(small_config())
    out = tmp_path / "out.nc"
    past = str(time.time() - 10)
    first = run_simcore("run", conf, "--out", out, "--stop-at", past)
    assert first.returncode == 3 and "checkpoint" in first.stderr and not out.exists()
    env = {**os.environ, STOP_AT_ENV: past}
    second = subprocess.run(
        ["simcore", "run", str(conf), "--out", str(out)], env=env, capture_output=True, text=True
    )
    assert second.returncode == 3, second.stderr
    assert run_simcore("run", conf, "--out", out, "--quiet").returncode == 0
    with xr.open_dataset(out) as ds:
        history, segments = ds.attrs["history"].splitlines(), ds.attrs["run_segments"]
    assert segments == 3 and len(history) == 4
    assert "segment 1: started from scratch; stopped at the wall limit" in history[0]
    assert "segment 2: resumed from the checkpoint at" in history[1]
    assert "segment 3: resumed" in history[2] and "finished" in history[2]
    bad = subprocess.run(
        ["simcore", "run", str(conf), "--out", str(tmp_path / "x.nc")],
        env={**os.environ, STOP_AT_ENV: "tomorrow"}, capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and STOP_AT_ENV in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_killed_run_leaves_no_output(tmp_path, write_config):
    """SIGKILL in the middle of a run: no file at the output path."""
    conf = write_config(small_config(L=256, samples=50, t_max=2000))
    out = tmp_path / "run.nc"
    proc = subprocess.Popen(
        [sys.executable, "-m", "simcore.cli", "run", str(conf), "--out", str(out)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    line = proc.stderr.readline()  # the first progress line: the run is under way
    assert "%" in line
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert not out.exists()


def test_atomic_path_removes_partial_file(tmp_path):
    """An error while writing leaves neither the target nor the temporary file."""
    target = tmp_path / "x.nc"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("writer died")
    assert list(tmp_path.iterdir()) == []
