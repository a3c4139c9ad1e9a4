"""Failure recovery of a campaign: a killed job is never aggregated, and Snakemake's
`--retries` and `--rerun-incomplete` bring the campaign to the same results as a run
without failures.

The failures are real: the `simcore run` process of a job, or the whole Snakemake
process group (as when a node is lost), is killed with SIGKILL while the job runs.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed"),
    pytest.mark.skipif(shutil.which("simcore") is None, reason="simcore not on PATH"),
]

CAMPAIGN = {
    "campaign": "recover",
    "seed": 11,
    "model": "kpz",
    "samples": 4,
    "samples_per_job": 2,
    "points": [{"dim": 2, "L": 64, "t_max": 300, "waiting_times": [10]}],
}
POINT = "kpz_d2_L64_p1_q0_sequential_cpu"


def _snakemake_cmd(workdir: Path, *args: str) -> list[str]:
    return [
        sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
        "--directory", str(workdir), "--cores", "1", "datasets",
        "--configfile", str(workdir / "c.yaml"), *args,
    ]  # fmt: skip


def _running_job(workdir: Path, deadline_s: float = 120.0) -> tuple[int, str]:
    """(pid, output path) of the first `simcore run` process working in ``workdir``.

    Polls the process table until one appears (the job has then started, and has not
    written its output: that happens only at its very end)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                args = (proc / "cmdline").read_bytes().decode().split("\0")
                cwd = os.readlink(proc / "cwd")
            except OSError:
                continue
            if cwd == str(workdir) and "run" in args and "--out" in args:
                if any(a.endswith("simcore") or a == "simcore.cli" for a in args):
                    return int(proc.name), args[args.index("--out") + 1]
        time.sleep(0.05)
    raise AssertionError(f"no simcore run process appeared in {workdir} in {deadline_s} s")


def _same_as_uninterrupted(workdir: Path, run: str) -> None:
    """The recovered run file equals a fresh `simcore run` of its job file, value for value."""
    job = Path(run.replace("/runs/", "/jobs/")).with_suffix(".yaml")
    ref = workdir / "reference.nc"
    subprocess.run(["simcore", "run", str(workdir / job), "--out", str(ref), "--quiet"], check=True)
    with xr.open_dataset(workdir / run) as got, xr.open_dataset(ref) as want:
        for name in want.data_vars:
            np.testing.assert_array_equal(got[name].values, want[name].values, err_msg=name)


def _dataset_samples(workdir: Path) -> list[int]:
    with xr.open_dataset(workdir / "results/recover/datasets" / f"{POINT}.nc") as ds:
        return ds["sample"].values.tolist()


def test_killed_job_is_retried(tmp_path: Path) -> None:
    """SIGKILL of a running job's `simcore run`: with --retries 1 the job fails, is run
    again, and the campaign finishes with the same run file as an uninterrupted job."""
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(CAMPAIGN))
    smk = subprocess.Popen(
        _snakemake_cmd(tmp_path, "--retries", "1"),
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    pid, run = _running_job(tmp_path)
    os.kill(pid, signal.SIGKILL)
    out, _ = smk.communicate(timeout=300)
    assert smk.returncode == 0, out
    assert "Error in rule simulate" in out and "Trying to restart job" in out
    assert _dataset_samples(tmp_path) == [0, 1, 2, 3]
    _same_as_uninterrupted(tmp_path, run)


def test_killed_workflow_recovers_with_rerun_incomplete(tmp_path: Path) -> None:
    """SIGKILL of the whole Snakemake process group mid-job (a lost node): nothing of the
    killed job is aggregated; Snakemake then refuses to go on until told what to do with
    the incomplete job, and `--rerun-incomplete` finishes the campaign."""
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(CAMPAIGN))
    smk = subprocess.Popen(
        _snakemake_cmd(tmp_path), cwd=tmp_path, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    _, run = _running_job(tmp_path)
    os.killpg(smk.pid, signal.SIGKILL)
    smk.wait(timeout=60)
    assert not (tmp_path / run).exists()  # simcore writes its output atomically at the end
    assert not (tmp_path / "results/recover/datasets").exists()

    proc = subprocess.run(_snakemake_cmd(tmp_path, "--unlock"), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(_snakemake_cmd(tmp_path), capture_output=True, text=True)
    assert proc.returncode != 0
    assert "incomplete" in proc.stderr and "--rerun-incomplete" in proc.stderr
    assert not (tmp_path / "results/recover/datasets").exists()

    proc = subprocess.run(
        _snakemake_cmd(tmp_path, "--rerun-incomplete"), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert _dataset_samples(tmp_path) == [0, 1, 2, 3]
    _same_as_uninterrupted(tmp_path, run)
