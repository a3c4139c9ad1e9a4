"""Two kpz runs on the same random numbers compared sample by sample, for the README.

``python -m analysis.kpz_paired REFERENCE.nc OTHER.nc``

Two run files of one seed and the same samples that differ only in the scheme (e.g.
DTrDB and its snapshot-hit variant DTrDBs) draw the same Philox numbers, so their
samples are pairs that share most of their noise.  The relative difference of the
width, W2(other) / W2(reference) - 1, averaged over the pairs, then has a standard error
far below that of either run's W2: the pairing resolves a change of the dynamics that
independent runs of the same size could not (common random numbers).  Likewise the height
autocorrelation C_h(t, s) at each waiting time.

Printed: a Markdown table with one row per sampling time (and waiting time for C_h):
the reference's mean with its standard error, the paired mean relative difference with
its standard error, and that difference in errors.  Why: a scheme variant that changes
the lattice for the same seed must show how much, in the observables the papers draw.

Exit status: 0 printed; 2 bad input (a file that cannot be read, is not a kpz run file,
or the two are not paired: other seeds, samples or times), one line on stderr.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import xarray as xr

from analysis.plotting import load_datasets, require_variables, source_of, value_error_text
from analysis.table_cli import table_main
from analysis.tables import markdown_table
from simcore.interrupt import run_main

__all__ = ["paired_differences", "paired_table", "main"]

#: The run-file attributes that must agree for two runs to share their random numbers.
PAIRED_ATTRS = ("seed", "L", "p", "q", "t_max")


def _check_paired(ref: xr.Dataset, other: xr.Dataset) -> None:
    """``ValueError`` naming ``other``'s file where it does not pair with ``ref``."""
    for key in PAIRED_ATTRS:
        if str(ref.attrs.get(key)) != str(other.attrs.get(key)):
            raise ValueError(
                f"{source_of(other)}: not paired with {source_of(ref)}: {key} "
                f"{other.attrs.get(key)} against {ref.attrs.get(key)}"
            )
    for dim in ("sample", "t"):
        if not np.array_equal(ref[dim].values, other[dim].values):
            raise ValueError(f"{source_of(other)}: not paired with {source_of(ref)}: other {dim}")


def paired_differences(ref: xr.Dataset, other: xr.Dataset, name: str) -> dict[str, np.ndarray]:
    """For the per-sample variable ``name`` (sample first): the reference's ``mean`` and
    standard error ``mean_err`` over the samples, and the mean relative difference
    ``rel`` = other / reference - 1 over the pairs with its standard error ``rel_err``;
    NaN where the reference is 0 or a value is missing.  ``ValueError`` where the two are
    not paired."""
    _check_paired(ref, other)
    a, b = ref[name].values.astype(float), other[name].values.astype(float)
    n = a.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(a != 0, b / a - 1.0, np.nan)
    return {
        "mean": a.mean(axis=0),
        "mean_err": a.std(axis=0, ddof=1) / np.sqrt(n),
        "rel": r.mean(axis=0),
        "rel_err": r.std(axis=0, ddof=1) / np.sqrt(n),
    }


def _rows(ref: xr.Dataset, other: xr.Dataset) -> list[list[str]]:
    """One row per time of W2 (t > 0), then per waiting time and time of C_h (t > s)."""
    rows = []
    t = ref["t"].values
    w = paired_differences(ref, other, "W2")
    for k in np.flatnonzero(t > 0):
        rows.append(["W2", "-", f"{t[k]:g}", *_cells(w, (k,))])
    if "C_h" in ref and "C_h" in other and ref.sizes.get("s", 0):
        c = paired_differences(ref, other, "C_h")
        for i, s in enumerate(ref["s"].values):
            for k in np.flatnonzero(t > s):
                rows.append(["C_h", f"{s:g}", f"{t[k]:g}", *_cells(c, (i, k))])
    return rows


def _cells(d: dict[str, np.ndarray], at: tuple[int, ...]) -> list[str]:
    """The reference's mean, the relative difference in percent, and it in errors."""
    rel, err = float(d["rel"][at]), float(d["rel_err"][at])
    z = f"{rel / err:+.1f}" if err > 0 else "-"
    return [value_error_text(float(d["mean"][at]), float(d["mean_err"][at])),
            value_error_text(100 * rel, 100 * err), z]  # fmt: skip


def paired_table(paths: Sequence[str | os.PathLike[str]]) -> str:
    """The Markdown table of the paired differences of run file ``paths[1]`` against
    ``paths[0]``.  ``ValueError`` naming the file for one that cannot be read, is not a
    kpz run file or is not paired with the other."""
    if len(paths) != 2:
        raise ValueError(f"give two run files, not {len(paths)}")
    ref, other = load_datasets(paths)
    require_variables([ref, other], ("W2",), "a kpz run file")
    head = ["observable", "s", "t", f"{ref.attrs.get('scheme', 'reference')} mean",
            f"{other.attrs.get('scheme', 'other')} / reference - 1 (%)", "in errors"]  # fmt: skip
    return "\n".join(markdown_table(head, _rows(ref, other)))


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    description = (
        "Print a Markdown table of two kpz run files of the same seed and samples (the "
        "first is the reference) compared pair by pair: per sampling time the mean "
        "relative difference of W2 and C_h with its standard error over the pairs."
    )
    prog = "python -m analysis.kpz_paired"
    return table_main(argv, prog, description, paired_table, ("RUN", "kpz run .nc files"))


if __name__ == "__main__":
    run_main(main, "python -m analysis.kpz_paired")
