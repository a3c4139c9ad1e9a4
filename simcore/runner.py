"""Run one job: resume from a checkpoint if there is one, step, checkpoint, write atomically."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from simcore import interrupt
from simcore.backends import placement
from simcore.backends.placement import GPU
from simcore.checks import ConfigError
from simcore.io.atomic import check_writable
from simcore.io.checkpoint import checkpoint_path, load_checkpoint, save_checkpoint
from simcore.io.dataset import run_attributes, write_dataset
from simcore.io.provenance import (
    config_hash,
    model_provenance,
    now_iso,
    provenance,
    simcore_version,
)
from simcore.memory import (
    OutOfMemory,
    check_device_memory,
    check_host_memory,
    out_of_memory_where,
    ran_out,
)
from simcore.models import make_simulation, registry
from simcore.models.spec import ModelSpec, Simulation
from simcore.progress import Progress

#: Exit statuses of ``simcore run`` (bad input, a ConfigError, is 2: see simcore.cli).
EXIT_OK = 0
EXIT_CHECKPOINTED = 3
#: Stopped by Ctrl-C (SIGINT): 130, as shells report it.
EXIT_INTERRUPTED = interrupt.EXIT_INTERRUPTED


def run_job(
    cfg: dict,
    out: str | Path,
    *,
    max_wall: float | None = None,
    stop_at: float | None = None,
    progress: bool = True,
    hold_gpu: bool = False,
) -> int:
    """Run the job ``cfg`` (validated) to ``out``; returns an exit status.

    A GPU job runs on a card no other simcore job of this host holds
    (:mod:`simcore.backends.placement`), waiting for one while all are held; waiting
    counts against the wall limit.  The card is released when the job ends, or with
    ``hold_gpu`` (``simcore run``, one job per process) only when the process ends, after
    its CUDA context.

    ``EXIT_OK``: ``out`` written and the checkpoint removed.
    ``EXIT_CHECKPOINTED``: the wall limit was reached: ``max_wall`` seconds after the
    start, or the time ``stop_at`` (seconds since the epoch: the end of a batch
    allocation, which a campaign sets for all its jobs), whichever comes first.  It is
    checked after every step, so each call makes at least one step; the state is in the
    checkpoint beside ``out`` and the same call resumes it bit-identically.
    Every call is one segment of the run: the checkpoint carries the segments so far and
    the run file lists them in its CF ``history`` attribute (``run_segments`` counts
    them), so a run's file shows when it started from scratch and where it resumed.
    ``EXIT_INTERRUPTED``: Ctrl-C.  The step under way is finished, so the state is
    consistent, and a checkpoint is written whenever a step was done since the start
    (however recently the last periodic one was: no finished step is lost); the same
    call resumes it bit-identically.  Nothing is written at ``out``.  A second Ctrl-C
    raises :class:`KeyboardInterrupt` at once (the CLI turns it into one line, exit 130);
    an older checkpoint is then left as it was.  A Ctrl-C while the finished run's file
    is being written lets the write complete (``EXIT_OK``).
    """
    with interrupt.StopRequest() as stop:
        limit = _wall_limit(max_wall, stop_at)
        deadline = None if limit is None else time.monotonic() + limit
        out = Path(out)
        try:
            check_writable(out)
        except OSError as exc:
            raise ConfigError("--out", str(out), f"cannot write there: {exc}") from None
        spec = registry.get(cfg["model"])
        if cfg["backend"] != "gpu":
            check_host_memory(cfg, spec)
            return _guarded(cfg, spec, out, deadline, progress, stop, None)
        return _on_a_free_gpu(cfg, spec, out, deadline, progress, stop, hold_gpu)


def _on_a_free_gpu(
    cfg: dict,
    spec: ModelSpec,
    out: Path,
    deadline: float | None,
    progress: bool,
    stop: interrupt.StopRequest,
    hold_gpu: bool,
) -> int:
    """:func:`_run` on a card that no other simcore job of this host holds, waiting for
    one if all are held (see :func:`run_job`)."""
    from simcore.backends.cuda import gpu_free_bytes, require_gpu, use_gpu, visible_gpus

    require_gpu()

    def give_up() -> bool:
        return stop.requested or (deadline is not None and time.monotonic() >= deadline)

    def say(line: str) -> None:
        print(f"simcore: {line}", file=sys.stderr, flush=True)

    try:
        held = placement.claim(visible_gpus(), 1, should_stop=give_up, on_wait=say)
    except placement.WaitStopped as exc:
        resume = "; run the same command to resume" if checkpoint_path(out).exists() else ""
        if stop.requested:
            say(f"interrupted ({exc}); nothing written{resume}")
            return EXIT_INTERRUPTED
        say(f"{exc} until the wall limit; nothing written{resume}")
        return EXIT_CHECKPOINTED
    try:
        (gpu,) = held.gpus
        use_gpu(gpu)
        if progress:
            say(f"on {gpu.label()}")
        check_host_memory(cfg, spec)
        check_device_memory(cfg, spec, gpu_free_bytes())
        return _guarded(cfg, spec, out, deadline, progress, stop, gpu)
    finally:
        if hold_gpu:
            held.hold_until_exit()
        else:
            held.release()


def _guarded(
    cfg: dict,
    spec: ModelSpec,
    out: Path,
    deadline: float | None,
    progress: bool,
    stop: interrupt.StopRequest,
    gpu: GPU | None,
) -> int:
    """:func:`_run` with the wall time left until ``deadline``; an allocation that fails
    (host or GPU) becomes one line (:class:`~simcore.memory.OutOfMemory`)."""
    limit = None if deadline is None else deadline - time.monotonic()
    try:
        return _run(cfg, spec, out, limit, progress, stop, gpu)
    except Exception as exc:
        where = out_of_memory_where(exc)
        if where is None:
            raise
        raise OutOfMemory(ran_out(cfg, spec, exc, where)) from None


def _wall_limit(max_wall: float | None, stop_at: float | None) -> float | None:
    """Seconds from now until the run must stop (None: no limit): the earlier of
    ``max_wall`` and the epoch time ``stop_at``."""
    limits = [float(max_wall)] if max_wall is not None else []
    if stop_at is not None:
        limits.append(float(stop_at) - time.time())
    return min(limits) if limits else None


def _run(
    cfg: dict,
    spec: ModelSpec,
    out: Path,
    max_wall: float | None,
    progress: bool,
    stop: interrupt.StopRequest,
    gpu: GPU | None,
) -> int:
    """:func:`run_job` under a :class:`~simcore.interrupt.StopRequest`, on ``gpu`` (the
    current device, claimed) for a GPU job: the job built by ``spec``, resumed from its
    checkpoint (:func:`_resume`), stepped (:func:`_loop`), its run file written
    (:func:`_finish`)."""
    run = _resume(make_simulation(cfg, spec), cfg, out, progress)
    status = _loop(run, max_wall, float(cfg["checkpoint_interval"]), stop)
    if status is not None:
        return status
    return _finish(run, cfg, spec, gpu)


class _Run:
    """One call of :func:`run_job` under way: the job, its state, its checkpoint and what
    the resume, the loop and the finish share (``state``, ``segment`` and ``start`` from
    :meth:`begin` on)."""

    state: dict
    segment: _Segment
    #: ``time.monotonic()`` when this call began stepping (its segment's start).
    start: float

    def __init__(self, sim: Simulation, cfg: dict, out: Path, progress: bool):
        self.sim, self.out = sim, out
        self.ckpt = checkpoint_path(out)
        self.chash = config_hash(cfg)
        self.bar = Progress(f"simcore {cfg.get('point') or out.name}", enabled=progress)
        #: Wall seconds and history lines of the earlier segments (from the checkpoint).
        self.wall_before = 0.0
        self.history: list[str] = []
        #: Steps made by this call.
        self.steps = 0

    def begin(self, state: dict, began: str) -> None:
        """Start this segment from ``state`` (``began``: how, for its history line)."""
        self.state = state
        self.segment = _Segment(len(self.history) + 1, began)
        self.start = time.monotonic()

    def wall(self) -> float:
        """Wall seconds of the run so far, earlier segments included."""
        return self.wall_before + time.monotonic() - self.start

    def segments(self, ended: str) -> list[str]:
        """The history lines of the run, this segment ended now as ``ended`` says."""
        return [*self.history, self.segment.line(f"{ended} at {self.sim.describe(self.state)}")]

    def save(self, why: str) -> None:
        """Write the checkpoint of the current state (``why``: how the segment ends)."""
        wall = self.wall()
        host = self.sim.to_host(self.state)
        lines = self.segments(why)
        save_checkpoint(
            self.ckpt, {**host, "config_hash": self.chash, "wall_seconds": wall, "history": lines}
        )

    def interrupted(self) -> int:
        """Stop at Ctrl-C: the checkpoint written if a step was made, one line said."""
        self.bar.close()
        ckpt = self.ckpt
        if self.steps:
            self.save("interrupted (Ctrl-C), checkpoint written")
            kept = f"checkpoint {ckpt.name} written"
        elif ckpt.exists():
            kept = f"checkpoint {ckpt.name} kept"
        else:
            kept = "nothing written"
        resume = "; run the same command to resume" if ckpt.exists() else ""
        where = self.sim.describe(self.state)
        print(f"simcore: interrupted ({where}); {kept}{resume}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _resume(sim: Simulation, cfg: dict, out: Path, progress: bool) -> _Run:
    """The run of ``sim`` at its start: from the checkpoint beside ``out`` if there is
    one (written for this very config), else from the job's initial state."""
    run = _Run(sim, cfg, out, progress)
    ckpt = run.ckpt
    if not ckpt.exists():
        run.begin(sim.initial_state(), "started from scratch")
        return run
    try:
        saved = load_checkpoint(ckpt)
        saved_hash, saved_wall = saved.pop("config_hash"), saved.pop("wall_seconds")
        run.history = [str(line) for line in saved.pop("history", [])]
    except Exception as exc:  # noqa: BLE001 - truncated, not npz, not ours: all alike
        raise ConfigError(
            "--out",
            str(out),
            f"checkpoint {ckpt} cannot be read (truncated or not a checkpoint: "
            f"{type(exc).__name__}); delete it to start afresh",
        ) from None
    if str(saved_hash) != run.chash:
        raise ConfigError(
            "--out",
            str(out),
            f"checkpoint {ckpt} was written for another config; delete it to start afresh",
        )
    run.wall_before = float(saved_wall)
    state = sim.from_host({k: (int(v) if v.ndim == 0 else v) for k, v in saved.items()})
    began = f"resumed from the checkpoint at {sim.describe(state)}"
    run.bar.message(f"resuming from checkpoint ({sim.describe(state)})")
    run.begin(state, began)
    return run


def _loop(
    run: _Run, max_wall: float | None, interval: float, stop: interrupt.StopRequest
) -> int | None:
    """Step the job until it is done (None), checkpointing every ``interval`` seconds;
    the exit status where it stops before: the wall limit ``max_wall`` (seconds after
    the start) or Ctrl-C."""
    sim, state = run.sim, run.state
    last_ckpt = run.start
    while not sim.done(state):
        if stop.requested:
            return run.interrupted()
        sim.step(state)
        run.steps += 1
        run.bar.update(sim.fraction_done(state), sim.describe(state))
        now = time.monotonic()
        if sim.done(state):
            break
        if max_wall is not None and now - run.start >= max_wall:
            run.save("stopped at the wall limit, checkpoint written")
            run.bar.close()
            run.bar.message(
                f"stopped after {now - run.start:.1f} s; checkpoint {run.ckpt.name} written, "
                "run the same command to resume"
            )
            return EXIT_CHECKPOINTED
        if now - last_ckpt >= interval:
            run.save("periodic checkpoint written")
            last_ckpt = now
    if stop.requested:  # during the last step: keep its state, write no run file
        return run.interrupted()
    return None


def _finish(run: _Run, cfg: dict, spec: ModelSpec, gpu: GPU | None) -> int:
    """Write the finished job's run file (its results, provenance and history) and
    remove the checkpoint."""
    run.bar.close()
    wall = run.wall()
    sim = run.sim
    ds = sim.to_dataset(run.state)
    segments = run.segments("finished")
    made_by = run_provenance(cfg, spec, sim.device_name(), gpu)
    ds.attrs = run_attributes(cfg, spec, made_by, wall, segments)
    write_dataset(ds, run.out)
    run.ckpt.unlink(missing_ok=True)
    return EXIT_OK


def run_provenance(
    cfg: dict, spec: ModelSpec, device_name: str | None, gpu: GPU | None = None
) -> dict[str, str]:
    """The provenance attributes of a run file: simcore's code and the machine
    (:func:`~simcore.io.provenance.provenance`); for a GPU run the card, by UUID and PCI
    bus id, whatever its index; and the model's own code (``model_distribution``,
    ``model_version``, ``model_commit`` of the distribution whose entry point provides
    it), so that a changed plug-in is as visible as a changed simcore."""
    made_by = provenance(cfg["backend"], device_name)
    if gpu is not None:
        made_by.update(device_uuid=gpu.uuid, device_pci_bus_id=gpu.pci_bus_id)
    made_by.update(model_provenance(registry.distribution(spec.name)))
    return made_by


class _Segment:
    """One call of :func:`run_job` on a run: its number, start and how it began, for the
    history lines of the checkpoint and the run file."""

    def __init__(self, number: int, began: str):
        self.number, self.began, self.start = number, began, now_iso()
        self.version = simcore_version()

    def line(self, ended: str) -> str:
        """The history line of this segment, ended now as ``ended`` says (CF: a time
        stamp first, then what was done)."""
        return (
            f"{self.start} to {now_iso()} simcore {self.version} run segment {self.number}: "
            f"{self.began}; {ended}"
        )
