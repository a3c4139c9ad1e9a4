"""The plateau of beta_eff: is the effective growth exponent constant at late times?

kelling2017 (sec. 4.2, Fig. 6) finds that beta_eff of its DTrDB runs "show a plateau over
almost two decades, suggesting that corrections at late times are very small".  A plateau
is tested here, not assumed: over the windows t_eff >= t_lower (each of
:data:`PLATEAU_T_LOWERS`, up to the finite-size regime as the fit of
:mod:`analysis.kpz_fits`), beta_eff is fitted by

* a constant (the weighted mean): the plateau's value ``beta_plateau``;
* a straight line in log10 t: its slope ``beta_plateau_slope`` per decade, which is zero
  within its error where beta_eff is flat.

Both fits run inside the jackknife with the fixed weights 1/err^2 of the full sample, so
their errors are jackknife errors: successive beta_eff share a width W2(t) and are
correlated, which the diagonal chi2 ignores (it is a rough guide only, as the beta fit's).
The lower ends are fixed before looking at any data: 10^3 MCS, two decades before the
10^5 of the longest runs (the paper's "almost two decades"), with 300 and 3000 as a
stability check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import xarray as xr

from analysis.estimates import beta_eff_of, successive_pairs
from analysis.kpz_fits import BetaFitWindow, beta_fit_windows
from analysis.stats import jackknife

__all__ = ["PLATEAU_MIN_POINTS", "PLATEAU_T_LOWER", "PLATEAU_T_LOWERS", "flat_fits",
           "put_beta_plateau"]  # fmt: skip

#: The main lower end of the plateau window and the three lower ends fitted.
PLATEAU_T_LOWER = 1000.0
PLATEAU_T_LOWERS = (300.0, PLATEAU_T_LOWER, 3000.0)
#: beta_eff values a plateau window needs at least (a line through 3 has one dof).
PLATEAU_MIN_POINTS = 3

PLATEAU_RULE = (
    f"beta_eff over t_eff >= t_lower (main {PLATEAU_T_LOWER:g}; the others a stability "
    "check) up to the finite-size regime, fitted by a constant (the weighted mean, "
    "beta_plateau) and by a line in log10 t (beta_plateau_slope, per decade), weights "
    f"1/err^2 of the full sample, jackknife errors; at least {PLATEAU_MIN_POINTS} values, "
    "else NaN with the reason"
)


def flat_fits(t: np.ndarray, y: np.ndarray, sigma: np.ndarray) -> dict[str, np.ndarray]:
    """The weighted mean ``level`` of ``y`` (last axis; leading axes are fitted row by
    row), its diagonal ``chi2``, and the ``slope`` of the weighted straight line in
    log10 ``t``."""
    w = 1.0 / np.asarray(sigma, dtype=float) ** 2
    x = np.log10(np.asarray(t, dtype=float))
    sw = w.sum()
    level = (y * w).sum(axis=-1) / sw
    chi2 = (w * (y - level[..., None]) ** 2).sum(axis=-1)
    xm = (w * x).sum() / sw
    slope = (w * (x - xm) * y).sum(axis=-1) / (w * (x - xm) ** 2).sum()
    return {"level": level, "slope": slope, "chi2": chi2}


def _plateau(
    windows: Sequence[BetaFitWindow], times: np.ndarray, err: np.ndarray
) -> Callable[[xr.Dataset], xr.Dataset]:
    """The jackknife's ``func``: beta_eff of the mean W2, fitted over each window."""
    lo, hi = successive_pairs(times)
    t_eff = 0.5 * (times[lo] + times[hi])

    def func(m: xr.Dataset) -> xr.Dataset:
        b = beta_eff_of(m["W2"], times).transpose(..., "t_eff")
        rows = b.values
        cols: dict[str, list[np.ndarray]] = {"level": [], "slope": [], "chi2": []}
        for w in windows:
            if w.reason:
                fit = {k: np.full(rows.shape[:-1], np.nan) for k in cols}
            else:
                fit = flat_fits(t_eff[w.index], rows[..., w.index], err[w.index])
            for k in cols:
                cols[k].append(fit[k])
        dims = (*b.dims[:-1], "plateau_fit")
        return xr.Dataset({k: (dims, np.stack(v, axis=-1)) for k, v in cols.items()})

    return func


def put_beta_plateau(
    out: xr.Dataset,
    ds: xr.Dataset,
    data: xr.Dataset,
    times: np.ndarray,
    groups: int,
    t_units: dict[str, str],
) -> xr.Dataset:
    """``out`` with the plateau fits (module doc) over the dim ``plateau_fit``, one entry
    per lower end of :data:`PLATEAU_T_LOWERS`: ``beta_plateau``, ``beta_plateau_slope``
    (per decade of t), each with ``_err``, ``beta_plateau_chi2_per_dof``,
    ``beta_plateau_n_points`` and the window's coordinates ``beta_plateau_t_lower`` and
    ``beta_plateau_t_upper``."""
    t_eff = out["t_eff"].values
    beta, err = out["beta_eff"].values, out["beta_eff_err"].values
    windows = beta_fit_windows(ds, t_eff, out["t_upper"].values, beta, err,
                               PLATEAU_T_LOWERS, PLATEAU_MIN_POINTS)  # fmt: skip
    weights = np.where(np.isfinite(err) & (err > 0), err, 1.0)  # outside the windows: unused
    est, jk_err = jackknife(data[["W2"]], _plateau(windows, times, weights), dim="sample",
                            n_groups=groups, vectorized=True)  # fmt: skip
    n_points = np.array([w.index.size for w in windows], dtype=np.int64)
    last = [float(t_eff[w.index[-1]]) if w.index.size else np.nan for w in windows]
    notes = [f"t_lower={w.t_lower:g}: {w.reason}" for w in windows if w.reason]
    comment = "; ".join([*notes, PLATEAU_RULE])
    out = out.assign_coords(
        beta_plateau_t_lower=("plateau_fit", np.asarray(PLATEAU_T_LOWERS, dtype=float),
                              {"long_name": "lower end of the plateau window (t_eff >= it)",
                               **t_units}),
        beta_plateau_t_upper=("plateau_fit", np.asarray(last, dtype=float),
                              {"long_name": "t_eff of the last beta_eff in the plateau "
                               "window", **t_units}),
    )  # fmt: skip
    words = {
        "level": ("beta_plateau", "weighted mean of beta_eff over the plateau window"),
        "slope": ("beta_plateau_slope", "slope of beta_eff against log10 t over the "
                  "plateau window (per decade; 0 for a plateau)"),
    }  # fmt: skip
    for key, (name, long_name) in words.items():
        out[name] = est[key].variable
        out[name].attrs = {"long_name": long_name, "units": "1", "comment": comment}
        out[f"{name}_err"] = jk_err[key].variable
        out[f"{name}_err"].attrs = {"long_name": f"jackknife standard error of {name}",
                                    "units": "1", "comment": comment}  # fmt: skip
    dof = np.where(n_points > 1, n_points - 1, 1)
    out["beta_plateau_chi2_per_dof"] = ("plateau_fit", est["chi2"].values / dof)
    out["beta_plateau_chi2_per_dof"].attrs = {
        "long_name": "chi2 per degree of freedom of the constant fit (diagonal weights; "
        "neighbouring beta_eff are correlated, so a rough guide only)",
        "units": "1",
        "comment": comment,
    }
    out["beta_plateau_n_points"] = ("plateau_fit", n_points)
    out["beta_plateau_n_points"].attrs = {"long_name": "number of beta_eff values in the "
                                          "plateau window", "units": "1"}  # fmt: skip
    return out
