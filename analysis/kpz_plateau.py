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

import numpy as np

from analysis.kpz_fits import WindowFit

__all__ = ["PLATEAU_FIT", "PLATEAU_MIN_POINTS", "PLATEAU_T_LOWER", "PLATEAU_T_LOWERS",
           "flat_fits"]  # fmt: skip

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


#: The plateau fits as a :class:`analysis.kpz_fits.WindowFit`, over the dim
#: ``plateau_fit``, one entry per lower end of :data:`PLATEAU_T_LOWERS`:
#: ``beta_plateau``, ``beta_plateau_slope`` (per decade of t), each with ``_err``,
#: ``beta_plateau_chi2_per_dof``, ``beta_plateau_n_points`` and the window's coordinates
#: ``beta_plateau_t_lower`` and ``beta_plateau_t_upper``.
PLATEAU_FIT = WindowFit(
    dim="plateau_fit",
    prefix="beta_plateau",
    lowers=PLATEAU_T_LOWERS,
    min_points=PLATEAU_MIN_POINTS,
    fit=flat_fits,
    names={
        "level": ("beta_plateau", "weighted mean of beta_eff over the plateau window"),
        "slope": (
            "beta_plateau_slope",
            "slope of beta_eff against log10 t over the "
            "plateau window (per decade; 0 for a plateau)",
        ),
    },  # fmt: skip
    rule=PLATEAU_RULE,
    window="plateau window",
    chi2_of="the constant fit",
    chi2_parameters=1,
)
