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
from typing import Any

import numpy as np
import xarray as xr

from simcore.io.dataset import unit_attributes

__all__ = [
    "POSITIVE_MIDPOINT_NOTE",
    "analysis_attrs",
    "beta_eff_of",
    "local_slope_of",
    "pair_values",
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
