"""A real Slurm cluster on localhost runs a small campaign through the Slurm profile.

Opt-in, as it changes the machine: the test runs where Slurm is installed (sbatch,
slurmctld, slurmd, munged), or where ``SIMCORE_TEST_SLURM=1`` asks for it, in which case
Debian's slurm-wlm (22.05) and munge are installed with apt-get if they are missing (root
only; this leaves the packages and /etc/munge/munge.key behind, so CI sets it, not a
user's test command).  Otherwise, or with ``SIMCORE_TEST_SLURM=0``, it is skipped with a
one-line reason.  A one-node cluster is started (slurmctld, slurmd, munged on a private
socket), and Snakemake submits the campaign with ``--workflow-profile
workflow/profiles/slurm`` (snakemake-executor-plugin-slurm) to the aggregated datasets.
The cluster has no accounting database, so job status comes from squeue
(``--slurm-status-command squeue``, MinJobAge = 1 h).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml

ROOT = Path(__file__).resolve().parents[1]
SLURM_CONF = Path("/etc/slurm/slurm.conf")

#: The environment variable that lets the test install Slurm ("1") or skips it ("0").
OPT_IN = "SIMCORE_TEST_SLURM"
SLURM_TOOLS = ("sbatch", "slurmctld", "slurmd", "munged")


def slurm_decision(environ: Mapping[str, str], installed: bool) -> tuple[str, str]:
    """What the Slurm test does: ``("run", "")`` with Slurm installed, ``("install", "")``
    where ``SIMCORE_TEST_SLURM=1`` asks to install it first (apt-get, root), else
    ``("skip", one-line reason naming the variable)``.  ``SIMCORE_TEST_SLURM=0`` skips
    even with Slurm installed."""
    value = environ.get(OPT_IN, "").strip()
    if value == "0":
        return "skip", f"{OPT_IN}=0: the Slurm test is switched off"
    if value not in ("", "1"):
        return "skip", f"{OPT_IN}={value!r}: expected 1 (run, installing Slurm) or 0 (skip)"
    if installed:
        return "run", ""
    if value == "1":
        return "install", ""
    return "skip", (
        f"Slurm is not installed; {OPT_IN}=1 installs it (apt-get, as root) and runs this test"
    )


def test_slurm_opt_in_decision() -> None:
    """The Slurm test installs Slurm only when asked: the pure decision, no Slurm needed."""
    assert slurm_decision({}, installed=True) == ("run", "")
    assert slurm_decision({OPT_IN: "1"}, installed=True) == ("run", "")
    assert slurm_decision({OPT_IN: "1"}, installed=False) == ("install", "")
    for environ, installed in (({}, False), ({OPT_IN: ""}, False), ({OPT_IN: "0"}, True),
                               ({OPT_IN: "0"}, False), ({OPT_IN: "yes"}, False)):  # fmt: skip
        action, reason = slurm_decision(environ, installed)
        assert action == "skip" and OPT_IN in reason and "\n" not in reason, environ


def _install_slurm() -> str | None:
    """Install Slurm and munge with apt-get (root only); the reason if impossible."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "Slurm is not installed and apt-get as root is not available"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-q", "slurm-wlm", "munge"]
    if subprocess.run(cmd, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True)
        res = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if res.returncode != 0:
            return f"apt-get install slurm-wlm munge failed: {res.stderr.strip()[-300:]}"
    return None


def _slurm_conf(host: str, state: Path) -> str:
    return f"""# written by tests/test_slurm.py: a one-node cluster on localhost
ClusterName=simcoretest
SlurmctldHost={host}
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket={state}/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPidFile={state}/slurmctld.pid
SlurmdPidFile={state}/slurmd.pid
SlurmdSpoolDir={state}/slurmd
StateSaveLocation={state}/ctld
SlurmctldLogFile={state}/slurmctld.log
SlurmdLogFile={state}/slurmd.log
MinJobAge=3600
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
NodeName={host} CPUs={os.cpu_count()} RealMemory=8000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    """A running one-node Slurm cluster (or skip, saying why)."""
    action, reason = slurm_decision(os.environ, all(shutil.which(t) for t in SLURM_TOOLS))
    if action == "skip":
        pytest.skip(reason)
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("snakemake-executor-plugin-slurm is not installed (pip install -e .[slurm])")
    if action == "install" and (reason := _install_slurm()):
        pytest.skip(reason)
    if SLURM_CONF.exists() and "tests/test_slurm.py" not in SLURM_CONF.read_text():
        pytest.skip(f"{SLURM_CONF} belongs to a real cluster; not touching it")
    state = tmp_path_factory.mktemp("slurm")
    for sub in ("slurmd", "ctld"):
        (state / sub).mkdir()
    host = socket.gethostname().split(".")[0]
    SLURM_CONF.parent.mkdir(parents=True, exist_ok=True)
    SLURM_CONF.write_text(_slurm_conf(host, state))
    munge_key = Path("/etc/munge/munge.key")
    daemons = [
        [
            "munged", "--force", f"--socket={state}/munge.socket", f"--key-file={munge_key}",
            f"--log-file={state}/munged.log", f"--pid-file={state}/munged.pid",
            f"--seed-file={state}/munge.seed",
        ],
        ["slurmctld"],
        ["slurmd"],
    ]  # fmt: skip
    for cmd in daemons:
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            pytest.fail(f"{cmd[0]} did not start: {res.stderr.strip()}")
    for _ in range(30):
        res = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True)
        if res.returncode == 0 and res.stdout.strip() == "idle":
            break
        time.sleep(1)
    else:
        pytest.fail(f"the Slurm node never became idle: {res.stdout} {res.stderr}")
    yield host
    for pidfile in ("slurmd.pid", "slurmctld.pid", "munged.pid"):
        pid = state / pidfile
        if pid.exists():
            subprocess.run(["kill", pid.read_text().strip()], capture_output=True)
    # With a slurm.conf but no controller, `scontrol show config` waits ~9 s for it, and
    # the Slurm executor plugin calls that when Snakemake imports it: every later
    # snakemake start on this machine would pay those 9 s.
    SLURM_CONF.unlink(missing_ok=True)


def _through_slurm(workdir: Path, conf: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """The campaign ``conf`` to its datasets through the local cluster and the Slurm profile
    (status from squeue, polled every 2 s)."""
    cmd = [
        sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
        "--directory", str(workdir), "--workflow-profile", str(ROOT / "workflow/profiles/slurm"),
        "--configfile", str(conf), "--default-resources", "slurm_partition=debug",
        "--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "1",
        "--seconds-between-status-checks", "2", "--latency-wait", "5", "datasets", *extra,
    ]  # fmt: skip
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.slurm
def test_campaign_through_slurm(slurm_cluster, tmp_path: Path) -> None:
    """Six simulate jobs (in groups of 2: the node has 2 cores) and the aggregates, via Slurm."""
    campaign = {
        "campaign": "slurmtest",
        "seed": 11,
        "model": "kpz",
        "samples": 6,
        "samples_per_job": 2,
        "t_max": 20,
        "waiting_times": [5],
        "points": [{"dim": 2, "L": [16, 32], "scheme": "sequential"}],
    }
    conf = tmp_path / "slurmtest.yaml"
    conf.write_text(yaml.safe_dump(campaign))
    res = _through_slurm(tmp_path, conf, "--group-components", "simulations=2", "--keep-going")
    assert res.returncode == 0, res.stderr[-3000:]
    out = tmp_path / "results" / "slurmtest" / "datasets"
    for L in (16, 32):
        with xr.open_dataset(out / f"kpz_d2_L{L}_p1_q0_sequential_cpu.nc") as ds:
            assert ds.sizes["sample"] == 6 and ds.attrs["n_runs"] == 3
    # the jobs really went through Slurm: squeue knows them, all completed
    jobs = subprocess.run(
        ["squeue", "--states=all", "-h", "-o", "%j|%T"], capture_output=True, text=True
    ).stdout.split()
    assert jobs and all(j.endswith("|COMPLETED") for j in jobs), jobs
    assert len(jobs) >= 4  # 3 groups of simulate jobs + the aggregates


@pytest.mark.slow
@pytest.mark.slurm
def test_jobs_chained_over_slurm_allocations(slurm_cluster, tmp_path: Path) -> None:
    """With the campaign key max_wall every Slurm job stops with a checkpoint (exit 3)
    after a step, and `--retries` resubmits it until it finishes: each run file went
    through several Slurm jobs (its history: one start from scratch, then resumes) and
    equals a `simcore run` of its job file without stops, value for value."""
    campaign = {
        "campaign": "chained",
        "seed": 12,
        "model": "kpz",
        "samples": 2,
        "samples_per_job": 1,
        "t_max": 2,
        "points_per_decade": 4,
        "waiting_times": [1],
        "max_wall": 0,
        "points": [{"dim": 2, "L": 16, "scheme": "sequential"}],
    }
    conf = tmp_path / "chained.yaml"
    conf.write_text(yaml.safe_dump(campaign))
    # 3 steps (t = 0, 1, 2): the profile's 2 retries are the 3 allocations a job needs
    res = _through_slurm(tmp_path, conf, "--group-components", "simulations=1")
    assert res.returncode == 0, res.stderr[-3000:]
    runs = sorted((tmp_path / "results" / "chained" / "runs").glob("*/b*.nc"))
    assert len(runs) == 2
    for run in runs:
        job = Path(str(run).replace("/runs/", "/jobs/")).with_suffix(".yaml")
        ref = tmp_path / f"reference_{run.stem}.nc"
        subprocess.run(["simcore", "run", str(job), "--out", str(ref), "--quiet"], check=True)
        with xr.open_dataset(run) as got, xr.open_dataset(ref) as want:
            history = got.attrs["history"]
            assert got.attrs["run_segments"] >= 3, history
            assert history.count("started from scratch") == 1, history
            for name in want.data_vars:
                np.testing.assert_array_equal(got[name].values, want[name].values, name)
