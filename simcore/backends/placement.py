"""Which GPU a job runs on: every GPU job of a host claims a card no other job holds.

Snakemake's ``--resources gpu=N`` only counts: it lets N GPU jobs run at once but does
not say which card each one takes, and every CUDA process starts on device 0.  So a job
claims its card itself, whoever started it (Snakemake, a shell, a second campaign beside
the first): it takes an exclusive ``flock`` on one lock file per card, named by the
card's UUID, in a folder every process of the host sees (:func:`lock_dir`).  The kernel
releases the lock when the process ends, however it ends (SIGKILL and power loss
included), so no stale claim outlives its job.  Locks are keyed by UUID, not by index,
so two jobs that see the cards under different ``CUDA_VISIBLE_DEVICES`` still meet on
the same lock.

The cards a job may claim are those CUDA shows it: ``CUDA_VISIBLE_DEVICES`` (Slurm's, or
the user's) is respected because CUDA itself applies it.  A job that needs several
cards (ea3d on several GPUs) claims them all or none, so two such jobs never each hold
half of what the other needs.  A job that finds every card taken waits for one and says
so once.

This module knows nothing of CUDA: it claims from a list of :class:`GPU` records, which
:func:`simcore.backends.cuda.visible_gpus` makes from the devices CUDA shows (tests pass
lists of their own).
"""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from simcore.checks import ConfigError

#: Environment variable naming the folder of the per-card lock files (default: a
#: folder in the system's temporary directory, shared by every user of the host).
LOCK_DIR_ENV = "SIMCORE_GPU_LOCK_DIR"

#: Seconds between two looks for a free card while every card is taken.
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class GPU:
    """One card as this process sees it: its CUDA ordinal here (after
    ``CUDA_VISIBLE_DEVICES``), and what names it on the host whatever the ordinal."""

    ordinal: int
    uuid: str
    pci_bus_id: str
    name: str

    def label(self) -> str:
        """How log lines name the card: ``GPU 1 (NVIDIA H100, GPU-5e2c..., 0000:19:00.0)``."""
        return f"GPU {self.ordinal} ({self.name}, {self.uuid}, {self.pci_bus_id})"


class WaitStopped(Exception):
    """The wait for a free card was given up: the job's stop time came or Ctrl-C."""


def lock_dir(directory: Path | None = None) -> Path:
    """The folder of the per-card lock files (made if missing): ``directory``, else
    ``$SIMCORE_GPU_LOCK_DIR``, else ``simcore-gpu-locks`` in the system's temporary folder,
    which is made writable by every user (sticky, as /tmp), so the jobs of all users of a
    host share it."""
    given = str(directory) if directory is not None else os.environ.get(LOCK_DIR_ENV, "")
    given = given.strip()
    path = Path(given) if given else Path(tempfile.gettempdir()) / "simcore-gpu-locks"
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not given:
            os.chmod(path, 0o1777)
    except PermissionError:
        pass  # another user made it; it is usable if it is writable, checked on open
    except OSError as exc:
        raise ConfigError(
            LOCK_DIR_ENV, str(path), f"cannot make the GPU lock folder there: {exc.strerror}"
        ) from None
    return path


#: Lock files of claims held until the process ends (:meth:`Claim.hold_until_exit`).
_HELD: list[list[int]] = []


class Claim:
    """Cards held by this process: their lock files stay locked until :meth:`release`
    (or the process's end)."""

    def __init__(self, gpus: list[GPU], fds: list[int]):
        self.gpus = gpus
        self._fds = fds

    def hold_until_exit(self) -> None:
        """Keep the cards until this process ends, when the kernel closes its files in
        the order of their numbers: the lock files are moved to high numbers, above the
        CUDA driver's, so a card is free again only once this process's context on it is
        gone (the next job never meets it, in nvidia-smi or in the card's free memory)."""
        import resource

        high = max(min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 4096) - 64, 3)
        moved = []
        for fd in self._fds:
            try:
                moved.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, high))
                os.close(fd)
            except OSError:
                moved.append(fd)  # kept where it is: released at exit all the same
        _HELD.append(moved)
        self._fds = []

    def release(self) -> None:
        """Unlock and close the lock files (idempotent)."""
        for fd in self._fds:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        self._fds = []


def _lock_one(directory: Path, gpu: GPU) -> int | None:
    """The fd of ``gpu``'s lock file, locked by us; None when another process holds it."""
    path = directory / f"{gpu.uuid}.lock"
    try:
        # read-only suffices for flock, so a file another user made is lockable too
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise ConfigError(
            LOCK_DIR_ENV, str(directory), f"cannot open the GPU lock file {path.name}: "
            f"{exc.strerror}; set {LOCK_DIR_ENV} to a folder every job of this host can write"
        ) from None  # fmt: skip
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return None
        raise
    return fd


def try_claim(gpus: Sequence[GPU], count: int, directory: Path) -> Claim | None:
    """Claim ``count`` of ``gpus`` now, all or none (lowest ordinals first); None when
    fewer than ``count`` are free."""
    fds: list[int] = []
    taken: list[GPU] = []
    for gpu in gpus:
        fd = _lock_one(directory, gpu)
        if fd is not None:
            fds.append(fd)
            taken.append(gpu)
            if len(taken) == count:
                return Claim(taken, fds)
    Claim(taken, fds).release()
    return None


def claim(
    gpus: Sequence[GPU],
    count: int,
    directory: Path | None = None,
    *,
    wait: bool = True,
    should_stop: Callable[[], bool] = lambda: False,
    on_wait: Callable[[str], None] | None = None,
) -> Claim:
    """Claim ``count`` cards of ``gpus`` for this process.

    ``wait``: while fewer than ``count`` are free, look again every
    :data:`POLL_SECONDS` (``on_wait`` gets one line the first time) until they are,
    or ``should_stop()`` says to give up (:class:`WaitStopped`).  Without ``wait`` a
    ConfigError says that all are taken.  Asking for more cards than are visible is a
    ConfigError at once: waiting would never end.
    """
    if count < 1:
        raise ConfigError("gpus", count, "must be >= 1")
    if count > len(gpus):
        seen = ", ".join(g.uuid for g in gpus) or "none"
        raise ConfigError(
            "gpus", count, f"more GPUs than this process sees ({len(gpus)}: {seen}); "
            "CUDA_VISIBLE_DEVICES limits them"
        )  # fmt: skip
    directory = lock_dir(directory)
    told = False
    while True:
        got = try_claim(gpus, count, directory)
        if got is not None:
            return got
        what = f"{count} of the {len(gpus)} GPU(s) visible here" if count > 1 else "a GPU"
        if not wait:
            raise ConfigError(
                "gpus", count, f"no free GPU: every one visible here is held by another simcore "
                f"job of this host (lock files in {directory})"
            )  # fmt: skip
        if should_stop():
            raise WaitStopped(f"stopped while waiting for {what}")
        if not told and on_wait is not None:
            on_wait(
                f"waiting for {what}: all are held by other simcore jobs of this host "
                f"(lock files in {directory})"
            )
            told = True
        time.sleep(POLL_SECONDS)


@contextmanager
def claimed(gpus: Sequence[GPU], count: int, **options) -> Iterator[list[GPU]]:
    """:func:`claim` as a context: the cards are released when the block ends."""
    held = claim(gpus, count, **options)
    try:
        yield held.gpus
    finally:
        held.release()


def visible_devices_value(gpus: Sequence[GPU]) -> str:
    """``CUDA_VISIBLE_DEVICES`` for child processes that must use exactly ``gpus``: their
    UUIDs, which name the cards whatever the parent's own ordering."""
    return ",".join(g.uuid for g in gpus)
