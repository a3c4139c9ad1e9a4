"""beta_eff of two kpz points compared time by time, for the README.

``python -m analysis.kpz_beta_compare REFERENCE.nc OTHER.nc [OTHER.nc ...]``

(the first file given is the reference)

prints a Markdown table with one row per other point and window t_eff >= t_lower
(:data:`COMPARE_T_LOWERS`): the number of times where both have a finite beta_eff, the
chi2 per value of their differences in combined standard deviations, its p-value, the
largest single difference (in standard deviations, and at which t_eff), and whether the
two agree: the p-value is at least :data:`AGREE_P`.  Why: a larger lattice shows whether
the smaller one has a finite-size effect up to its last time (kelling2017's Fig. 6 at
L = 2^14 against 2^13), and another scheme whether corrections to scaling differ.

The points are independent runs, so the difference at each time has the variance of the
two errors added.  The chi2 is diagonal: successive beta_eff of one point share a width
W2(t), which the sum ignores, as the fits' chi2 does (:mod:`analysis.kpz_plateau`); the
p-value is a guide, the largest single difference its check.

Exit status: 0 printed; 2 bad input (a file that cannot be read, is not a kpz analysis
with beta_eff, or has other sampling times than the reference), one line on stderr.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np
import xarray as xr

from analysis.kpz_betafit import point_label
from analysis.kpz_plateau import PLATEAU_T_LOWER
from analysis.plotting import load_datasets, require_variables, source_of
from analysis.table_cli import table_main, window_table
from simcore.interrupt import run_main

__all__ = ["AGREE_P", "COMPARE_T_LOWERS", "beta_eff_agreement", "chi2_p_value",
           "compare_table", "main"]  # fmt: skip

#: The windows compared: every time, and the plateau window of :mod:`analysis.kpz_plateau`.
COMPARE_T_LOWERS = (0.0, PLATEAU_T_LOWER)
#: Two points agree in a window where the chi2 of their differences has at least this
#: p-value.
AGREE_P = 0.05

#: The variables of an analysis file that the comparison reads.
COMPARE_VARIABLES = ("beta_eff", "beta_eff_err")


def chi2_p_value(chi2: float, dof: int) -> float:
    """The probability that a chi2 of ``dof`` degrees of freedom is at least ``chi2``
    (the closed forms of the upper regularized gamma function for integer dof)."""
    if dof < 1:
        raise ValueError(f"dof: {dof} must be >= 1")
    x = max(chi2, 0.0) / 2.0
    if dof % 2 == 0:
        terms, term = 1.0, 1.0
        for i in range(1, dof // 2):
            term *= x / i
            terms += term
        return math.exp(-x) * terms
    p = math.erfc(math.sqrt(x))
    term = math.sqrt(x / math.pi) * 2.0
    for i in range(1, (dof + 1) // 2):
        p += math.exp(-x) * term
        term *= x / (i + 0.5)
    return p


def beta_eff_agreement(ref: xr.Dataset, other: xr.Dataset, t_lower: float) -> dict[str, float]:
    """The difference of ``other``'s beta_eff from ``ref``'s over t_eff >= ``t_lower``:
    ``n`` values where both are finite, ``chi2`` of the differences in combined standard
    deviations, its ``p`` value, the largest ``max_sigma`` (signed) and its ``t_at_max``.
    ``ValueError`` where the two have other t_eff."""
    t = ref["t_eff"].values
    if other["t_eff"].shape != t.shape or not np.allclose(other["t_eff"].values, t):
        raise ValueError(f"{source_of(other)}: other sampling times than {source_of(ref)}")
    diff = other["beta_eff"].values - ref["beta_eff"].values
    sigma = np.hypot(other["beta_eff_err"].values, ref["beta_eff_err"].values)
    use = (t >= t_lower) & np.isfinite(diff) & np.isfinite(sigma) & (sigma > 0)
    n = int(use.sum())
    if n == 0:
        nan = float("nan")
        return {"n": 0, "chi2": nan, "p": nan, "max_sigma": nan, "t_at_max": nan}
    z = diff[use] / sigma[use]
    k = int(np.argmax(np.abs(z)))
    chi2 = float((z**2).sum())
    return {"n": n, "chi2": chi2, "p": chi2_p_value(chi2, n), "max_sigma": float(z[k]),
            "t_at_max": float(t[use][k])}  # fmt: skip


def _rows(ref: xr.Dataset, ds: xr.Dataset) -> list[list[str]]:
    """One row per window of :data:`COMPARE_T_LOWERS`: ``ds`` against ``ref``."""
    rows = []
    for t_lower in COMPARE_T_LOWERS:
        a = beta_eff_agreement(ref, ds, t_lower)
        window = "all" if t_lower <= 0 else f">= {t_lower:g}"
        if a["n"] == 0:
            rows.append([point_label(ds), point_label(ref), window, "0", *"----"])
            continue
        verdict = "agree" if a["p"] >= AGREE_P else "differ"
        largest = f"{a['max_sigma']:+.1f} sigma at {a['t_at_max']:.4g}"
        chi2 = f"{a['chi2'] / a['n']:.2f}"
        rows.append([point_label(ds), point_label(ref), window, f"{a['n']}", chi2,
                     f"{a['p']:.2f}", largest, verdict])  # fmt: skip
    return rows


def compare_table(paths: Sequence[str | os.PathLike[str]]) -> str:
    """The Markdown table of beta_eff of the analyses ``paths[1:]`` against ``paths[0]``:
    one row per other point and window.  ``ValueError`` naming the file for one that
    cannot be read, holds no beta_eff or has other sampling times."""
    if len(paths) < 2:
        raise ValueError("give a reference analysis and at least one other")
    what = "a kpz analysis with beta_eff"
    (ref,) = load_datasets(paths[:1])
    require_variables([ref], COMPARE_VARIABLES, what)
    head = ["point", "against", "window t_eff", "values", "chi2/values", "p",
            "largest difference", "beta_eff"]  # fmt: skip
    return window_table(paths[1:], COMPARE_VARIABLES, what, head, lambda ds: _rows(ref, ds))


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    description = (
        "Print a Markdown table of beta_eff of kpz analyses against the first one given, "
        "time by time: per point and window, chi2 of the differences in combined standard "
        f"deviations, its p-value (agree: p >= {AGREE_P:g}) and the largest difference."
    )
    return table_main(argv, "python -m analysis.kpz_beta_compare", description, compare_table)


if __name__ == "__main__":
    run_main(main, "python -m analysis.kpz_beta_compare")
