"""Estimates from sample means: local slopes (effective exponents), and how an analysis
dataset stores means, errors and slopes and says how it got them.

The effective exponent of kelling2017 eq. 8 is the slope of ln E against ln t between
two successive sampling times.  The growth exponent beta_eff (E = W = sqrt(<W2>)), the
autocorrelation exponents lambda/z (E = <C>, against ln(t/s)) and the coarsening exponent
x_eff (E = the domain size) are all this slope, so it is written once here, as functions
of sample means that pass extra dimensions (the jackknife's replicas,
:mod:`analysis.stats`) through: the errors then come from one jackknife over the whole
chain mean -> log -> slope.

Also here: how an analysis dataset stores sample means with their jackknife errors
(:func:`put_means`), a local slope with the pair of times of each value
(:func:`put_local_slope`), and its global attributes (:func:`analysis_attrs`).  Every
model's analysis module (:mod:`analysis.kpz`, ...) builds on these; none is named here.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from simcore.io.dataset import unit_attributes

__all__ = [
    "OMEGA_RANGE",
    "POSITIVE_MIDPOINT_NOTE",
    "PowerCorrectionFit",
    "analysis_attrs",
    "beta_eff_of",
    "local_slope_of",
    "omega_at_bound",
    "pair_values",
    "power_correction_fit",
    "put_local_slope",
    "put_means",
    "safe_log",
    "signal_end",
    "slope_windows",
    "successive_pairs",
    "window_slope",
]

#: How t_eff of a local slope between positive sampling times is defined.
POSITIVE_MIDPOINT_NOTE = (
    "t_eff is the arithmetic midpoint (t_i + t_j)/2 of two successive positive sampling "
    "times (kelling2017 eq. 8, analysis.estimates)"
)


def successive_pairs(times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices (into ``times``, sorted ascending) of successive pairs of positive times:
    t = 0 has no logarithm, so it never enters a slope."""
    pos = np.flatnonzero(times > 0)
    return pos[:-1], pos[1:]


def pair_values(x: xr.DataArray, idx: np.ndarray, new_dim: str, mid: np.ndarray) -> xr.DataArray:
    """``x`` at time indices ``idx``, with ``time`` replaced by ``new_dim`` = ``mid``, so the
    two ends of each pair line up on the pair's midpoint."""
    sel = x.isel(t=idx).drop_vars("t")
    return sel.rename(t=new_dim).assign_coords({new_dim: mid})


def safe_log(x: xr.DataArray) -> xr.DataArray:
    """Natural log, NaN where ``x <= 0`` or NaN (no warnings): a mean that the noise
    pushed to zero or below has no slope."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x.where(x > 0))


def local_slope_of(E: xr.DataArray, times: np.ndarray, power: float = 1.0) -> xr.DataArray:
    """The effective exponent of kelling2017 eq. 8 for E^power: d ln(E^power) / d ln t
    between successive positive sampling times ``times`` (ascending), on their midpoints
    ``t_eff``; NaN where E <= 0.  Any other dimension of ``E`` (jackknife replicas) passes
    through.  beta_eff (E = W2, power 1/2) and the fcc coarsening exponent x_eff (E = the
    domain size) are both this."""
    lo, hi = successive_pairs(times)
    mid = 0.5 * (times[lo] + times[hi])
    dlnt = xr.DataArray(np.log(times[hi]) - np.log(times[lo]), dims="t_eff", coords={"t_eff": mid})
    ln_e = safe_log(E) if power == 1.0 else power * safe_log(E)
    return (pair_values(ln_e, hi, "t_eff", mid) - pair_values(ln_e, lo, "t_eff", mid)) / dlnt


def beta_eff_of(W2: xr.DataArray, times: np.ndarray) -> xr.DataArray:
    """kelling2017 eq. 8 with E = W = sqrt(W2): d ln W / d ln t between successive
    positive sampling times ``times`` (ascending), on their midpoints ``t_eff``; NaN where
    W2 <= 0.  Any other dimension of ``W2`` (jackknife replicas) passes through."""
    return local_slope_of(W2, times, power=0.5)


def signal_end(mean: np.ndarray, err: np.ndarray, min_sigmas: float) -> int:
    """Number of leading entries of a decaying signal that stand out of its noise: the
    index of the first entry whose ``mean`` is not above ``min_sigmas * err`` (or not
    finite), ``len(mean)`` if there is none.  Beyond it the sign of the mean is noise, so
    no logarithm (and no local slope) of it means anything."""
    ok = np.isfinite(mean) & np.isfinite(err) & (mean > min_sigmas * err)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else int(len(mean))


def slope_windows(slope_err: np.ndarray, target_err: float) -> list[tuple[int, int]]:
    """Windows ``(a, b)`` of a local slope over ``n`` ascending times, chosen from the
    errors: ``slope_err[a, b]`` is the error of the slope from time ``a`` to time ``b``
    (n x n).  The windows are contiguous (each starts where the last ended, the first at
    0), each the shortest whose error is at most ``target_err`` (the last may stay above
    it).  Where the data are precise every window is one pair of successive times; where
    they are noisy windows widen instead of giving slopes of noise."""
    n = slope_err.shape[0]
    out: list[tuple[int, int]] = []
    a = 0
    while a < n - 1:
        b = a + 1
        while b < n - 1 and not slope_err[a, b] <= target_err:
            b += 1
        out.append((a, b))
        a = b
    return out


def window_slope(
    E: xr.DataArray, times: np.ndarray, lo: xr.DataArray, hi: xr.DataArray, **index: xr.DataArray
) -> xr.DataArray:
    """d ln E / d ln t over windows from time index ``lo`` to ``hi`` (DataArrays of one
    window dimension, with ``index``: further dimensions of ``E`` indexed per window, such
    as the waiting time); NaN where E <= 0.  Other dimensions (jackknife replicas) pass
    through."""
    ln_e = safe_log(E)
    dlnt = np.log(times[hi.values]) - np.log(times[lo.values])
    dlnt = xr.DataArray(dlnt, dims=lo.dims)
    drop = ["t", *index]
    at_hi = ln_e.isel(t=hi, **index).drop_vars(drop, errors="ignore")
    at_lo = ln_e.isel(t=lo, **index).drop_vars(drop, errors="ignore")
    return (at_hi - at_lo) / dlnt


def _units(units: str | Mapping[str, Any], model_units: str | None = None) -> dict[str, Any]:
    """``units`` (and ``model_units``) attributes from a units string or a variable's
    attributes (which carry both, :func:`simcore.io.dataset.unit_attributes`)."""
    attrs = unit_attributes(units) if isinstance(units, Mapping) else {"units": str(units)}
    if model_units:
        attrs["model_units"] = str(model_units)
    return attrs


def put_means(
    out: xr.Dataset,
    est: xr.Dataset,
    err: xr.Dataset,
    names: Iterable[object],
    meta: Callable[[str], Sequence[Any]],
) -> None:
    """``<name>_mean`` and ``<name>_err`` in ``out`` for each name, from a jackknife's
    estimates and errors; ``meta(name)`` gives (long name, units) or (long name, units,
    model units) of the per-sample quantity, units either a string or the per-sample
    variable's attributes (its ``units`` and ``model_units`` are copied), so every stored
    variable says what it is and in which unit a figure labels it."""
    for name in names:
        long_name, units, *more = meta(str(name))
        attrs = _units(units, more[0] if more else None)
        out[f"{name}_mean"] = est[name].variable
        out[f"{name}_mean"].attrs = {"long_name": f"sample mean of {long_name}", **attrs}
        out[f"{name}_err"] = err[name].variable
        out[f"{name}_err"].attrs = {
            "long_name": f"jackknife standard error of the sample mean of {long_name}",
            **attrs,
        }


def put_local_slope(
    out: xr.Dataset,
    est: xr.Dataset,
    err: xr.Dataset,
    name: str,
    long_name: str,
    times: np.ndarray,
    unit: str | Mapping[str, Any],
) -> xr.Dataset:
    """``out`` with the exponent ``name`` (and ``name_err``) of :func:`local_slope_of` over
    ``t_eff``, with the pair of positive times of each value as ``t_lower``, ``t_upper``
    (a reader can redo or rebin the slope without guessing the times); ``unit``: the
    units of the times, a string or the attributes of the time coordinate (its ``units``
    and ``model_units`` are copied)."""
    lo, hi = successive_pairs(times)
    out = out.assign_coords(
        t_eff=("t_eff", est["t_eff"].values),
        t_lower=("t_eff", times[lo]),
        t_upper=("t_eff", times[hi]),
    )
    units = _units(unit)
    out["t_eff"].attrs = {"long_name": f"effective time of {name}", **units,
                          "comment": POSITIVE_MIDPOINT_NOTE}  # fmt: skip
    out["t_lower"].attrs = {"long_name": "earlier time t_j of the pair", **units}
    out["t_upper"].attrs = {"long_name": "later time t_i of the pair", **units}
    out[name] = est[name].variable
    out[name].attrs = {"long_name": long_name, "units": "1", "comment": POSITIVE_MIDPOINT_NOTE}
    out[f"{name}_err"] = err[name].variable
    out[f"{name}_err"].attrs = {"long_name": f"jackknife standard error of {name}", "units": "1"}
    return out


def analysis_attrs(
    ds: xr.Dataset, what: str, method: str, groups: int, **extra: Any
) -> dict[str, Any]:
    """The global attributes of an analysis of ``ds``: those of ``ds`` (its provenance and
    settings travel on), plus a title naming ``what`` and the point, ``analysis_method``,
    ``analysis_created``, ``jackknife_groups``, ``n_samples_analyzed`` (``n_samples`` if
    ``ds`` lacks it) and ``extra``."""
    n = int(ds.sizes["sample"])
    attrs = dict(ds.attrs)
    attrs.setdefault("n_samples", n)
    point = attrs.get("point", "")
    attrs.update(
        {
            "title": f"simcore analysis: {what}{' of ' + str(point) if point else ''}",
            "analysis_method": method,
            "analysis_created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "jackknife_groups": groups,
            "n_samples_analyzed": n,
            **extra,
        }
    )
    return attrs


# ----------------------------------------------------------------------------- corrections


class PowerCorrectionFit(NamedTuple):
    """Parameters of ``y = beta + a * t**(-omega)`` fitted by :func:`power_correction_fit`,
    the minimum ``chi2`` and the parameters' errors from the curvature of chi2 (the
    standard least-squares covariance, right for independent Gaussian ``sigma``; where the
    ``y`` are correlated, as successive local slopes are, a jackknife gives the errors)."""

    beta: np.ndarray
    a: np.ndarray
    omega: np.ndarray
    chi2: np.ndarray
    beta_err: np.ndarray
    a_err: np.ndarray
    omega_err: np.ndarray


#: Where :func:`power_correction_fit` looks for omega, and the step of its first grid.
OMEGA_RANGE = (0.05, 3.0)
OMEGA_GRID_STEP = 0.05
#: Golden-section steps after the grid: the bracket of two grid steps shrinks by
#: 0.618 per step, to ~1e-14 after 70.
_GOLDEN_STEPS = 70


#: Relative distance from an end of the omega range within which a fitted omega counts
#: as sitting on that end (the golden section stops ~1e-14 from it).
OMEGA_BOUND_RTOL = 1e-9


def omega_at_bound(
    omega: np.ndarray | float, omega_range: tuple[float, float] = OMEGA_RANGE
) -> np.ndarray:
    """Where a fitted omega of :func:`power_correction_fit` sits at an end of its search
    range ``omega_range`` (within :data:`OMEGA_BOUND_RTOL`): there chi2 has no minimum
    inside the range, the fit form does not describe the data, and its beta is no result
    of it (only of where the search stopped).  False for NaN."""
    om = np.asarray(omega, dtype=float)
    lo, hi = omega_range
    with np.errstate(invalid="ignore"):
        return (om <= lo * (1 + OMEGA_BOUND_RTOL)) | (om >= hi * (1 - OMEGA_BOUND_RTOL))


def _linear_part(
    x: np.ndarray, y: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted least squares of ``y = b + c x`` for each ``x`` (..., n) and ``y`` (...,
    n) with weights ``w`` (n): ``(b, c, chi2)``, centred sums and the residuals summed
    explicitly, so chi2 near zero (exact data) is not lost to cancellation."""
    sw = w.sum()
    xm = (w * x).sum(-1, keepdims=True) / sw
    ym = (w * y).sum(-1, keepdims=True) / sw
    dx, dy = x - xm, y - ym
    c = (w * dx * dy).sum(-1) / (w * dx * dx).sum(-1)
    b = ym[..., 0] - c * xm[..., 0]
    chi2 = (w * (dy - c[..., None] * dx) ** 2).sum(-1)
    return b, c, chi2


def _profile(tau: np.ndarray, y: np.ndarray, w: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """chi2 minimised over (beta, a) at ``omega``: one omega per row of ``y`` (shape of
    ``y`` without its last axis)."""
    return _linear_part(tau ** (-omega[..., None]), y, w)[2]


def _profile_grid(tau: np.ndarray, y: np.ndarray, w: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """chi2 minimised over (beta, a) at each omega of ``grid`` (1-d) for every row of ``y``:
    shape of ``y`` without its last axis, plus the grid axis."""
    x = tau ** (-grid[:, None])  # (grid, n)
    return _linear_part(x, y[..., None, :], w)[2]


def power_correction_fit(
    t: np.ndarray, y: np.ndarray, sigma: np.ndarray, omega_range: tuple[float, float] = OMEGA_RANGE
) -> PowerCorrectionFit:
    """Fit ``y = beta + a * t**(-omega)`` (an asymptotic value with its leading power-law
    correction, such as beta_eff(t) of a growth law with corrections to scaling) by
    weighted least squares, weights ``1 / sigma**2``.

    For fixed omega the model is linear in (beta, a), so chi2 is minimised over them
    exactly and the profile chi2(omega) is searched: on a grid of step
    :data:`OMEGA_GRID_STEP` over ``omega_range``, then by golden section between the
    neighbours of the best grid point (a minimum at an end of the range stays there:
    the caller can tell, :func:`omega_at_bound`).  Numpy only, vectorised: ``y`` may have
    leading dimensions (jackknife replicas, noise realisations), each row fitted alone
    with the same ``t`` and ``sigma``; a row with a non-finite value gives NaN.

    Parameters
    ----------
    t:
        The n > 3 positive abscissae.
    y:
        Values, shape (..., n).
    sigma:
        Their n positive, finite standard errors.

    Returns
    -------
    PowerCorrectionFit
        Arrays of the shape of ``y`` without its last axis (0-d for one row).
    """
    t, y, sigma, (lo, hi) = _fit_input(t, y, sigma, omega_range)
    bad = ~np.all(np.isfinite(y), axis=-1)
    y = np.where(bad[..., None], 0.0, y)  # fitted, then set to NaN
    t0 = float(t.min())
    tau = t / t0  # in (1, ...]: a = a' t0^omega, better conditioned than t^-omega itself
    w = sigma**-2.0
    omega = _omega_minimum(tau, y, w, lo, hi)
    x = tau ** (-omega[..., None])
    beta, a_red, chi2 = _linear_part(x, y, w)
    a, (beta_err, a_err, omega_err) = _amplitude_and_errors(tau, t0, sigma, x, a_red, omega)
    out = (beta, a, omega, chi2, beta_err, a_err, omega_err)
    return PowerCorrectionFit(*(np.where(bad, np.nan, v) for v in out))


def _fit_input(
    t: np.ndarray, y: np.ndarray, sigma: np.ndarray, omega_range: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[float, float]]:
    """The arguments of :func:`power_correction_fit` as float arrays and the omega range
    as floats; ``ValueError`` for shapes, values or a range it cannot fit."""
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    n = t.size
    if t.ndim != 1 or y.shape[-1:] != (n,) or sigma.shape != (n,):
        raise ValueError(f"t, sigma need shape (n,) and y (..., n); got {t.shape}, "
                         f"{sigma.shape}, {y.shape}")  # fmt: skip
    if n < 4:
        raise ValueError(f"three parameters need at least 4 values, got {n}")
    if not (np.all(t > 0) and np.all(np.isfinite(t))):
        raise ValueError("t must be positive and finite")
    if not (np.all(sigma > 0) and np.all(np.isfinite(sigma))):
        raise ValueError("sigma must be positive and finite")
    lo, hi = (float(v) for v in omega_range)
    if not 0 < lo < hi:
        raise ValueError(f"omega_range must be 0 < low < high, got {omega_range}")
    return t, y, sigma, (lo, hi)


def _omega_minimum(
    tau: np.ndarray, y: np.ndarray, w: np.ndarray, lo: float, hi: float
) -> np.ndarray:
    """The omega in [lo, hi] that minimises the profile chi2 of each row of ``y``: the best
    point of a grid of step :data:`OMEGA_GRID_STEP`, then golden section between its
    neighbours."""
    grid = np.linspace(lo, hi, max(3, round((hi - lo) / OMEGA_GRID_STEP) + 1))
    k = np.argmin(_profile_grid(tau, y, w, grid), axis=-1)
    a_lo = grid[np.maximum(k - 1, 0)]
    b_hi = grid[np.minimum(k + 1, grid.size - 1)]
    g = (np.sqrt(5.0) - 1.0) / 2.0
    c = b_hi - g * (b_hi - a_lo)
    d = a_lo + g * (b_hi - a_lo)
    fc, fd = _profile(tau, y, w, c), _profile(tau, y, w, d)
    for _ in range(_GOLDEN_STEPS):
        left = fc <= fd  # the minimum lies in [a_lo, d]
        b_hi = np.where(left, d, b_hi)
        a_lo = np.where(left, a_lo, c)
        new = np.where(left, b_hi - g * (b_hi - a_lo), a_lo + g * (b_hi - a_lo))
        f_new = _profile(tau, y, w, new)
        c, d, fc, fd = (np.where(left, new, d), np.where(left, c, new),
                        np.where(left, f_new, fd), np.where(left, fc, f_new))  # fmt: skip
    return 0.5 * (a_lo + b_hi)


def _amplitude_and_errors(
    tau: np.ndarray,
    t0: float,
    sigma: np.ndarray,
    x: np.ndarray,
    a_red: np.ndarray,
    omega: np.ndarray,
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The amplitude a = a' t0^omega of the fit in reduced times ``tau`` = t / t0 (``x`` =
    tau^-omega, ``a_red`` = a'), and the standard errors of beta, a and omega: the
    covariance of (beta, a', omega) from the Jacobian, then propagated to a."""
    d_omega = -a_red[..., None] * np.log(tau) * x
    jac = np.stack(np.broadcast_arrays(np.ones_like(x), x, d_omega), axis=-1) / sigma[:, None]
    hess = np.einsum("...ni,...nj->...ij", jac, jac)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = np.linalg.cond(hess) < 1e14
        cov = np.linalg.inv(np.where(ok[..., None, None], hess, np.eye(3)))
    cov = np.where(ok[..., None, None], cov, np.nan)
    scale = t0**omega
    a = a_red * scale
    grad = np.stack(np.broadcast_arrays(np.zeros_like(a), scale, a * np.log(t0)), axis=-1)
    a_var = np.einsum("...i,...ij,...j->...", grad, cov, grad)
    return a, (np.sqrt(cov[..., 0, 0]), np.sqrt(a_var), np.sqrt(cov[..., 2, 2]))
