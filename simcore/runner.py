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
from simcore.models.spec import ModelSpec
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
        return _run(cfg, out, limit, progress, stop, gpu)
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
    out: Path,
    max_wall: float | None,
    progress: bool,
    stop: interrupt.StopRequest,
    gpu: GPU | None,
) -> int:
    """:func:`run_job` under a :class:`~simcore.interrupt.StopRequest`, on ``gpu`` (the
    current device, claimed) for a GPU job."""
    sim = make_simulation(cfg)
    ckpt = checkpoint_path(out)
    chash = config_hash(cfg)
    bar = Progress(f"simcore {cfg.get('point') or out.name}", enabled=progress)
    wall_before = 0.0
    history: list[str] = []
    if ckpt.exists():
        try:
            saved = load_checkpoint(ckpt)
            saved_hash, saved_wall = saved.pop("config_hash"), saved.pop("wall_seconds")
            history = [str(line) for line in saved.pop("history", [])]
        except Exception as exc:  # noqa: BLE001 - truncated, not npz, not ours: all alike
            raise ConfigError(
                "--out",
                str(out),
                f"checkpoint {ckpt} cannot be read (truncated or not a checkpoint: "
                f"{type(exc).__name__}); delete it to start afresh",
            ) from None
        if str(saved_hash) != chash:
            raise ConfigError(
                "--out",
                str(out),
                f"checkpoint {ckpt} was written for another config; delete it to start afresh",
            )
        wall_before = float(saved_wall)
        state = sim.from_host({k: (int(v) if v.ndim == 0 else v) for k, v in saved.items()})
        began = f"resumed from the checkpoint at {sim.describe(state)}"
        bar.message(f"resuming from checkpoint ({sim.describe(state)})")
    else:
        state = sim.initial_state()
        began = "started from scratch"
    segment = _Segment(len(history) + 1, began)
    start = time.monotonic()
    last_ckpt = start
    interval = float(cfg["checkpoint_interval"])
    steps = 0

    def save(why: str) -> None:
        wall = wall_before + time.monotonic() - start
        host = sim.to_host(state)
        lines = [*history, segment.line(f"{why} at {sim.describe(state)}")]
        save_checkpoint(
            ckpt, {**host, "config_hash": chash, "wall_seconds": wall, "history": lines}
        )

    def interrupted() -> int:
        bar.close()
        if steps:
            save("interrupted (Ctrl-C), checkpoint written")
            kept = f"checkpoint {ckpt.name} written"
        elif ckpt.exists():
            kept = f"checkpoint {ckpt.name} kept"
        else:
            kept = "nothing written"
        resume = "; run the same command to resume" if ckpt.exists() else ""
        print(f"simcore: interrupted ({sim.describe(state)}); {kept}{resume}", file=sys.stderr)
        return EXIT_INTERRUPTED

    while not sim.done(state):
        if stop.requested:
            return interrupted()
        sim.step(state)
        steps += 1
        bar.update(sim.fraction_done(state), sim.describe(state))
        now = time.monotonic()
        if sim.done(state):
            break
        if max_wall is not None and now - start >= max_wall:
            save("stopped at the wall limit, checkpoint written")
            bar.close()
            bar.message(
                f"stopped after {now - start:.1f} s; checkpoint {ckpt.name} written, "
                "run the same command to resume"
            )
            return EXIT_CHECKPOINTED
        if now - last_ckpt >= interval:
            save("periodic checkpoint written")
            last_ckpt = now
    if stop.requested:  # during the last step: keep its state, write no run file
        return interrupted()
    bar.close()
    wall = wall_before + time.monotonic() - start
    ds = sim.to_dataset(state)
    spec = registry.get(cfg["model"])
    segments = [*history, segment.line(f"finished at {sim.describe(state)}")]
    made_by = run_provenance(cfg, spec, sim.device_name(), gpu)
    ds.attrs = run_attributes(cfg, spec, made_by, wall, segments)
    write_dataset(ds, out)
    ckpt.unlink(missing_ok=True)
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
