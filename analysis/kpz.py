"""KPZ growth (the octahedron model, kelling2017): the analysis of one aggregated dataset,
and the model's analysis module (the kpz spec names it): :func:`analyze`, and
:func:`draw_figures` of :mod:`analysis.kpz_figures`.

Analysis (:func:`analyze`) of one aggregated dataset in the ARCHITECTURE.md layout (dims
``sample``, ``time``, ``s``; ``W2(sample, time)``, ``mean_h(sample, time)``,
``C_h(sample, s, time)``, ``C_s(sample, s, time)``): sample means and their errors, the
effective growth exponent ``beta_eff`` and the effective autocorrelation exponents
``lambda_h/z`` and ``lambda_s/z`` (kelling2017, eqs. 5, 6, 8), and the asymptotic growth
exponent fitted to ``beta_eff = beta + a t^-omega`` over windows fixed in advance
(:data:`analysis.kpz_fits.BETA_FIT_RULE`; :func:`analysis.estimates.power_correction_fit`):
why fitted, because beta_eff at the times a run reaches still carries corrections to
scaling, and the fit extrapolates them away with an error the jackknife gives.  The
windows and fits are :mod:`analysis.kpz_fits`; the literature values of beta, recorded
here as the reference of the dataset's dimension, are :mod:`analysis.kpz_literature`.

Why the effective exponents are computed from means, not per sample: eq. 8 is applied to
``E = W = sqrt(<W2>)`` and ``E = <C>``, the ensemble averages; a single sample's ``C``
can be negative.  All errors come from one grouped jackknife over samples
(:mod:`analysis.stats`) applied to the whole chain ``means -> logs -> slopes -> fit``
(:mod:`analysis.estimates`), so the correlations between neighbouring times (which share
samples) are accounted for.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from analysis.estimates import analysis_attrs, beta_eff_of, put_local_slope
from analysis.kpz_figures import draw_figures
from analysis.kpz_fits import (
    BETA_FIT,
    BETA_FIT_RULE,
    LAMBDA_WINDOW_RULE,
    put_lambdas,
    put_window_fits,
    set_variable,
)
from analysis.kpz_literature import REFERENCE_BETA, dim_of
from analysis.kpz_plateau import PLATEAU_FIT
from analysis.stats import default_groups, jackknife
from simcore.io.dataset import unit_attributes

__all__ = [
    "ANALYSIS_METHOD",
    "REQUIRED_VARIABLES",
    "AnalysisInputError",
    "analyze",
    "draw_figures",
]

#: Variables the analysis needs, with the dims each must have.
REQUIRED_VARIABLES: dict[str, tuple[str, ...]] = {
    "W2": ("sample", "t"),
    "mean_h": ("sample", "t"),
    "C_h": ("sample", "s", "t"),
    "C_s": ("sample", "s", "t"),
}

ANALYSIS_METHOD = (
    "Sample means over the 'sample' dim; errors are grouped (blocked) jackknife "
    "standard errors over samples (contiguous groups, n_groups = jackknife_groups, "
    "weighted delete-m_g formula), applied to the whole chain mean -> log -> slope. "
    "beta_eff: kelling2017 eq. 8 with E = W = sqrt(mean W2) between successive sampling "
    "times t_j < t_i, t = 0 skipped, at their arithmetic midpoint (kelling2017 eq. 8 prints "
    "(t_i - t_j)/2, a misprint for the midpoint). lambda_h_over_z_eff, lambda_s_over_z_eff "
    "(kelling2017 eqs. 5, 6, 8): " + LAMBDA_WINDOW_RULE + ". beta_asymptotic, "
    "beta_correction_exponent, beta_correction_amplitude: " + BETA_FIT_RULE + "."
)


class AnalysisInputError(ValueError):
    """The input dataset lacks variables or dimensions the analysis needs."""


def _check_input(ds: xr.Dataset) -> None:
    missing = [v for v in REQUIRED_VARIABLES if v not in ds.data_vars]
    if missing:
        raise AnalysisInputError(f"missing variable(s): {', '.join(missing)}")
    for name, dims in REQUIRED_VARIABLES.items():
        if set(ds[name].dims) != set(dims):
            raise AnalysisInputError(
                f"variable {name} has dims {tuple(ds[name].dims)}, expected {dims}"
            )
    if ds.sizes["sample"] < 1:
        raise AnalysisInputError("dataset has no samples")
    times = np.asarray(ds["t"].values)
    if len(np.unique(times)) != len(times):
        raise AnalysisInputError("duplicate values in coordinate 't'")


def _derived(m: xr.Dataset) -> xr.Dataset:
    """The sample means and beta_eff as functions of the sample-mean dataset ``m`` (the
    jackknife's ``func``): addresses dimensions by name only, so the jackknife's replica
    dimension passes through.  ``m.t`` must be sorted ascending."""
    times = np.asarray(m["t"].values, dtype=float)
    return xr.Dataset(
        {
            "W2_mean": m["W2"],
            "mean_h_mean": m["mean_h"],
            "C_h_mean": m["C_h"],
            "C_s_mean": m["C_s"],
            "beta_eff": beta_eff_of(m["W2"], times),
        }
    )


def _means(
    ds: xr.Dataset,
    data: xr.Dataset,
    est: xr.Dataset,
    err: xr.Dataset,
    times: np.ndarray,
    t_units: dict[str, str],
) -> xr.Dataset:
    """The analysis dataset of ``ds`` begun: its coordinates ``t`` and ``s``, beta_eff with
    its pairs of times, and the sample means with their jackknife errors (``est``, ``err``
    of :func:`_derived` on ``data``, the samples sorted by t at ``times``)."""
    out = xr.Dataset(coords={"t": data["t"].values, "s": data["s"].values})
    out["t"].attrs = {**ds["t"].attrs, "long_name": "time"}
    out["s"].attrs = {**ds["s"].attrs, "long_name": "waiting time s"}
    out = put_local_slope(
        out, est, err, "beta_eff",
        "effective growth exponent beta_eff (kelling2017 eq. 8, E = sqrt(mean W2))",
        times, t_units,
    )  # fmt: skip
    for var in ("W2", "mean_h", "C_h", "C_s"):
        long_name, units = str(ds[var].attrs.get("long_name", var)), unit_attributes(ds[var].attrs)
        mean_of = f"sample mean of {long_name}"
        set_variable(out, f"{var}_mean", est[f"{var}_mean"], mean_of, units)
        set_variable(
            out,
            f"{var}_err",
            err[f"{var}_mean"],
            f"jackknife standard error of the {mean_of}",
            units,
        )
    return out


def _attrs(ds: xr.Dataset, groups: int) -> dict:
    """The global attributes of the analysis of ``ds``: :func:`analysis_attrs` with the
    rules of the windows and the fit, and the reference beta of its dimension."""
    attrs = analysis_attrs(
        ds,
        "effective exponents",
        ANALYSIS_METHOD,
        groups,
        lambda_window_rule=LAMBDA_WINDOW_RULE,
        beta_fit_rule=BETA_FIT_RULE,
    )
    ref = REFERENCE_BETA.get(dim_of(ds))
    if ref is not None:
        attrs["reference_beta"] = ref.value
        attrs["reference_beta_err"] = ref.error
        attrs["reference_beta_source"] = ref.source
    return attrs


def analyze(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """Means, jackknife errors and effective exponents of one aggregated dataset.

    Parameters
    ----------
    ds:
        Aggregated (or single-run) dataset in the ARCHITECTURE.md layout.
    n_groups:
        Jackknife groups; default ``min(n_samples, 32)``.

    Returns
    -------
    xr.Dataset
        ``W2_mean, W2_err, mean_h_mean, mean_h_err`` (t); ``C_h_mean, C_h_err, C_s_mean,
        C_s_err`` (s, t); ``beta_eff, beta_eff_err`` (t_eff, with ``t_lower, t_upper``);
        ``C_h_signal_lost, C_s_signal_lost`` (s); ``lambda_h_over_z_eff(_err)`` over
        ``lambda_h_window`` and ``lambda_s_over_z_eff(_err)`` over ``lambda_s_window``, one
        value per window of times chosen from the errors, each window with coordinates
        ``lambda_<k>_s`` (its waiting time), ``lambda_<k>_t_lower``, ``lambda_<k>_t_upper``
        and ``lambda_<k>_t_over_s`` (the geometric midpoint of the window in t/s, where the
        estimate is drawn); ``beta_asymptotic``, ``beta_correction_exponent`` (omega),
        ``beta_correction_amplitude`` (a), each with ``_err``, ``beta_fit_chi2_per_dof``
        and ``beta_fit_n_points`` over ``beta_fit`` (the fit of
        :data:`analysis.kpz_fits.BETA_FIT_RULE`, one entry per lower end
        ``beta_fit_t_lower`` of :data:`analysis.kpz_fits.BETA_FIT_T_LOWERS`, with
        ``beta_fit_t_upper``; NaN with the reason in ``comment`` where a window cannot be
        fitted); ``beta_plateau``, ``beta_plateau_slope`` (each with ``_err``),
        ``beta_plateau_chi2_per_dof`` and ``beta_plateau_n_points`` over ``plateau_fit``
        (:mod:`analysis.kpz_plateau`: is beta_eff flat at late times?); ``snapshot``
        with its coordinates (``snapshot_sample``, ``snapshot_seed``, ``y``, ``x``)
        unchanged where ``ds`` has height snapshots (:func:`_put_snapshot`).
        Global attributes of ``ds`` are copied and ``analysis_method``,
        ``lambda_window_rule``, ``beta_fit_rule``, ``reference_beta`` (d=1, 2),
        ``jackknife_groups`` are added.

    Raises
    ------
    AnalysisInputError
        If a required variable or dimension is missing.
    """
    _check_input(ds)
    data = ds[list(REQUIRED_VARIABLES)].sortby("t").astype(np.float64)
    n_samples = int(data.sizes["sample"])
    groups = default_groups(n_samples) if n_groups is None else int(n_groups)
    est, err = jackknife(data, _derived, dim="sample", n_groups=groups, vectorized=True)
    times = np.asarray(data["t"].values, dtype=float)
    t_units = unit_attributes(ds["t"].attrs)
    out = _means(ds, data, est, err, times, t_units)
    out = put_lambdas(out, ds, data, est, err, groups, t_units)
    for fit in (BETA_FIT, PLATEAU_FIT):  # beta + a t^-omega; the plateau
        out = put_window_fits(out, ds, data, times, groups, t_units, fit)
    if "snapshot" in ds.data_vars:
        out = _put_snapshot(out, ds)
    out.attrs = _attrs(ds, groups)
    return out


def _put_snapshot(out: xr.Dataset, ds: xr.Dataset) -> xr.Dataset:
    """``out`` with the height snapshots of ``ds`` (the kpz key ``snapshot_samples``) as
    they are, every snapshot sample with its coordinates: the paper figures are drawn from
    analysis files, and a surface is a single sample's, nothing to average.  The integers
    stay zlib-compressed (the pipeline's writer compresses only floats)."""
    out = out.merge(ds[["snapshot"]])
    out["snapshot"].encoding = {"zlib": True, "complevel": 4}
    return out
