"""The table of the plateau fits of beta_eff, for the README.

``python -m analysis.kpz_plateau_table ANALYSIS.nc [ANALYSIS.nc ...]``

prints a Markdown table with one row per point and plateau window of the kpz analyses
given (:mod:`analysis.kpz_plateau` stores, for each window t_eff >= t_lower, the weighted
mean of beta_eff and its slope per decade of t, with jackknife errors): the point, the
window, the number of beta_eff values, the plateau's value, its slope, whether beta_eff
is flat there (the slope within :data:`analysis.kpz_betafit.AGREE_SIGMAS` errors of 0)
or still rises or falls, the diagonal chi2/dof of the constant, and the value against
kelling2017's asymptotic 0.2415(15) and 0.2414(2) in combined standard deviations.  Why
a table: it is the statement on kelling2017's plateau in numbers a reader can check.

Exit status: 0 printed; 2 bad input (a file that cannot be read or is not a kpz analysis
with the plateau fits), one line on stderr.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import xarray as xr

from analysis.kpz_betafit import (
    AGREE_SIGMAS,
    REFERENCES,
    compare,
    number_text,
    point_label,
    why_not,
)
from analysis.table_cli import table_main, window_table
from simcore.interrupt import run_main

__all__ = ["PLATEAU_VARIABLES", "flatness", "main", "plateau_table"]

#: The variables of an analysis file that the table reads.
PLATEAU_VARIABLES = (
    "beta_plateau",
    "beta_plateau_err",
    "beta_plateau_slope",
    "beta_plateau_slope_err",
    "beta_plateau_chi2_per_dof",
    "beta_plateau_n_points",
    "beta_plateau_t_lower",
    "beta_plateau_t_upper",
)


def flatness(slope: float, err: float) -> str:
    """``flat`` where the slope is within :data:`AGREE_SIGMAS` errors of 0, else ``rises``
    or ``falls`` with the slope in errors; ``-`` where it is not finite."""
    if not (math.isfinite(slope) and math.isfinite(err) and err > 0):
        return "-"
    z = slope / err
    if abs(z) <= AGREE_SIGMAS:
        return f"flat ({z:+.1f} sigma)"
    return f"{'rises' if z > 0 else 'falls'} ({z:+.1f} sigma)"


def _rows(ds: xr.Dataset) -> list[list[str]]:
    """One row per plateau window of one analysis."""
    dim = str(ds.attrs.get("dim", "?"))
    rows = []
    for k in range(ds.sizes["plateau_fit"]):
        v = {name: float(ds[name].values[k]) for name in PLATEAU_VARIABLES}
        window = f"[{v['beta_plateau_t_lower']:g}, {v['beta_plateau_t_upper']:g}]"
        n = f"{v['beta_plateau_n_points']:g}"
        beta, err = v["beta_plateau"], v["beta_plateau_err"]
        if not math.isfinite(beta):
            why = why_not(ds, v["beta_plateau_t_lower"], "beta_plateau").replace("|", "/")
            rows.append([point_label(ds), window, n, f"no fit: {why}", "-", "-", "-",
                         *("-" for _ in REFERENCES)])  # fmt: skip
            continue
        slope, slope_err = v["beta_plateau_slope"], v["beta_plateau_slope_err"]
        refs = [compare(beta, err, r) if dim == "2" else f"- (d={dim})" for r in REFERENCES]
        rows.append([point_label(ds), window, n, number_text(beta, err),
                     number_text(slope, slope_err), flatness(slope, slope_err),
                     f"{v['beta_plateau_chi2_per_dof']:.2f}", *refs])  # fmt: skip
    return rows


def plateau_table(paths: Sequence[str | os.PathLike[str]]) -> str:
    """The Markdown table of the plateau fits of the kpz analysis files ``paths``: one row
    per point and window, in the order given.  ``ValueError`` naming the file for one that
    cannot be read or holds no plateau fits."""
    head = ["point", "window t_eff", "values", "beta plateau", "slope per decade",
            "beta_eff there", "chi2/dof", *(f"vs {r.text}" for r in REFERENCES)]  # fmt: skip
    what = "a kpz analysis with the plateau fits"
    return window_table(paths, PLATEAU_VARIABLES, what, head, _rows)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    description = (
        "Print a Markdown table of the plateau fits of beta_eff of kpz analyses: per "
        "point and window t_eff >= t_lower, the weighted mean of beta_eff and its slope "
        f"per decade (flat: within {AGREE_SIGMAS:g} errors of 0), and the mean against "
        "kelling2017's 0.2415(15) and 0.2414(2) in standard deviations."
    )
    return table_main(argv, "python -m analysis.kpz_plateau_table", description, plateau_table)


if __name__ == "__main__":
    run_main(main, "python -m analysis.kpz_plateau_table")
