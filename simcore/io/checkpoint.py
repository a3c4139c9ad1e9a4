"""Checkpoints: the whole state of a job as one .npz, written atomically.

A checkpoint holds plain arrays and integers only; since every random number
is a function of counters, restoring them resumes bit-identically.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simcore.io.atomic import atomic_path


def checkpoint_path(out: str | Path) -> Path:
    """Where the checkpoint of the run writing ``out`` lives."""
    out = Path(out)
    return out.with_name(out.name + ".ckpt")


def save_checkpoint(path: str | Path, state: dict[str, np.ndarray | int | float | str]) -> None:
    """Write ``state`` atomically to ``path``."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **{k: np.asarray(v) for k, v in state.items()})


def load_checkpoint(path: str | Path) -> dict[str, np.ndarray]:
    """Read a checkpoint written by :func:`save_checkpoint`."""
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k].copy() for k in data.files}
