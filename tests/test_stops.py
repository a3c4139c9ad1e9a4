"""A campaign command stopped on purpose reads as a planned stop; a failure reads as one.

The campaign key ``max_wall`` stops every simulate job with a checkpoint (exit status 3),
Ctrl-C makes every job checkpoint and end by SIGINT.  The last lines of such a command say
how many jobs finished, stopped with a checkpoint and did not start, and show the command
that resumes (``simcore.campaign.stops``); a job that crashed, or a failed job of another
rule, keeps Snakemake's full error report and is named as a failure.

The unit tests count jobs on real files and read the text Python's ``CalledProcessError``
gives; the slow tests run real Snakemake commands with the default profile: one stopped
by ``max_wall=0``, one by a real SIGINT to its process group (sent once every job has
written a progress line, which the test waits for on inotify, not by sleeping), one with
real failures beside a planned stop.
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import default_sigint

from simcore.campaign import load_campaign
from simcore.campaign.stops import (
    EXIT_CHECKPOINTED,
    FAILED,
    INTERRUPTED,
    WALL,
    CampaignStops,
    FailedJob,
    JobCounts,
    count_jobs,
    exit_status,
    outcome,
    resume_command,
    stop_kind,
    summary_lines,
)
from simcore.io.checkpoint import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "workflow" / "profiles" / "default"

#: Three jobs of one point (blocks 0-2) and one job of another; each runs in a second.
CAMPAIGN = {
    "campaign": "stops",
    "seed": 7,
    "model": "kpz",
    "samples": 6,
    "samples_per_job": 2,
    "t_max": 100,
    "waiting_times": [10],
    "points": [{"dim": 2, "L": 32}, {"dim": 2, "L": 64, "samples": 2}],
}
P32, P64 = "kpz_d2_L32_p1_q0_sequential_cpu", "kpz_d2_L64_p1_q0_sequential_cpu"


def _write_campaign(workdir: Path, **changes) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "c.yaml"
    path.write_text(yaml.safe_dump({**CAMPAIGN, **changes}, sort_keys=False))
    return path


def _command(workdir: Path, *args: str) -> list[str]:
    """A campaign command with the default profile: ``args`` are targets and options
    (targets first: ``--configfile`` takes every file name after it)."""
    return [
        sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
        "--workflow-profile", str(PROFILE), "--directory", str(workdir), *args,
    ]  # fmt: skip


def _resume_line(cmd: list[str]) -> str:
    """The command the summary shows for ``cmd``: ``snakemake ARGS`` as typed."""
    return "    " + shlex.join(["snakemake", *cmd[3:]])


# -- counting and reading statuses -----------------------------------------------------
def test_count_jobs_reads_run_files_and_checkpoints(tmp_path: Path) -> None:
    """A planned job is finished (its run file, even with a stale checkpoint beside it),
    stopped with a checkpoint (``RUN.nc.ckpt`` only) or not started (neither); files of
    blocks or points the campaign does not plan are not counted."""
    campaign = load_campaign(CAMPAIGN)
    assert sorted(campaign.jobs()) == [(P32, 0), (P32, 1), (P32, 2), (P64, 0)]
    runs = tmp_path / "results" / "stops" / "runs"
    for name in [f"{P32}/b0.nc", f"{P32}/b0.nc.ckpt", f"{P32}/b2.nc.ckpt", f"{P32}/b3.nc",
                 "kpz_d2_L16_p1_q0_sequential_cpu/b0.nc"]:  # fmt: skip
        (runs / name).parent.mkdir(parents=True, exist_ok=True)
        (runs / name).write_text("")
    counts = count_jobs(campaign, tmp_path / "results" / "stops")
    assert counts == JobCounts(finished=1, checkpointed=1, not_started=2)
    assert counts.total == 4


def test_exit_status_reads_python_called_process_error() -> None:
    """The status comes from the text Python gives a failed shell command (what Snakemake
    logs), also when the command holds quotes and a run config; a signal is negative."""
    command = "printf '%s' 'model: \"kpz\"\nseed: 3\n' > job.yaml && simcore run job.yaml"
    assert exit_status(str(subprocess.CalledProcessError(3, command))) == 3
    assert exit_status(str(subprocess.CalledProcessError(2, command))) == 2
    assert exit_status(str(subprocess.CalledProcessError(-2, command))) == -2
    assert exit_status(str(subprocess.CalledProcessError(-9, command))) == -9
    assert exit_status("MissingOutputException: job.yaml") is None


def test_planned_stops_and_failures_are_told_apart() -> None:
    """Exit status 3 is planned for a simulate job only; Ctrl-C (SIGINT, 130) for any
    rule; every other status, or none, is a failure, and one failure makes the command a
    failed one whatever else stopped as planned."""
    assert stop_kind("simulate", EXIT_CHECKPOINTED) == WALL
    assert stop_kind("simulate", -2) == stop_kind("aggregate", 130) == INTERRUPTED
    for rule, status in [("aggregate", 3), ("simulate", 2), ("simulate", 1),
                         ("simulate", -9), ("simulate", -15), ("simulate", None)]:  # fmt: skip
        assert stop_kind(rule, status) is None, (rule, status)

    wall = FailedJob("simulate", 3, stop=WALL)
    ctrl_c = FailedJob("simulate", -2, stop=INTERRUPTED)
    crash = FailedJob("simulate", 1)
    assert outcome([wall, wall]) == WALL
    assert outcome([wall, ctrl_c]) == outcome([], interrupted=True) == INTERRUPTED
    assert outcome([wall, crash]) == outcome([ctrl_c, crash], interrupted=True) == FAILED
    assert outcome([]) is None


def test_summary_lines_of_each_outcome() -> None:
    """A planned stop ends with the counts, Snakemake's log and the command that resumes
    (adding --rerun-incomplete after Ctrl-C where the command lacks it); a failure names
    its failed jobs and never offers to resume."""
    counts = JobCounts(finished=6, checkpointed=1, not_started=21)
    command = "snakemake --configfile c.yaml --config max_wall=450"
    lines = summary_lines("kel", WALL, counts, command=command, logs=["/w/x.log"])
    assert lines == [
        "simcore: campaign kel stopped at its wall limit (max_wall), as planned; no job failed.",
        "simcore: its 28 jobs: 6 finished, 1 stopped with a checkpoint, 21 not started.",
        "simcore: Snakemake's log: /w/x.log",
        "simcore: the same command resumes it:",
        f"    {command}",
    ]
    lines = summary_lines("kel", INTERRUPTED, counts, command=command, rerun_incomplete=False)
    assert lines[0] == "simcore: campaign kel stopped by Ctrl-C, as planned; no job failed."
    assert lines[-2:] == [
        "simcore: the same command with --rerun-incomplete resumes it:",
        f"    {command} --rerun-incomplete",
    ]
    assert summary_lines("kel", WALL, counts)[-1] == (
        "simcore: the same snakemake command resumes it."
    )

    failed = [FailedJob("simulate", 3, stop=WALL)]
    failed += [FailedJob("simulate", 2, ("l.log",), f"p b{i}") for i in range(7)]
    lines = summary_lines("kel", FAILED, counts, failed, command=command)
    assert lines[0] == "simcore: campaign kel stopped on a failure: 7 jobs failed:"
    assert lines[1] == "simcore:   simulate p b0: exit status 2 (log: l.log)"
    assert lines[-2:] == [
        "simcore:   ... and 2 more",
        "simcore: its 28 jobs: 6 finished, 1 with a checkpoint, 21 not started.",
    ]
    assert not any("resume" in line or "planned;" in line for line in lines)


def test_resume_command_is_the_command_line_as_typed() -> None:
    """``snakemake ARGS`` whether Snakemake ran as its script or ``python -m snakemake``,
    quoted for a shell; None when no command line ran it."""
    args = ["--configfile", "my campaign.yaml", "--config", "max_wall=450"]
    want = "snakemake --configfile 'my campaign.yaml' --config max_wall=450"
    assert resume_command(["/venv/bin/snakemake", *args]) == want
    assert resume_command(["/venv/lib/site-packages/snakemake/__main__.py", *args]) == want
    assert resume_command(["/venv/bin/pytest", *args]) is None
    assert resume_command([]) is None


def test_filter_shortens_only_planned_stops() -> None:
    """Records as Snakemake logs them (each command's CalledProcessError, then the job's
    error block, two jobs interleaved): the planned stop of simulate b0 becomes one line
    and a block without the shell command, as a warning; the crash of b1 and the failure
    of another rule are left as they are and make the command a failed one; Snakemake's
    "a job execution failed" line stays."""
    events = pytest.importorskip("snakemake_interface_logger_plugins.common").LogEvent

    logger = logging.Logger("snakemake-like")
    seen: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = seen.append  # type: ignore[method-assign]
    logger.addHandler(handler)
    stops = CampaignStops(load_campaign(CAMPAIGN), "results/stops", argv=[]).install(logger)

    def shell(block: int) -> str:
        return (
            f"printf '%s' 'seed: {block}\n' > results/stops/jobs/{P32}/b{block}.yaml && "
            f"simcore run results/stops/jobs/{P32}/b{block}.yaml "
            f"--out results/stops/runs/{P32}/b{block}.nc > results/stops/logs/b{block}.log 2>&1"
        )

    def exception(cmd: str, status: int) -> None:
        text = str(subprocess.CalledProcessError(status, f"set -euo pipefail;  {cmd}"))
        logger.error(f'RuleException:\nCalledProcessError in file "x.smk", line 34:\n{text}',
                     extra={"event": events.ERROR})  # fmt: skip

    def job_error(rule: str, out: str, cmd: str) -> None:
        logger.error(f"Error in rule {rule}, jobid: 1", extra={
            "event": events.JOB_ERROR, "rule_name": rule, "rule_msg": None, "jobid": 1,
            "input": [], "output": [out], "log": [f"{out}.log"], "conda_env": None,
            "container_img": None, "aux": {}, "indent": False, "shellcmd": cmd})  # fmt: skip

    aggregate = f"python -m analysis.aggregate --out results/stops/datasets/{P32}.nc"
    exception(shell(0), 3)
    exception(shell(1), 1)
    job_error("simulate", f"results/stops/runs/{P32}/b1.nc", shell(1))
    job_error("simulate", f"results/stops/runs/{P32}/b0.nc", shell(0))
    exception(aggregate, 2)
    job_error("aggregate", f"results/stops/datasets/{P32}.nc", aggregate)
    logger.error("Exiting because a job execution failed. Look above for error messages")

    stop0, crash1, block1, block0, agg, agg_block, exiting = seen
    assert stop0.getMessage() == (
        f"simcore: simulate job {P32} b0 stopped with a checkpoint, exit status 3: a planned stop"
    )
    assert stop0.levelno == block0.levelno == logging.WARNING and block0.shellcmd is None
    assert "returned non-zero exit status 1." in crash1.getMessage()
    assert crash1.levelno == block1.levelno == logging.ERROR and block1.shellcmd == shell(1)
    assert "exit status 2." in agg.getMessage() and agg_block.shellcmd == aggregate
    assert exiting.getMessage().startswith("Exiting because a job execution failed")
    assert [(job.rule, job.status, job.name, job.stop) for job in stops.failed] == [
        ("simulate", 1, f"{P32} b1", None),
        ("simulate", 3, f"{P32} b0", WALL),
        ("aggregate", 2, f"results/stops/datasets/{P32}.nc", None),
    ]
    assert outcome(stops.failed, stops.interrupted) == FAILED

    # every failed job a planned stop: Snakemake's "a job execution failed" line is dropped
    seen.clear()
    stops = CampaignStops(load_campaign(CAMPAIGN), "results/stops", argv=[]).install(logger)
    assert logger.filters == [stops]
    exception(shell(2), 3)
    job_error("simulate", f"results/stops/runs/{P32}/b2.nc", shell(2))
    logger.error("Exiting because a job execution failed. Look above for error messages")
    assert len(seen) == 2 and outcome(stops.failed, stops.interrupted) == WALL
    logger.info("Terminating processes on user request, this might take some time.")
    assert outcome(stops.failed, stops.interrupted) == INTERRUPTED


# -- real Snakemake commands -----------------------------------------------------------
needs_snakemake = pytest.mark.skipif(
    shutil.which("snakemake") is None or shutil.which("simcore") is None,
    reason="snakemake or simcore not on PATH",
)


def _last_lines(text: str, n: int) -> list[str]:
    return text.rstrip("\n").splitlines()[-n:]


@pytest.mark.slow
@needs_snakemake
def test_max_wall_stop_ends_with_counts_and_the_resume_command(tmp_path: Path) -> None:
    """A command stopped by max_wall=0 (default profile, one core: the first simulate job
    stops after its first step and Snakemake starts no other) exits with status 3 and ends
    with the campaign's jobs: one finished by an earlier command, one stopped with a
    checkpoint, two not started, then the command that resumes, exactly as typed.  The
    stopped job's report is short: one line for its exit status 3, its error block without
    the shell command, its log's line about the checkpoint; no CalledProcessError, no
    Snakemake "did not complete successfully"."""
    _write_campaign(tmp_path)
    first = _command(tmp_path, f"results/stops/runs/{P32}/b0.nc", "--configfile",
                     str(tmp_path / "c.yaml"))  # fmt: skip
    done = subprocess.run(first, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]

    cmd = _command(tmp_path, "datasets", "--configfile", str(tmp_path / "c.yaml"),
                   "--cores", "1", "--config", "max_wall=0")  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == EXIT_CHECKPOINTED, res.stderr[-3000:]
    assert res.stdout == ""
    log = next((tmp_path / ".snakemake" / "log").glob("*.snakemake.log"), None)
    lines = _last_lines(res.stderr, 5)
    assert lines[:2] == [
        "simcore: campaign stops stopped at its wall limit (max_wall), as planned; no job failed.",
        "simcore: its 4 jobs: 1 finished, 1 stopped with a checkpoint, 2 not started.",
    ], res.stderr[-3000:]
    assert lines[2].startswith("simcore: Snakemake's log: ") and log is not None
    assert lines[3:] == ["simcore: the same command resumes it:", _resume_line(cmd)]

    stopped = list((tmp_path / "results" / "stops" / "runs").rglob("*.ckpt"))
    assert len(stopped) == 1
    assert "stopped with a checkpoint, exit status 3: a planned stop" in res.stderr
    block = res.stderr[res.stderr.index("Error in rule simulate:") :]
    block = block[: block.index("Removing output files")]
    assert "shell:" not in block and f"checkpoint {stopped[0].name} written" in block
    for text in ["CalledProcessError", "did not complete successfully", "Exiting because"]:
        assert text not in res.stderr


class _FileEvents:
    """Waits for files in some folders to change: Linux inotify, through the C library.
    ``fd`` turns readable when a file there is created, written or closed."""

    MASK = 0x2 | 0x8 | 0x100  # IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE

    def __init__(self, folders: list[Path]) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        for folder in folders:
            if libc.inotify_add_watch(self.fd, os.fsencode(folder), self.MASK) < 0:
                raise OSError(ctypes.get_errno(), f"inotify_add_watch {folder}")

    def clear(self) -> None:
        """Forget the events so far (the caller looks at the files next)."""
        os.read(self.fd, 1 << 16)


@pytest.mark.slow
@needs_snakemake
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="waits on Linux inotify")
def test_ctrl_c_ends_with_counts_the_resume_command_and_sigint(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the command's process group, as a terminal sends it) once both
    simulate jobs have logged their progress: each finishes its step, writes its checkpoint
    and ends by SIGINT; the command ends with both jobs stopped with a checkpoint, the
    command that resumes (the profile reruns incomplete jobs, so nothing is added) and its
    own death by SIGINT, as a shell loop needs to stop too.  Each job runs 20 samples one
    after the other and logs its first progress line (5 %) when its first sample is done,
    so the Ctrl-C finds it with 19 samples to go, however fast the machine."""
    _write_campaign(tmp_path, samples=40, samples_per_job=20, t_max=20_000,
                    points_per_decade=20, points=[{"dim": 2, "L": 64}])  # fmt: skip
    logs = tmp_path / "results" / "stops" / "logs" / "simulate" / P64
    logs.mkdir(parents=True)
    events = _FileEvents([logs])
    cmd = _command(tmp_path, "datasets", "--configfile", str(tmp_path / "c.yaml"),
                   "--cores", "2")  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=default_sigint)  # fmt: skip
    assert proc.stdout is not None
    out = bytearray()
    try:

        def progressed(block: int) -> bool:
            log = logs / f"b{block}.log"
            return log.exists() and "% (sample" in log.read_text()

        while not (progressed(0) and progressed(1)):
            # the timeout is a safety net only: the files' and the pipe's events wake it
            ready, _, _ = select.select([events.fd, proc.stdout.fileno()], [], [], 600)
            assert ready, "no progress line in 600 s"
            if events.fd in ready:
                events.clear()
            if proc.stdout.fileno() in ready:
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                assert chunk, f"snakemake ended before its jobs made a step:\n{out.decode()}"
                out += chunk
        os.killpg(proc.pid, signal.SIGINT)
        while chunk := os.read(proc.stdout.fileno(), 1 << 16):
            out += chunk
        status = proc.wait(timeout=600)
    finally:
        os.close(events.fd)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = out.decode()
    assert status == -signal.SIGINT, text[-3000:]
    lines = _last_lines(text, 5)
    assert lines[:2] == [
        "simcore: campaign stops stopped by Ctrl-C, as planned; no job failed.",
        "simcore: its 2 jobs: 0 finished, 2 stopped with a checkpoint, 0 not started.",
    ], text[-3000:]
    assert lines[3:] == ["simcore: the same command resumes it:", _resume_line(cmd)]
    for block in (0, 1):
        ckpt = tmp_path / "results" / "stops" / "runs" / P64 / f"b{block}.nc.ckpt"
        history = [str(line) for line in load_checkpoint(ckpt)["history"]]
        assert "interrupted (Ctrl-C), checkpoint written" in history[-1], history
    assert text.count("interrupted (Ctrl-C), killed by SIGINT: a planned stop") == 2
    assert "CalledProcessError" not in text and "did not complete successfully" not in text


@pytest.mark.slow
@needs_snakemake
def test_failures_beside_a_planned_stop_read_as_failures(tmp_path: Path) -> None:
    """One command, max_wall=0, --keep-going: simulate b0 stops as planned, simulate b1
    crashes on a corrupt checkpoint (exit status 2), and the aggregate job of the other
    point fails on a corrupt run file.  The command is a failure: Snakemake's own ending
    and exit status 1, the crash's full report (its exception with the command and run
    config, its error block with the shell command), a summary naming both failed jobs
    with their statuses and logs, and neither a planned stop's summary nor an offer to
    resume.  Only b0's report is short."""
    _write_campaign(tmp_path)
    results = tmp_path / "results" / "stops"
    for name, text in [(f"runs/{P32}/b1.nc.ckpt", "not a checkpoint"),
                       (f"runs/{P64}/b0.nc", "not a run file"),
                       (f"jobs/{P64}/b0.yaml", "model: kpz\n")]:  # fmt: skip
        (results / name).parent.mkdir(parents=True, exist_ok=True)
        (results / name).write_text(text)
    cmd = _command(tmp_path, "datasets", "--configfile", str(tmp_path / "c.yaml"),
                   "--cores", "2", "--keep-going", "--config", "max_wall=0")  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 1, res.stderr[-3000:]
    assert _last_lines(res.stderr, 2) == [
        "WorkflowError:",
        "At least one job did not complete successfully.",
    ]
    summary = [line for line in res.stderr.splitlines() if line.startswith("simcore:  ")]
    assert sorted(summary) == [  # in the order they failed
        f"simcore:   aggregate results/stops/datasets/{P64}.nc: exit status 2 "
        f"(log: results/stops/logs/aggregate/{P64}.log)",
        f"simcore:   simulate {P32} b1: exit status 2 "
        f"(log: results/stops/logs/simulate/{P32}/b1.log)",
    ], res.stderr[-3000:]
    assert "simcore: campaign stops stopped on a failure: 2 jobs failed:" in res.stderr
    commands = re.findall(r"Command 'set -euo pipefail;.*?' (?:returned non-zero exit status "
                          r"-?\d+|died with <[^>]*>)\.", res.stderr, re.DOTALL)  # fmt: skip
    crash = [text for text in commands if f"--out results/stops/runs/{P32}/b1.nc " in text]
    assert len(crash) == 1 and "seed: " in crash[0]
    assert crash[0].endswith("returned non-zero exit status 2.")
    blocks = {}
    for text in res.stderr.split("Error in rule simulate:")[1:]:
        output = next(line for line in text.splitlines() if line.startswith("    output: "))
        blocks[output.split(",")[0].rsplit("/", 1)[1]] = text[: text.index("Logfile")]
    assert "    shell:" in blocks["b1.nc"] and "    shell:" not in blocks["b0.nc"]
    assert f"simulate job {P32} b0 stopped with a checkpoint" in res.stderr
    for text in ["as planned", "resumes it", "no job failed"]:
        assert text not in res.stderr
