"""Provenance attributes: what ran, where, with which code (simcore's, and the model's:
the distribution that provides it, its version and, where known, its commit), and the
hash of the run config a run file and its checkpoints were made from."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import platform
import re
import socket
import subprocess
from functools import cache
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

#: The distribution name of simcore itself (its models' run files name it).
SIMCORE_DISTRIBUTION = "simcore"
#: ``model_distribution`` of a model registered in-process (no installed distribution).
IN_PROCESS = "none (registered in-process)"


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
def git_commit_of(directory: str) -> str:
    """Commit of the git checkout holding ``directory``, with '-dirty' if a tracked file
    under ``directory`` is modified; '' where it is in no checkout (or git is missing)."""
    try:
        out = subprocess.run(
            ["git", "-C", directory, "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", directory, "status", "--porcelain", "--untracked-files=no", "--", "."],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return out + ("-dirty" if dirty else "")


def git_commit() -> str:
    """Commit of the simcore source tree (with '-dirty' if modified), or '' outside git."""
    return git_commit_of(str(Path(__file__).resolve().parents[2]))


def installed_commit(dist: metadata.Distribution) -> str:
    """The commit a distribution was installed from, by its ``direct_url.json`` (PEP 610):
    a VCS install's recorded ``commit_id``; for an editable install of a local folder,
    that folder's git commit now (with '-dirty', :func:`git_commit_of`), since the code
    that runs is the folder's.  '' otherwise: an install from an index, an archive or a
    copy of a folder cannot say which commit it was."""
    try:
        text = dist.read_text("direct_url.json")
        info = json.loads(text) if text else {}
    except (OSError, ValueError):
        return ""
    if not isinstance(info, dict):
        return ""
    vcs = info.get("vcs_info")
    if isinstance(vcs, dict):
        return str(vcs.get("commit_id", ""))
    url = urlparse(str(info.get("url", "")))
    editable = isinstance(info.get("dir_info"), dict) and info["dir_info"].get("editable")
    if editable and url.scheme == "file":
        return git_commit_of(unquote(url.path))
    return ""


def model_provenance(dist: metadata.Distribution | None) -> dict[str, str]:
    """The run-file attributes of the code of a model: ``model_distribution`` (the name of
    the distribution that provides it; :data:`IN_PROCESS` for a model registered in-process,
    which has none), ``model_version`` and ``model_commit`` ('' where not known).

    simcore's own models get simcore's version and :func:`git_commit`, the same commit as
    the file's ``git_commit``; a plug-in's commit is :func:`installed_commit`'s.
    """
    if dist is None:
        return {"model_distribution": IN_PROCESS, "model_version": "", "model_commit": ""}
    name = str(dist.metadata["Name"] or "")
    if normalized_name(name) == SIMCORE_DISTRIBUTION:
        return {"model_distribution": name, "model_version": simcore_version(),
                "model_commit": git_commit()}  # fmt: skip
    return {"model_distribution": name, "model_version": str(dist.version or ""),
            "model_commit": installed_commit(dist)}  # fmt: skip


def normalized_name(name: str) -> str:
    """A distribution name in its normal form (PEP 503: lower case, runs of ``-_.`` as
    ``-``), to compare names however a project spells its own."""
    return re.sub(r"[-_.]+", "-", name).lower()


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


def config_hash(cfg: dict) -> str:
    """Stable hash of the physics-relevant config (checkpoints must match it to resume)."""
    keep = {k: v for k, v in cfg.items() if k != "checkpoint_interval"}
    text = json.dumps(keep, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
