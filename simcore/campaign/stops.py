"""Planned stops of a campaign command: the last lines say what stopped and how to go on.

A ``snakemake`` command of a campaign stops early on purpose in two ways: the campaign key
``max_wall`` makes every simulate job stop with a checkpoint after the step under way
(``simcore run`` exit status 3), and Ctrl-C makes every job finish its step, write its
checkpoint and end by SIGINT.  Snakemake reports both as failed jobs: per job the
``CalledProcessError`` with the whole shell command (a simulate job's command holds its run
config, about 20 lines), an "Error in rule" block with the command again, and at the end
"At least one job did not complete successfully", which reads as a crash.

:class:`CampaignStops`, a :class:`logging.Filter` on Snakemake's logger, sees every record
Snakemake logs.  It

- notes each failed job (Snakemake's ``job_error`` record) with the exit status of its shell
  command (from the ``CalledProcessError`` text that Snakemake logs just before);
- shortens the records of a simulate job of this campaign that stopped as planned (exit
  status 3, or killed by SIGINT / exit status 130): the exception becomes one line, the
  error block loses the shell command (which ``--printshellcmds``, set in the default
  profile, printed when the job started) and is logged as a warning; the job's log, with
  simcore's line about its checkpoint, stays;

and :meth:`CampaignStops.finish`, called from the workflow's ``onerror`` handler, ends a
planned stop with a summary counted from the run files and checkpoints (jobs finished,
stopped with a checkpoint, not started) and the command that resumes, with exit status 3
(max_wall) or by SIGINT (Ctrl-C: a shell sees 130, and the script or loop that ran the
command stops too).

Anything else is a failure and reads as one: a job that ended with another status, a
status Snakemake did not report, a failed group job.  Its records are left exactly as
Snakemake wrote them, the summary names the failed jobs, and Snakemake ends as usual (its
error, exit status 1).  Nothing here imports Snakemake: the records are read through the
fields of Snakemake's logger-plugin interface (``event``, ``rule_name``, ``output``,
``log``, ``shellcmd``), so the module is unit-tested with plain :mod:`logging` records.
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import shlex
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from simcore.campaign.plan import NAME_PATTERN, Campaign
from simcore.interrupt import EXIT_INTERRUPTED, exit_interrupted
from simcore.io.checkpoint import checkpoint_path

#: ``simcore run``'s exit status after a wall-limit stop with a checkpoint
#: (``simcore.runner.EXIT_CHECKPOINTED``; not imported, which would load the engine into
#: Snakemake's process).  A planned stop of the campaign command exits with it too.
EXIT_CHECKPOINTED = 3

#: How a command stopped: at the campaign's wall limit, by Ctrl-C, or on a failure.
WALL = "max_wall"
INTERRUPTED = "interrupted"
FAILED = "failed"

#: Failed jobs named one by one in a failure's summary; the rest are counted.
NAMED_FAILURES = 5

# Python's CalledProcessError text (Snakemake logs it for a shell command that failed):
# "Command '...' returned non-zero exit status 3." or "... died with <Signals.SIGINT: 2>."
_STATUS = re.compile(
    r"' (?:returned non-zero exit status (-?\d+)|died with <Signals\.\w+: (\d+)>)\."
)

# Snakemake's own lines that the summary replaces on a planned stop, and the one that says
# it was interrupted (the start of the messages: their wording is Snakemake's).
_SNAKEMAKE_FAILED = "Exiting because a job execution failed"
_SNAKEMAKE_INTERRUPTED = "Terminating processes on user request"


@dataclass(frozen=True)
class JobCounts:
    """The campaign's jobs by what their files say: a run file (finished), a checkpoint
    beside the missing run file (stopped with a checkpoint: the next command resumes it),
    or neither (not started, or stopped before its first step)."""

    finished: int = 0
    checkpointed: int = 0
    not_started: int = 0

    @property
    def total(self) -> int:
        """All planned jobs."""
        return self.finished + self.checkpointed + self.not_started


def run_file(results: str | os.PathLike[str], point: str, block: int) -> Path:
    """The run file of one job under ``results`` (``results/<campaign>``), as the simulate
    rule writes it."""
    return Path(results) / "runs" / point / f"b{block}.nc"


def count_jobs(campaign: Campaign, results: str | os.PathLike[str]) -> JobCounts:
    """Count the planned jobs of ``campaign`` by their files under ``results``."""
    finished = checkpointed = not_started = 0
    for point, block in campaign.jobs():
        run = run_file(results, point, block)
        if run.exists():
            finished += 1
        elif checkpoint_path(run).exists():
            checkpointed += 1
        else:
            not_started += 1
    return JobCounts(finished, checkpointed, not_started)


def exit_status(message: str) -> int | None:
    """The exit status in the ``CalledProcessError`` text of ``message``, as
    :attr:`subprocess.Popen.returncode` gives it (``-N``: killed by signal N); None if it
    has none."""
    found = _STATUS.findall(message)
    if not found:
        return None
    code, signum = found[-1]
    return int(code) if code else -int(signum)


def describe_status(status: int | None) -> str:
    """``status`` in words: "exit status 2", "killed by SIGINT"."""
    if status is None:
        return "exit status not reported"
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


def stop_kind(rule: str, status: int | None, simulate_rule: str = "simulate") -> str | None:
    """What a job that ended with ``status`` was stopped by: :data:`WALL` (a simulate job's
    checkpoint at the wall limit), :data:`INTERRUPTED` (Ctrl-C: killed by SIGINT, or exit
    status 130, in any rule), or None (a failure)."""
    if status in (EXIT_INTERRUPTED, -int(signal.SIGINT)):
        return INTERRUPTED
    if status == EXIT_CHECKPOINTED and rule == simulate_rule:
        return WALL
    return None


@dataclass(frozen=True)
class FailedJob:
    """A job that Snakemake reported as failed: its rule, the exit status of its command
    (None: not reported), its logs, and what it is (``point bN`` of a simulate job, else
    its first output)."""

    rule: str
    status: int | None
    logs: tuple[str, ...] = ()
    name: str = ""
    stop: str | None = None

    def line(self) -> str:
        """One line for a failure's summary."""
        what = f"{self.rule} {self.name}".strip()
        logs = f" (log: {', '.join(self.logs)})" if self.logs else ""
        return f"{what}: {describe_status(self.status)}{logs}"


def outcome(failed: Sequence[FailedJob], interrupted: bool = False) -> str | None:
    """How a command with the failed jobs ``failed`` stopped: :data:`FAILED` if any of them
    is not a planned stop, else :data:`INTERRUPTED` if Snakemake or a job was interrupted,
    :data:`WALL` if jobs stopped at the wall limit, None if nothing failed and nothing was
    interrupted (Snakemake stopped for a reason of its own)."""
    if any(job.stop is None for job in failed):
        return FAILED
    if interrupted or any(job.stop == INTERRUPTED for job in failed):
        return INTERRUPTED
    return WALL if failed else None


def resume_command(argv: Sequence[str]) -> str | None:
    """The command line that ran Snakemake (``sys.argv`` of its process) as the user types
    it: ``snakemake ARGS`` (``python -m snakemake`` is the same command); None when
    Snakemake was not started from a command line."""
    if not argv:
        return None
    program = Path(argv[0])
    if program.name == "snakemake" or (
        program.name == "__main__.py" and program.parent.name == "snakemake"
    ):
        return shlex.join(["snakemake", *argv[1:]])
    return None


def summary_lines(
    campaign: str,
    kind: str | None,
    counts: JobCounts,
    failed: Sequence[FailedJob] = (),
    command: str | None = None,
    logs: Sequence[str] = (),
    rerun_incomplete: bool = True,
) -> list[str]:
    """The summary that ends a command of ``campaign`` which stopped as ``kind``
    (:func:`outcome`): what stopped it, the jobs by their files, Snakemake's log and, for a
    planned stop, the command that resumes.  Snakemake leaves the outputs of jobs that
    Ctrl-C stopped marked incomplete, so without ``--rerun-incomplete`` (``rerun_incomplete``
    False; the default profile sets it) the command to resume after Ctrl-C adds it."""
    jobs = (
        f"simcore: its {_jobs(counts.total)}: {counts.finished} finished, "
        f"{counts.checkpointed} {'stopped ' if kind in (WALL, INTERRUPTED) else ''}"
        f"with a checkpoint, {counts.not_started} not started."
    )
    if kind == FAILED:
        failures = [job for job in failed if job.stop is None]
        lines = [
            f"simcore: campaign {campaign} stopped on a failure: {_jobs(len(failures))} failed:"
        ]
        lines += [f"simcore:   {job.line()}" for job in failures[:NAMED_FAILURES]]
        if len(failures) > NAMED_FAILURES:
            lines.append(f"simcore:   ... and {len(failures) - NAMED_FAILURES} more")
        return [*lines, jobs]
    if kind not in (WALL, INTERRUPTED):
        return [f"simcore: campaign {campaign} stopped before it finished.", jobs]
    why = "at its wall limit (max_wall)" if kind == WALL else "by Ctrl-C"
    lines = [f"simcore: campaign {campaign} stopped {why}, as planned; no job failed.", jobs]
    if logs:
        lines.append(f"simcore: Snakemake's log: {', '.join(logs)}")
    flag = " --rerun-incomplete" if kind == INTERRUPTED and not rerun_incomplete else ""
    with_flag = f" with{flag}" if flag else ""
    if command is None:
        return [*lines, f"simcore: the same snakemake command{with_flag} resumes it."]
    return [*lines, f"simcore: the same command{with_flag} resumes it:", f"    {command}{flag}"]


def _jobs(n: int) -> str:
    """``n`` job(s)."""
    return f"{n} job" if n == 1 else f"{n} jobs"


class CampaignStops(logging.Filter):
    """Snakemake's failed jobs of one campaign command, planned stops told apart from
    failures (see the module's docstring).

    ``results`` is the campaign's results folder as the rules name it
    (``results/<campaign>``, relative to Snakemake's working directory), ``simulate_rule``
    the rule that runs ``simcore run JOB --out RUN`` on the run files under it and
    ``argv`` Snakemake's command line (default ``sys.argv``).
    """

    def __init__(
        self,
        campaign: Campaign,
        results: str,
        simulate_rule: str = "simulate",
        argv: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        self.campaign = campaign
        self.results = results
        self.simulate_rule = simulate_rule
        self.argv = list(sys.argv if argv is None else argv)
        #: Every job Snakemake reported as failed, in its order.
        self.failed: list[FailedJob] = []
        #: Whether Snakemake said it was stopped by Ctrl-C.
        self.interrupted = False
        self._logger: logging.Logger | None = None
        run = rf"{re.escape(results)}/runs/({NAME_PATTERN})/b(0|[1-9][0-9]*)\.nc"
        self._run = re.compile(rf"^{run}$")
        self._out = re.compile(rf"--out {run}(?:\s|$)")
        # exit statuses logged before their jobs' error blocks: by simulate job, and the
        # command text of the others
        self._job_status: dict[tuple[str, int], int] = {}
        self._other_status: list[tuple[str, int]] = []

    def install(self, logger: logging.Logger) -> CampaignStops:
        """Watch ``logger`` (Snakemake's): replaces an earlier instance on it."""
        for old in [f for f in logger.filters if isinstance(f, CampaignStops)]:
            logger.removeFilter(old)
        logger.addFilter(self)
        self._logger = logger
        return self

    # -- the records ---------------------------------------------------------------
    def filter(self, record: logging.LogRecord) -> bool:
        """Note what ``record`` says about failed jobs; shorten it if it is about a planned
        stop.  False only for Snakemake's "a job execution failed" line when every failed
        job so far stopped as planned."""
        try:
            return self._see(record)
        except Exception:  # noqa: BLE001 - never lose or break a record of Snakemake's
            return True

    def _see(self, record: logging.LogRecord) -> bool:
        event = str(getattr(record, "event", None) or "")
        if event == "error":
            self._exception(record)
        elif event == "job_error":
            self._job_error(record)
        elif event == "group_error":
            self.failed.append(FailedJob("group", None, tuple(getattr(record, "aux_logs", ()))))
        elif isinstance(record.msg, str):
            if record.msg.startswith(_SNAKEMAKE_INTERRUPTED):
                self.interrupted = True
            elif record.msg.startswith(_SNAKEMAKE_FAILED):
                return outcome(self.failed) == FAILED or not self.failed
        return True

    def _job(self, match: re.Match[str] | None) -> tuple[str, int] | None:
        """(point, block) of the planned job whose run file ``match`` found, else None."""
        if match is None:
            return None
        point, block = match.group(1), int(match.group(2))
        try:
            planned = block < self.campaign.point(point).n_blocks
        except KeyError:
            return None
        return (point, block) if planned else None

    def _exception(self, record: logging.LogRecord) -> None:
        """A failed shell command's exception: keep its status for the job's error block;
        one line instead of the command for a simulate job of this campaign that stopped
        as planned."""
        text = record.getMessage()
        status = exit_status(text)
        if status is None:
            return
        job = self._job(self._out.search(text))
        if job is None:
            self._other_status.append((text, status))
            return
        self._job_status[job] = status
        kind = stop_kind(self.simulate_rule, status, self.simulate_rule)
        if kind is not None:
            what = "stopped with a checkpoint" if kind == WALL else "interrupted (Ctrl-C)"
            point, block = job
            record.msg = (
                f"simcore: {self.simulate_rule} job {point} b{block} {what}, "
                f"{describe_status(status)}: a planned stop"
            )
            record.args = ()
            _as_warning(record)

    def _job_error(self, record: logging.LogRecord) -> None:
        """A failed job's error block: note the job with its status; without its shell
        command for a planned stop of a simulate job."""
        rule = str(getattr(record, "rule_name", ""))
        outputs = [str(f).split(" ")[0] for f in getattr(record, "output", None) or ()]
        logs = tuple(str(f) for f in getattr(record, "log", None) or ())
        job = None
        if rule == self.simulate_rule:
            jobs = (self._job(self._run.match(path)) for path in outputs)
            job = next((j for j in jobs if j is not None), None)
        if job is not None:
            status = self._job_status.pop(job, None)
            name = f"{job[0]} b{job[1]}"
        else:
            status = self._pop_other(getattr(record, "shellcmd", None))
            name = outputs[0] if outputs else ""
        kind = stop_kind(rule, status, self.simulate_rule)
        self.failed.append(FailedJob(rule, status, logs, name, kind))
        if job is not None and kind is not None:
            record.shellcmd = None
            _as_warning(record)

    def _pop_other(self, shellcmd: str | None) -> int | None:
        """The status noted for the command ``shellcmd`` (Snakemake's exception text holds
        the command), forgotten once taken; None if there is none."""
        if not shellcmd:
            return None
        for i, (text, status) in enumerate(self._other_status):
            if shellcmd in text:
                del self._other_status[i]
                return status
        return None

    # -- the end -------------------------------------------------------------------
    def finish(self, logs: Sequence[str] = (), rerun_incomplete: bool = True) -> None:
        """End a command that did not finish (Snakemake's ``onerror``; ``logs``: its log
        files, ``rerun_incomplete``: whether it runs with ``--rerun-incomplete``).

        A planned stop logs the summary and ends the process here, with exit status 3
        (max_wall) or by SIGINT (Ctrl-C), so that the summary is the last thing printed;
        after a failure it logs the summary as an error and returns, and Snakemake ends as
        usual."""
        kind = outcome(self.failed, self.interrupted)
        lines = summary_lines(
            self.campaign.name,
            kind,
            count_jobs(self.campaign, self.results),
            self.failed,
            resume_command(self.argv),
            [os.path.abspath(p) for p in logs],
            rerun_incomplete,
        )
        logger = self._logger or logging.getLogger(__name__)
        if kind == FAILED:
            logger.error("\n".join(lines))
            return
        if kind is None:
            logger.warning("\n".join(lines))
            return
        logger.warning("\n".join(lines))
        if kind == INTERRUPTED:
            # end by SIGINT once Snakemake has unwound (lock released, logs closed)
            atexit.register(exit_interrupted)
            raise SystemExit(EXIT_INTERRUPTED)
        raise SystemExit(EXIT_CHECKPOINTED)


def _as_warning(record: logging.LogRecord) -> None:
    """Log ``record`` as a warning (a planned stop is no error)."""
    record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
