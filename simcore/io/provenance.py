"""Provenance attributes: what ran, where, with which code."""

from __future__ import annotations

import datetime as dt
import platform
import socket
import subprocess
from functools import cache
from importlib import metadata
from pathlib import Path


@cache
def simcore_version() -> str:
    """Installed simcore version; from the source tree's pyproject.toml when simcore is
    imported from a checkout without being installed (e.g. on a read-only GPU node)."""
    try:
        return metadata.version("simcore")
    except metadata.PackageNotFoundError:
        pass
    try:
        import tomllib

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        return str(tomllib.loads(pyproject.read_text())["project"]["version"])
    except (OSError, KeyError, ValueError):
        return "unknown"


@cache
def git_commit() -> str:
    """Commit of the simcore source tree (with '-dirty' if modified), or '' outside git."""
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return out + ("-dirty" if dirty else "")


@cache
def cpu_name() -> str:
    """Model name of the CPU (from /proc/cpuinfo where available)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def now_iso() -> str:
    """Current UTC time, ISO 8601."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def provenance(backend: str, device: str | None = None) -> dict[str, str]:
    """Global attributes common to every file simcore writes."""
    import numba
    import numpy

    return {
        "simcore_version": simcore_version(),
        "git_commit": git_commit(),
        "backend": backend,
        "device": device or cpu_name(),
        "hostname": socket.gethostname(),
        "created": now_iso(),
        "python_version": platform.python_version(),
        "numba_version": numba.__version__,
        "numpy_version": numpy.__version__,
    }
