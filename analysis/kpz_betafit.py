"""The table of the fitted asymptotic growth exponents, for the README.

``python -m analysis.kpz_betafit ANALYSIS.nc [ANALYSIS.nc ...]``

prints a Markdown table with one row per point and fit window of the kpz analyses
given (:func:`analysis.kpz.analyze` stores the fit of beta_eff = beta + a t^-omega over
the windows of :data:`analysis.kpz_fits.BETA_FIT_RULE`): the point (scheme, TC, L,
samples), the window, beta and omega with their jackknife errors, chi2/dof, and how far
beta lies from kelling2017's asymptotic 0.2415(15) and from 0.2414(2)
(:data:`analysis.kpz_literature.BETA`) in combined standard deviations: it agrees where
the difference is at most :data:`AGREE_SIGMAS`.  Why a table: the figure shows the
curves, the README quotes numbers a reader can check against the paper's.

A fit whose omega sits at an end of its search range
(:func:`analysis.estimates.omega_at_bound`) found no minimum of chi2 inside the range:
the data do not follow beta + a t^-omega there, and its beta is where the search stopped,
not a result.  Such a row says so instead of quoting beta and comparing it.  Numbers carry
the digits their errors allow (:func:`analysis.plotting.value_error_text`), and at most
six significant ones where an error is vanishingly small.

Exit status: 0 printed; 2 bad input (a file that cannot be read or is not a kpz analysis
with the beta fit), one line on stderr.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import xarray as xr

from analysis.estimates import OMEGA_RANGE, omega_at_bound
from analysis.kelling2017_labels import scheme_label
from analysis.kpz_literature import BETA
from analysis.literature import LiteratureValue
from analysis.plotting import n_samples_of, value_error_text
from analysis.table_cli import table_main, window_table
from simcore.interrupt import run_main

__all__ = ["AGREE_SIGMAS", "FIT_VARIABLES", "REFERENCES", "beta_table", "compare", "main",
           "number_text", "point_label", "why_not"]  # fmt: skip

#: A fitted beta agrees with a reference where they differ by at most this many combined
#: standard deviations.
AGREE_SIGMAS = 2.0

#: The references of the table's last columns (2+1-dimensional values).
REFERENCES: tuple[LiteratureValue, ...] = (BETA["2d_kelling2011"], BETA["2d"])

#: The variables of an analysis file that the table reads.
FIT_VARIABLES = (
    "beta_asymptotic",
    "beta_asymptotic_err",
    "beta_correction_exponent",
    "beta_correction_exponent_err",
    "beta_fit_chi2_per_dof",
    "beta_fit_n_points",
    "beta_fit_t_lower",
    "beta_fit_t_upper",
)


def compare(value: float, err: float, ref: LiteratureValue) -> str:
    """The difference of ``value`` (error ``err``) from ``ref`` in combined standard
    deviations, signed, and whether it agrees (at most :data:`AGREE_SIGMAS`); ``-`` where
    the value or its error is not finite."""
    sigma = math.hypot(err, ref.error)
    if not (math.isfinite(value) and math.isfinite(sigma) and sigma > 0):
        return "-"
    z = (value - ref.value) / sigma
    return f"{z:+.1f} sigma, {'agrees' if abs(z) <= AGREE_SIGMAS else 'differs'}"


#: An error below this fraction of its value is vanishingly small (e.g. the jackknife
#: error of an omega that every replica puts on the same end of its range): the value is
#: printed to six significant digits rather than to the error's last digit.
TINY_RELATIVE_ERROR = 1e-6


def number_text(value: float, err: float) -> str:
    """``value`` with its error as the table prints it: ``0.2412(8)`` (the error's digits,
    :func:`analysis.plotting.value_error_text`), or ``3 +- 3e-15`` where the error is below
    :data:`TINY_RELATIVE_ERROR` of the value, which would otherwise print 15 digits."""
    if math.isfinite(value) and math.isfinite(err) and 0 <= err < TINY_RELATIVE_ERROR * abs(value):
        return f"{value:.6g} +- {err:.1g}"
    return value_error_text(value, err)


def _at_bound(ds: xr.Dataset, omega: float, t_lower: float) -> bool:
    """Whether the fit of the window starting at ``t_lower`` put omega on an end of its
    range: by its value (:func:`analysis.estimates.omega_at_bound`), or by the note the
    analysis wrote for the window (an analysis made with another range)."""
    comment = str(ds["beta_asymptotic"].attrs.get("comment", ""))
    noted = f"t_lower={t_lower:g}: omega at an end of its search range" in comment
    return noted or bool(omega_at_bound(omega))


def point_label(ds: xr.Dataset) -> str:
    """The point of a row: scheme and thread cell, L, samples."""
    return f"{scheme_label(ds)}, L={ds.attrs.get('L', '?')}, n={n_samples_of(ds)}"


def why_not(ds: xr.Dataset, t_lower: float, variable: str = "beta_asymptotic") -> str:
    """The reason the analysis recorded (in ``variable``'s comment) for the window
    starting at ``t_lower``."""
    comment = str(ds[variable].attrs.get("comment", ""))
    key = f"t_lower={t_lower:g}: "
    for part in comment.split("; "):
        if part.startswith(key):
            return part[len(key) :]
    return "not fitted"


def _rows(ds: xr.Dataset) -> list[list[str]]:
    """One row per fit window of one analysis."""
    dim = str(ds.attrs.get("dim", "?"))
    rows = []
    for k in range(ds.sizes["beta_fit"]):
        v = {name: float(ds[name].values[k]) for name in FIT_VARIABLES}
        window = f"[{v['beta_fit_t_lower']:g}, {v['beta_fit_t_upper']:g}]"
        beta, err = v["beta_asymptotic"], v["beta_asymptotic_err"]
        if not math.isfinite(beta):
            why = why_not(ds, v["beta_fit_t_lower"]).replace("|", "/")
            rows.append([point_label(ds), window, f"{v['beta_fit_n_points']:g}", f"no fit: {why}",
                         "-", "-", *("-" for _ in REFERENCES)])  # fmt: skip
            continue
        om, chi2 = v["beta_correction_exponent"], f"{v['beta_fit_chi2_per_dof']:.2f}"
        if _at_bound(ds, om, v["beta_fit_t_lower"]):
            end = "lower" if om < 0.5 * sum(OMEGA_RANGE) else "upper"
            bound = f"{om:.3g} ({end} end of [{OMEGA_RANGE[0]:g}, {OMEGA_RANGE[1]:g}])"
            rows.append([point_label(ds), window, f"{v['beta_fit_n_points']:g}",
                         "no result: omega at its bound", bound, chi2,
                         *("-" for _ in REFERENCES)])  # fmt: skip
            continue
        omega = number_text(om, v["beta_correction_exponent_err"])
        refs = [compare(beta, err, r) if dim == "2" else f"- (d={dim})" for r in REFERENCES]
        rows.append([point_label(ds), window, f"{v['beta_fit_n_points']:g}",
                     number_text(beta, err), omega, chi2, *refs])  # fmt: skip
    return rows


def beta_table(paths: Sequence[str | os.PathLike[str]]) -> str:
    """The Markdown table of the beta fits of the kpz analysis files ``paths``: one row per
    point and fit window, in the order given.  ``ValueError`` naming the file for one that
    cannot be read or holds no beta fit."""
    head = ["point", "window t_eff", "values", "beta (fit)", "omega", "chi2/dof",
            *(f"vs {r.text}" for r in REFERENCES)]  # fmt: skip
    return window_table(paths, FIT_VARIABLES, "a kpz analysis with the beta fit", head, _rows)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    description = (
        "Print a Markdown table of the asymptotic growth exponent fitted to beta_eff "
        "(beta + a t^-omega) of kpz analyses: one row per point and fit window, with "
        "the difference to kelling2017's 0.2415(15) and to 0.2414(2) in standard "
        f"deviations (agrees: at most {AGREE_SIGMAS:g}). A fit whose omega sits at an "
        "end of its search range is flagged (no result), not compared."
    )
    return table_main(argv, "python -m analysis.kpz_betafit", description, beta_table)


if __name__ == "__main__":
    run_main(main, "python -m analysis.kpz_betafit")
