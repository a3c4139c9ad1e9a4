"""Memory a job needs against memory that is free: a run that cannot fit is refused in
one line before it allocates anything, and one whose allocation fails anyway says so in
one line too (never a numpy or CuPy traceback after minutes of work).

What a job needs comes from its model (:meth:`~simcore.models.spec.ModelSpec.work`: host
bytes of state, results and scratch; device bytes of a GPU job).  What is free on the
host is the smaller of the kernel's ``MemAvailable`` and the room left under the
process's cgroup limit (a Slurm job or a container sees its own limit there, not the
node's memory); on the GPU, the free memory of the job's card.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from simcore.checks import ConfigError
from simcore.models.spec import ModelSpec, Work


class OutOfMemory(ConfigError):
    """A run that does not fit, or ran out: ``str()`` is the one line for the user (exit
    status 2, as for any bad input)."""

    def __init__(self, message: str):
        self.key, self.value, self.reason = "memory", None, message
        ValueError.__init__(self, message)


def format_bytes(n: float) -> str:
    """``1.5 GiB``: bytes in the binary unit that keeps 1-3 digits before the point."""
    units = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    k = 0 if n < 1024 else min(int(math.log(n, 1024)), len(units) - 1)
    return f"{n / 1024**k:.0f} bytes" if k == 0 else f"{n / 1024**k:.1f} {units[k]}"


def _meminfo_available(text: str) -> int | None:
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max": no limit


def cgroup_room(proc_cgroup: str, root: Path = Path("/sys/fs/cgroup")) -> int | None:
    """Bytes left under the tightest memory limit of this process's cgroup and its
    parents (cgroup v2 ``memory.max - memory.current``, or v1 ``limit - usage``); None
    where no limit is set or none can be read."""
    rooms = []
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, rel = parts
        if controllers == "":  # v2: walk from the process's group up to the root
            group = root / rel.lstrip("/")
            limit_file, usage_file = "memory.max", "memory.current"
        elif "memory" in controllers.split(","):
            group = root / "memory" / rel.lstrip("/")
            limit_file, usage_file = "memory.limit_in_bytes", "memory.usage_in_bytes"
        else:
            continue
        for folder in (group, *group.parents):
            if not folder.is_relative_to(root):
                break
            limit, usage = _read_int(folder / limit_file), _read_int(folder / usage_file)
            # v1 writes "no limit" as a huge number (page-rounded 2^63)
            if limit is not None and usage is not None and limit < 2**60:
                rooms.append(max(limit - usage, 0))
    return min(rooms) if rooms else None


def host_free_bytes() -> int | None:
    """Bytes this process can still allocate on the host (None where it cannot tell)."""
    frees = []
    try:
        available = _meminfo_available(Path("/proc/meminfo").read_text())
    except OSError:
        available = None
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError):
            available = None
    if available is not None:
        frees.append(available)
    try:
        room = cgroup_room(Path("/proc/self/cgroup").read_text())
    except OSError:
        room = None
    if room is not None:
        frees.append(room)
    return min(frees) if frees else None


def describe_run(cfg: Mapping[str, Any], spec: ModelSpec) -> str:
    """``dim = 2, L = 65536, samples = 8``: the run's integer settings (its sizes) and
    its samples, which are what a user changes to make it fit."""
    sizes = [f"{k} = {cfg[k]}" for k, key in spec.keys.items()
             if key.type == "int" and key.point and cfg.get(k) is not None]  # fmt: skip
    return ", ".join([*sizes, f"samples = {cfg['samples']}"])


def job_work(cfg: Mapping[str, Any], spec: ModelSpec) -> Work:
    """The model's work estimate of a validated run config (memory is independent of the
    campaign's speed rates, so their defaults serve)."""
    return spec.work(cfg, {k: default for k, (default, _) in spec.resource_rates.items()})


def _refusal(cfg: Mapping[str, Any], spec: ModelSpec, need: float, free: int, where: str) -> str:
    return (
        f"not enough {where} memory: the run ({describe_run(cfg, spec)}) needs "
        f"{format_bytes(need)} for its state and results, and {format_bytes(free)} are "
        "free; lower the lattice size or the "
        "samples of the job (samples_per_job in a campaign)"
    )


def check_host_memory(cfg: Mapping[str, Any], spec: ModelSpec, free: int | None = None) -> None:
    """Raise :class:`OutOfMemory` if the job's host bytes exceed ``free`` (default: what
    :func:`host_free_bytes` finds; nothing is checked where it finds nothing)."""
    free = host_free_bytes() if free is None else free
    need = job_work(cfg, spec).host_bytes
    if free is not None and need > free:
        raise OutOfMemory(_refusal(cfg, spec, need, free, "host"))


def check_device_memory(cfg: Mapping[str, Any], spec: ModelSpec, free: int) -> None:
    """Raise :class:`OutOfMemory` if the GPU job's device bytes exceed the card's ``free``
    bytes."""
    need = job_work(cfg, spec).device_bytes
    if need > free:
        raise OutOfMemory(_refusal(cfg, spec, need, free, "GPU"))


def out_of_memory_where(exc: BaseException) -> str | None:
    """Where an allocation failed, if ``exc`` is a failed allocation: ``"GPU"`` for CuPy's
    ``OutOfMemoryError`` (recognised by name, so CuPy need not be imported; it is a
    MemoryError too), ``"host"`` for any other MemoryError (numpy's), else None."""
    if any(c.__name__ == "OutOfMemoryError" for c in type(exc).__mro__):
        return "GPU"
    return "host" if isinstance(exc, MemoryError) else None


def ran_out(cfg: Mapping[str, Any], spec: ModelSpec, exc: BaseException, where: str) -> str:
    """The one line for an allocation that failed although the check let the run start."""
    detail = " ".join(str(exc).split()) or type(exc).__name__
    return (
        f"out of {where} memory while running ({describe_run(cfg, spec)}): {detail}; lower "
        "the lattice size or the samples of the job (samples_per_job in a campaign)"
    )
