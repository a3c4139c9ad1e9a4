"""KPZ growth (the octahedron model, kelling2017): effective exponents and campaign figures.

Analysis (:func:`analyze`) of one aggregated dataset in the ARCHITECTURE.md layout (dims
``sample``, ``time``, ``s``; ``W2(sample, time)``, ``mean_h(sample, time)``,
``C_h(sample, s, time)``, ``C_s(sample, s, time)``): sample means and their errors, the
effective growth exponent ``beta_eff`` and the effective autocorrelation exponents
``lambda_h/z`` and ``lambda_s/z`` (kelling2017, eqs. 5, 6, 8), and the asymptotic growth
exponent fitted to ``beta_eff = beta + a t^-omega`` over windows fixed in advance
(:data:`BETA_FIT_RULE`; :func:`analysis.estimates.power_correction_fit`): why fitted,
because beta_eff at the times a run reaches still carries corrections to scaling, and
the fit extrapolates them away with an error the jackknife gives.

Why the effective exponents are computed from means, not per sample: eq. 8 is applied to
``E = W = sqrt(<W2>)`` and ``E = <C>``, the ensemble averages; a single sample's ``C``
can be negative.  All errors come from one grouped jackknife over samples
(:mod:`analysis.stats`) applied to the whole chain ``means -> logs -> slopes -> fit``
(:mod:`analysis.estimates`), so the correlations between neighbouring times (which share
samples) are accounted for.

Campaign figures (:func:`draw_figures`; their names and captions are the kpz spec's
``campaign_figures``): ``W2`` and ``beta_eff`` (one panel per substrate dimension, the
reference beta dashed), ``C_h`` and ``C_s`` (vs t/s, one panel per point, one line per
waiting time) and ``lambda_eff`` (lambda/z of heights and slopes, one row per point).

The literature values of the growth exponent beta are kept here, once (:data:`BETA`):
the analysis records the reference of its dimension, the figures draw it, and
:mod:`analysis.kelling2017` draws the asymptotic value of its Fig. 6.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, NamedTuple

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis.estimates import (
    OMEGA_RANGE,
    analysis_attrs,
    beta_eff_of,
    power_correction_fit,
    put_local_slope,
    signal_end,
    slope_windows,
    successive_pairs,
    window_slope,
)
from analysis.plotting import (
    COLUMN_WIDTH,
    GUIDE_ZORDER,
    PANEL_HEIGHT,
    SIDE_BY_SIDE,
    STYLE,
    Drawn,
    attr,
    axis_label,
    draw_campaign_figures,
    fmt_number,
    guide_style,
    load_datasets,
    log_tick_labels,
    n_samples_of,
    new_figure,
    require_variables,
    styles_by,
    time_label,
    unit_text,
)
from analysis.stats import default_groups, jackknife
from simcore.io.dataset import unit_attributes

__all__ = [
    "BETA",
    "BETA_FIT_MIN_POINTS",
    "BETA_FIT_RULE",
    "BETA_FIT_T_LOWER",
    "BETA_FIT_T_LOWERS",
    "Curve",
    "FINITE_SIZE_LABEL",
    "LAMBDA_TARGET_ERR",
    "LambdaWindows",
    "REFERENCE_BETA",
    "REQUIRED_VARIABLES",
    "AnalysisInputError",
    "LiteratureValue",
    "analyze",
    "load_analyses",
    "draw_figures",
    "plot_C",
    "plot_W2",
    "plot_beta_eff",
    "draw_decaying",
    "dynamic_exponent",
    "noise_legend_entry",
    "plot_lambda_eff",
    "point_label",
    "reference_beta",
    "saturation_onset",
]

#: The model whose spec names the campaign figures drawn here.
MODEL = "kpz"


class LiteratureValue(NamedTuple):
    """A published value with its one-sigma error, as the paper writes it, and its source."""

    value: float
    error: float
    text: str
    source: str


#: The literature values of the KPZ growth exponent beta (the one table of them).
BETA: dict[str, LiteratureValue] = {
    "1d": LiteratureValue(1.0 / 3.0, 0.0, "1/3", "exact 1+1-dimensional KPZ value beta = 1/3"),
    # kelling2017 sec. 2.1 (after eq. 4): "the currently most precise estimate", from its
    # ref. [13], simulations with the implementation kelling2017 presents
    "2d": LiteratureValue(
        0.2414,
        0.0002,
        "0.2414(2)",
        "beta = 0.2414(2): Kelling, Odor, Gemming, 'Dynamical universality classes of simple "
        "growth and lattice gas models', arXiv (2017), as quoted in Kelling, Odor, Gemming, "
        "Comput. Phys. Commun. 220, 205 (2017), sec. 2.1 (its ref. [13])",
    ),
    # kelling2017 Fig. 6 and sec. 4.2: the asymptotic value of its ref. [19] (GPU runs with
    # cDB at device and single-hit DB at block level), drawn as the orange band
    "2d_kelling2011": LiteratureValue(
        0.2415,
        0.0015,
        "0.2415(15)",
        "asymptotic beta = 0.2415(15): Kelling, Odor, Phys. Rev. E 84, 061150 (2011), as shown "
        "in Kelling, Odor, Gemming, Comput. Phys. Commun. 220, 205 (2017), Fig. 6 (its ref. [19])",
    ),
}

#: The reference growth exponent of each substrate dimension d: recorded by
#: :func:`analyze` (``reference_beta``) and dashed in the ``beta_eff`` figure.
REFERENCE_BETA: dict[int, LiteratureValue] = {1: BETA["1d"], 2: BETA["2d"]}

#: Variables the analysis needs, with the dims each must have.
REQUIRED_VARIABLES: dict[str, tuple[str, ...]] = {
    "W2": ("sample", "t"),
    "mean_h": ("sample", "t"),
    "C_h": ("sample", "s", "t"),
    "C_s": ("sample", "s", "t"),
}

#: What an input of the figures must be, for messages.
WHAT = "a kpz analysis dataset"
#: Variables of an analysis dataset that the figures draw.
FIGURE_VARIABLES = (
    "W2_mean",
    "beta_eff",
    "beta_eff_err",
    "C_h_mean",
    "C_s_mean",
    "lambda_h_over_z_eff",
    "lambda_h_over_z_eff_err",
    "lambda_s_over_z_eff",
    "lambda_s_over_z_eff_err",
)

#: lambda/z: the slope error a window aims at, and how many jackknife errors a mean C must
#: stand above to count as signal.
LAMBDA_TARGET_ERR = 0.1
SIGNAL_SIGMAS = 2.0
#: W^2 of a system of size L departs from the growth law from about this fraction of
#: t_x = L^z on (the default campaign: L = 128 leaves L = 256 by more than two errors
#: from t ~ 0.1 L^z): the figures mark the finite-size regime from there.
SATURATION_ONSET = 0.1

LAMBDA_WINDOW_RULE = (
    f"lambda/z windows: for each waiting time s, the sampling times t > s up to (not "
    f"including) the first at which mean C is not above {SIGNAL_SIGMAS:g} jackknife errors "
    f"(the signal is lost there: C_<k>_signal_lost; no estimate after it); split from the "
    f"earliest into contiguous windows, each the shortest whose jackknife error of the slope "
    f"is at most {LAMBDA_TARGET_ERR:g} (the last window may exceed it); the estimate is "
    f"-(ln C(t_upper) - ln C(t_lower)) / ln(t_upper / t_lower), drawn at the geometric "
    f"midpoint sqrt(t_lower t_upper) / s"
)

#: The fit of the asymptotic beta: the main lower end of its window (in the time unit of
#: t), the other lower ends fitted as a stability check, and the fewest beta_eff values
#: a window must hold (three parameters and three degrees of freedom).
BETA_FIT_T_LOWER = 100.0
BETA_FIT_T_LOWERS = (50.0, BETA_FIT_T_LOWER, 200.0)
BETA_FIT_MIN_POINTS = 6
_CHECK_LOWERS = ", ".join(f"{t:g}" for t in BETA_FIT_T_LOWERS if t != BETA_FIT_T_LOWER)

BETA_FIT_RULE = (
    f"beta fit: beta_eff(t_eff) = beta + a t_eff^-omega, the leading correction to "
    f"scaling (with an intrinsic width, W^2 = A t^(2 beta) + w_i^2, one expects omega ~ "
    f"2 beta ~ 0.48; omega is left free and reported as a check), by weighted least "
    f"squares with diagonal weights 1/beta_eff_err^2, omega profiled over "
    f"[{OMEGA_RANGE[0]:g}, {OMEGA_RANGE[1]:g}] (grid, then golden section; "
    f"analysis.estimates.power_correction_fit), a in the time unit of t to the power "
    f"omega.  Window fixed a priori, never tuned to the result: all beta_eff with t_eff "
    f">= t_lower (main {BETA_FIT_T_LOWER:g}; {_CHECK_LOWERS} as a stability check), up "
    f"to the last one whose later time t_upper is at most "
    f"{SATURATION_ONSET:g} L^z (z = 2/(1 + reference beta); the finite-size regime "
    f"starts there) or the last time; only d = 1, 2, at least {BETA_FIT_MIN_POINTS} "
    f"values, all finite with finite errors, else NaN with the reason in the comment.  "
    f"Errors: the grouped jackknife of the whole chain samples -> means -> beta_eff -> "
    f"fit, each replica fitted with the same weights (the correlations between the "
    f"beta_eff are in the jackknife, not in the weights, so chi2/dof is a rough guide)"
)

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


def reference_beta(dim: int | None) -> float | None:
    """Reference KPZ growth exponent for substrate dimension ``dim`` (None if unknown)."""
    if dim is None:
        return None
    ref = REFERENCE_BETA.get(int(dim))
    return None if ref is None else ref.value


# ----------------------------------------------------------------------------- analysis


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


class LambdaWindows(NamedTuple):
    """Windows of lambda/z estimates of one autocorrelation (heights or slopes), all waiting
    times together along one dimension: per window the index of its waiting time ``s`` and
    of its first and last time ``t``."""

    s: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @classmethod
    def of(cls, rows: Sequence[tuple[int, int, int]]) -> LambdaWindows:
        """From ``(s, lo, hi)`` index triples."""
        cols = np.asarray(rows, dtype=np.int64).reshape(-1, 3).T
        return cls(cols[0], cols[1], cols[2])


def _signal_times(
    mean: np.ndarray, err: np.ndarray, times: np.ndarray, s_vals: np.ndarray
) -> tuple[list[np.ndarray], np.ndarray]:
    """Per waiting time, the indices of the times t > s at which C (``mean``, ``err`` of
    shape (s, t)) stands above ``SIGNAL_SIGMAS`` errors, up to the first at which it does
    not; and that first time (NaN where the signal is never lost)."""
    kept, lost = [], []
    for i, s in enumerate(s_vals):
        after = np.flatnonzero(times > s)
        n = signal_end(mean[i, after], err[i, after], SIGNAL_SIGMAS)
        kept.append(after[:n])
        lost.append(times[after[n]] if n < after.size else np.nan)
    return kept, np.asarray(lost, dtype=float)


def _candidates(kept: Sequence[np.ndarray]) -> LambdaWindows:
    """Every window (a, b), a < b, of every waiting time's signal times ``kept``."""
    rows = [(i, t[a], t[b]) for i, t in enumerate(kept)
            for a in range(t.size) for b in range(a + 1, t.size)]  # fmt: skip
    return LambdaWindows.of(rows)


def _chosen(kept: Sequence[np.ndarray], cand: LambdaWindows, cand_err: np.ndarray) -> np.ndarray:
    """Indices into the candidates ``cand`` of the windows :func:`slope_windows` chooses
    for each waiting time from the candidates' errors ``cand_err``."""
    pos = {(int(i), int(a), int(b)): k for k, (i, a, b) in enumerate(zip(*cand, strict=True))}
    chosen = []
    for i, t in enumerate(kept):
        err = np.full((t.size, t.size), np.nan)
        for a in range(t.size):
            for b in range(a + 1, t.size):
                err[a, b] = cand_err[pos[(i, int(t[a]), int(t[b]))]]
        chosen += [pos[(i, int(t[a]), int(t[b]))] for a, b in slope_windows(err, LAMBDA_TARGET_ERR)]
    return np.asarray(chosen, dtype=np.int64)


def _lambdas(windows: dict[str, LambdaWindows], times: np.ndarray) -> Callable[[xr.Dataset], Any]:
    """The jackknife's ``func`` of the lambda/z estimates over fixed ``windows``: minus the
    slope of ln C against ln t (= ln(t/s) at fixed s) over each window."""

    def func(m: xr.Dataset) -> xr.Dataset:
        out = {}
        for kind, w in windows.items():
            dim = f"lambda_{kind}_window"
            idx = {k: xr.DataArray(getattr(w, k), dims=dim) for k in ("s", "lo", "hi")}
            slope = window_slope(m[f"C_{kind}"], times, idx["lo"], idx["hi"], s=idx["s"])
            out[f"lambda_{kind}_over_z_eff"] = -slope
        return xr.Dataset(out)

    return func


class BetaFitWindow(NamedTuple):
    """One window of the beta fit: its lower end ``t_lower`` (the rule's), the indices
    into ``t_eff`` of its beta_eff values, and why it cannot be fitted ('' if it can)."""

    t_lower: float
    index: np.ndarray
    reason: str


def _beta_fit_windows(
    ds: xr.Dataset, t_eff: np.ndarray, t_upper: np.ndarray, beta: np.ndarray, err: np.ndarray
) -> list[BetaFitWindow]:
    """The windows of :data:`BETA_FIT_RULE` for each of :data:`BETA_FIT_T_LOWERS`, from the
    beta_eff values ``beta`` (errors ``err``) at ``t_eff``, each from the pair of times
    ending at ``t_upper``."""
    none = np.zeros(0, dtype=np.int64)
    dim = _dim_of(ds)
    if dim not in REFERENCE_BETA:
        why = "substrate dimension unknown" if dim is None else f"d = {dim}"
        return [BetaFitWindow(t, none, f"{why}: fitted only for d = 1, 2")
                for t in BETA_FIT_T_LOWERS]  # fmt: skip
    onset = saturation_onset(ds)
    end = np.inf if onset is None else onset
    out = []
    for t_lo in BETA_FIT_T_LOWERS:
        idx = np.flatnonzero((t_eff >= t_lo) & (t_upper <= end))
        reason = ""
        if idx.size < BETA_FIT_MIN_POINTS:
            before = "" if onset is None else f" before the finite-size regime (t > {end:g})"
            reason = (f"{idx.size} beta_eff value(s) with t_eff >= {t_lo:g}{before}, fewer "
                      f"than {BETA_FIT_MIN_POINTS}")  # fmt: skip
        elif not np.all(np.isfinite(beta[idx])):
            reason = f"beta_eff not finite in the window t_eff >= {t_lo:g}"
        elif not np.all(np.isfinite(err[idx]) & (err[idx] > 0)):
            reason = (f"jackknife errors of beta_eff not finite and positive in the window "
                      f"t_eff >= {t_lo:g} (too few samples or groups)")  # fmt: skip
        out.append(BetaFitWindow(t_lo, idx, reason))
    return out


#: The fitted parameters, as :class:`analysis.estimates.PowerCorrectionFit` names them,
#: and the variables that store them.
_FIT_PARAMETERS = {
    "beta": "beta_asymptotic",
    "omega": "beta_correction_exponent",
    "a": "beta_correction_amplitude",
}


def _beta_fit(
    windows: Sequence[BetaFitWindow], times: np.ndarray, err: np.ndarray
) -> Callable[[xr.Dataset], xr.Dataset]:
    """The jackknife's ``func`` of the beta fit: beta_eff of the mean W2 (any replica
    dimension passes through), fitted over each window with the fixed weights
    ``1/err^2`` of the full sample; NaN for a window that cannot be fitted.  Also the
    chi2."""
    lo, hi = successive_pairs(times)
    t_eff = 0.5 * (times[lo] + times[hi])

    def func(m: xr.Dataset) -> xr.Dataset:
        b = beta_eff_of(m["W2"], times).transpose(..., "t_eff")
        rows = b.values
        shape = rows.shape[:-1]
        cols: dict[str, list[np.ndarray]] = {k: [] for k in (*_FIT_PARAMETERS, "chi2")}
        for w in windows:
            if not w.reason:
                fit = power_correction_fit(t_eff[w.index], rows[..., w.index], err[w.index])
                for k in cols:
                    cols[k].append(getattr(fit, k))
            else:
                for k in cols:
                    cols[k].append(np.full(shape, np.nan))
        dims = (*b.dims[:-1], "beta_fit")
        return xr.Dataset({k: (dims, np.stack(v, axis=-1)) for k, v in cols.items()})

    return func


def _put_beta_fit(
    out: xr.Dataset,
    ds: xr.Dataset,
    data: xr.Dataset,
    times: np.ndarray,
    groups: int,
    t_units: dict[str, str],
) -> xr.Dataset:
    """``out`` with the fit of the asymptotic beta (:data:`BETA_FIT_RULE`) over the dim
    ``beta_fit``, one entry per lower end of :data:`BETA_FIT_T_LOWERS`: the estimates and
    jackknife errors of beta, omega and a, chi2/dof, the number of values and the window,
    each NaN where its window cannot be fitted, the reason in the comment."""
    t_eff = out["t_eff"].values
    beta, err = out["beta_eff"].values, out["beta_eff_err"].values
    windows = _beta_fit_windows(ds, t_eff, out["t_upper"].values, beta, err)
    weights = np.where(np.isfinite(err) & (err > 0), err, 1.0)  # outside the windows: unused
    est, jk_err = jackknife(data[["W2"]], _beta_fit(windows, times, weights), dim="sample",
                            n_groups=groups, vectorized=True)  # fmt: skip
    n_points = np.array([w.index.size for w in windows], dtype=np.int64)
    last = [float(t_eff[w.index[-1]]) if w.index.size else np.nan for w in windows]
    notes = [f"t_lower={w.t_lower:g}: {w.reason}" for w in windows if w.reason]
    omega = est["omega"].values
    for w, om in zip(windows, omega, strict=True):
        if not w.reason and np.isfinite(om) and (om <= OMEGA_RANGE[0] * (1 + 1e-9)
                                                 or om >= OMEGA_RANGE[1] * (1 - 1e-9)):  # fmt: skip
            notes.append(f"t_lower={w.t_lower:g}: omega at an end of its search range "
                         f"{list(OMEGA_RANGE)}, the fit is not a minimum inside it")  # fmt: skip
    comment = "; ".join([*notes, BETA_FIT_RULE])

    out = out.assign_coords(
        beta_fit_t_lower=("beta_fit", np.asarray(BETA_FIT_T_LOWERS, dtype=float),
                          {"long_name": "lower end of the beta fit window (t_eff >= it)",
                           **t_units}),
        beta_fit_t_upper=("beta_fit", np.asarray(last, dtype=float),
                          {"long_name": "t_eff of the last beta_eff in the beta fit window",
                           **t_units}),
    )  # fmt: skip
    words = {
        "beta": "asymptotic growth exponent beta of the fit beta_eff = beta + a t^-omega",
        "omega": "correction-to-scaling exponent omega of the fit beta_eff = beta + a t^-omega",
        "a": "correction amplitude a of the fit beta_eff = beta + a t^-omega (t in the time "
        "unit of t)",
    }
    for key, name in _FIT_PARAMETERS.items():
        out[name] = est[key].variable
        out[name].attrs = {"long_name": words[key], "units": "1", "comment": comment}
        out[f"{name}_err"] = jk_err[key].variable
        out[f"{name}_err"].attrs = {"long_name": f"jackknife standard error of {name}",
                                    "units": "1", "comment": comment}  # fmt: skip
    dof = np.where(n_points > 3, n_points - 3, 1)
    out["beta_fit_chi2_per_dof"] = ("beta_fit", est["chi2"].values / dof)
    out["beta_fit_chi2_per_dof"].attrs = {
        "long_name": "chi2 per degree of freedom of the beta fit (diagonal weights; "
        "neighbouring beta_eff are correlated, so a rough guide only)",
        "units": "1",
        "comment": comment,
    }
    out["beta_fit_n_points"] = ("beta_fit", n_points)
    out["beta_fit_n_points"].attrs = {"long_name": "number of beta_eff values in the beta "
                                      "fit window", "units": "1"}  # fmt: skip
    return out


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
        and ``beta_fit_n_points`` over ``beta_fit`` (the fit of :data:`BETA_FIT_RULE`, one
        entry per lower end ``beta_fit_t_lower`` of :data:`BETA_FIT_T_LOWERS`, with
        ``beta_fit_t_upper``; NaN with the reason in ``comment`` where a window cannot be
        fitted); ``snapshot`` with its coordinates (``snapshot_sample``, ``snapshot_seed``,
        ``y``, ``x``) unchanged where ``ds`` has height snapshots (:func:`_put_snapshot`).
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
    s_vals = np.asarray(data["s"].values, dtype=float)
    kept, lost, cand = {}, {}, {}
    for kind in ("h", "s"):
        mean, e = est[f"C_{kind}_mean"].values, err[f"C_{kind}_mean"].values
        kept[kind], lost[kind] = _signal_times(mean, e, times, s_vals)
        cand[kind] = _candidates(kept[kind])
    c_est, c_err = jackknife(data[["C_h", "C_s"]], _lambdas(cand, times), dim="sample",
                             n_groups=groups, vectorized=True)  # fmt: skip
    pick = {kind: _chosen(kept[kind], cand[kind], c_err[f"lambda_{kind}_over_z_eff"].values)
            for kind in ("h", "s")}  # fmt: skip
    windows = {kind: LambdaWindows(*(x[pick[kind]] for x in cand[kind])) for kind in pick}
    lam = c_est.isel({f"lambda_{k}_window": pick[k] for k in pick})
    lam_err = c_err.isel({f"lambda_{k}_window": pick[k] for k in pick})

    lo, hi = successive_pairs(times)
    t_units = unit_attributes(ds["t"].attrs)
    out = xr.Dataset(coords={"t": data["t"].values, "s": data["s"].values})
    out["t"].attrs = {**ds["t"].attrs, "long_name": "time"}
    out["s"].attrs = {**ds["s"].attrs, "long_name": "waiting time s"}
    out = put_local_slope(
        out, est, err, "beta_eff",
        "effective growth exponent beta_eff (kelling2017 eq. 8, E = sqrt(mean W2))",
        times, t_units,
    )  # fmt: skip

    def put(name: str, value: xr.DataArray, long_name: str, units: dict[str, str]) -> None:
        out[name] = value.variable
        out[name].attrs = {"long_name": long_name, **units}

    for var in ("W2", "mean_h", "C_h", "C_s"):
        long_name, units = str(ds[var].attrs.get("long_name", var)), unit_attributes(ds[var].attrs)
        put(f"{var}_mean", est[f"{var}_mean"], f"sample mean of {long_name}", units)
        put(f"{var}_err", err[f"{var}_mean"],
            f"jackknife standard error of the sample mean of {long_name}", units)  # fmt: skip
    for kind, word in (("h", "heights"), ("s", "slopes")):
        w, dim, name = windows[kind], f"lambda_{kind}_window", f"lambda_{kind}_over_z_eff"
        put(f"C_{kind}_signal_lost", xr.DataArray(lost[kind], dims="s"),
            f"first time t > s at which mean C_{kind} is not above {SIGNAL_SIGMAS:g} jackknife "
            "errors (NaN: never); lambda/z is not estimated from there on", t_units)  # fmt: skip
        t_lo, t_hi = times[w.lo], times[w.hi]
        out = out.assign_coords(
            {
                f"lambda_{kind}_s": (dim, s_vals[w.s], {"long_name": "waiting time s of "
                                     "the window", **unit_attributes(ds["s"].attrs)}),
                f"lambda_{kind}_t_lower": (dim, t_lo, {"long_name": "first time of the "
                                           "window", **t_units}),
                f"lambda_{kind}_t_upper": (dim, t_hi, {"long_name": "last time of the "
                                           "window", **t_units}),
                f"lambda_{kind}_t_over_s": (dim, np.sqrt(t_lo * t_hi) / s_vals[w.s],
                                            {"long_name": "t/s at the geometric midpoint of "
                                             "the window", "units": "1"}),
            }
        )  # fmt: skip
        put(
            name,
            lam[name],
            f"effective autocorrelation exponent lambda_{kind}/z of the {word}: "
            f"-d ln C_{kind} / d ln(t/s) over a window of times t > s",
            {"units": "1"},
        )
        put(f"{name}_err", lam_err[name], f"jackknife standard error of {name}",
            {"units": "1"})  # fmt: skip
        out[name].attrs["comment"] = LAMBDA_WINDOW_RULE
    out = _put_beta_fit(out, ds, data, times, groups, t_units)
    if "snapshot" in ds.data_vars:
        out = _put_snapshot(out, ds)

    attrs = analysis_attrs(
        ds,
        "effective exponents",
        ANALYSIS_METHOD,
        groups,
        lambda_window_rule=LAMBDA_WINDOW_RULE,
        beta_fit_rule=BETA_FIT_RULE,
    )
    ref = REFERENCE_BETA.get(_dim_of(ds))
    if ref is not None:
        attrs["reference_beta"] = ref.value
        attrs["reference_beta_err"] = ref.error
        attrs["reference_beta_source"] = ref.source
    out.attrs = attrs
    return out


def _put_snapshot(out: xr.Dataset, ds: xr.Dataset) -> xr.Dataset:
    """``out`` with the height snapshots of ``ds`` (the kpz key ``snapshot_samples``) as
    they are, every snapshot sample with its coordinates: the paper figures are drawn from
    analysis files, and a surface is a single sample's, nothing to average.  The integers
    stay zlib-compressed (the pipeline's writer compresses only floats)."""
    out = out.merge(ds[["snapshot"]])
    out["snapshot"].encoding = {"zlib": True, "complevel": 4}
    return out


# ----------------------------------------------------------------------------- labels


def load_analyses(paths: Iterable[str | os.PathLike[str]]) -> list[xr.Dataset]:
    """Open kpz analysis datasets fully into memory; a file lacking a variable the
    figures draw raises ``ValueError`` naming it."""
    datasets = load_datasets(paths)
    require_variables(datasets, FIGURE_VARIABLES, WHAT)
    return datasets


def _dim_of(ds: xr.Dataset) -> int | None:
    try:
        return int(ds.attrs["dim"])
    except (KeyError, TypeError, ValueError):
        return None


def point_label(ds: xr.Dataset, short: bool = False) -> str:
    """Legend text naming a parameter point: d, L, p, q, scheme, number of samples.

    ``short`` drops d (used inside per-dimension panels, whose title gives d).
    """
    parts = [] if short else [f"d={attr(ds, 'dim')}"]
    parts += [
        f"L={attr(ds, 'L')}",
        f"p={fmt_number(attr(ds, 'p'))}",
        f"q={fmt_number(attr(ds, 'q'))}",
        str(attr(ds, "scheme")),
        f"n={n_samples_of(ds)}",
    ]
    return ", ".join(parts)


def _wrapped_label(ds: xr.Dataset) -> str:
    return (
        f"d={attr(ds, 'dim')}, L={attr(ds, 'L')}, p={fmt_number(attr(ds, 'p'))}, "
        f"q={fmt_number(attr(ds, 'q'))}\n{attr(ds, 'scheme')}, n={n_samples_of(ds)}"
    )


def _by_dim(datasets: Sequence[xr.Dataset]) -> list[tuple[int | None, list[xr.Dataset]]]:
    groups: dict[int | None, list[xr.Dataset]] = {}
    for d in datasets:
        groups.setdefault(_dim_of(d), []).append(d)
    return sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))


def _dim_title(d: int | None) -> str:
    return f"d = {d}" if d is not None else "d = ?"


def _s_colors(n: int) -> list[Any]:
    cmap = matplotlib.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.0, 0.85, n)]


def _reference(ds: xr.Dataset) -> tuple[float, str] | None:
    """The dashed reference of a beta_eff panel: the analysis's ``reference_beta``, else
    the table's value for its dimension; with its legend text."""
    d = _dim_of(ds)
    ref = REFERENCE_BETA.get(d) if d is not None else None
    label = None if ref is None else rf"$\beta = {ref.text}$ ({d}D KPZ)"
    if "reference_beta" in ds.attrs:
        val = float(ds.attrs["reference_beta"])
        return val, label or rf"$\beta = {val:g}$"
    return None if ref is None else (ref.value, label)


# ----------------------------------------------------------------------------- figures


def dynamic_exponent(dim: int | None) -> float | None:
    """The KPZ dynamic exponent z of substrate dimension ``dim``, from the reference beta
    and the scaling relations alpha + z = 2, beta = alpha / z: z = 2 / (1 + beta) (3/2 in
    d = 1, 1.61 in d = 2); None where no beta is known."""
    ref = REFERENCE_BETA.get(dim) if dim is not None else None
    return None if ref is None else 2.0 / (1.0 + ref.value)


def saturation_onset(ds: xr.Dataset) -> float | None:
    """The time ``SATURATION_ONSET * L^z`` from which a point's W^2 bends towards its
    saturation value W^2 ~ L^(2 alpha) (t_x ~ L^z); None without L or a known z."""
    z = dynamic_exponent(_dim_of(ds))
    try:
        L = float(ds.attrs["L"])
    except (KeyError, TypeError, ValueError):
        return None
    return None if z is None else SATURATION_ONSET * L**z


#: The settings that tell two kpz points of one size apart (marker and line style; the
#: size is the colour).
_SHAPE_KEYS = ("p", "q", "scheme", "tc", "t_async", "backend")
#: Legend text of the open markers of the W^2 and beta_eff figures.
FINITE_SIZE_LABEL = rf"open: $t > {SATURATION_ONSET:g}\,L^z$ (finite size; tick: onset)"


def _styles(dss: Sequence[xr.Dataset]) -> list[dict[str, Any]]:
    """Colour by L (fixed per size: :func:`analysis.plotting.size_color`), marker and line
    style by the other settings; markers filled, since open ones mark the finite-size
    regime."""
    return [{**s, "mfc": None} for s in styles_by(dss, "L", _SHAPE_KEYS)]


def _draw_with_onset(
    ax: Any, ds: xr.Dataset, x: np.ndarray, y: np.ndarray, e: np.ndarray, style: dict[str, Any]
) -> None:
    """The means ``y`` (errors ``e``) at times ``x`` of one point with filled markers, and
    open ones (white inside) over those in its finite-size regime, x > its saturation
    onset."""
    ax.errorbar(x, y, yerr=np.nan_to_num(e), label=point_label(ds, short=True), **style)
    onset = saturation_onset(ds)
    late = x > onset if onset is not None else np.zeros(x.shape, dtype=bool)
    if late.any():
        ax.plot(x[late], y[late], color=style["color"], marker=style["marker"], mfc="white",
                linestyle="none", zorder=style["zorder"] + 0.2)  # fmt: skip


def _mark_onsets(ax: Any, dss: Sequence[xr.Dataset], styles: Sequence[dict]) -> list[tuple]:
    """A tick at the top of ``ax`` at each size's saturation onset inside the drawn times,
    in the size's colour; returns the legend entry of the finite-size regime: one open
    marker per size so marked, in its colour (none where no size reaches it).

    Why ticks and open markers rather than shading: the regimes of several sizes are
    nested intervals, whose shades blend into one colour that names no size."""
    t_max = max(float(np.nanmax(d["t"].values)) for d in dss)
    onsets: dict[float, tuple[float, Any]] = {}
    for ds, style in zip(dss, styles, strict=True):
        t0 = saturation_onset(ds)
        if t0 is not None and t0 < t_max:
            onsets.setdefault(float(ds.attrs["L"]), (t0, style["color"]))
    handles = []
    for _, (t0, color) in sorted(onsets.items()):
        ax.vlines(t0, 0.93, 1.0, transform=ax.get_xaxis_transform(), color=color,
                  linewidth=1.5, zorder=GUIDE_ZORDER)  # fmt: skip
        handles.append(Line2D([], [], color=color, marker="o", mfc="white", linestyle="none"))
    return [(tuple(handles), FINITE_SIZE_LABEL)] if handles else []


def _per_dimension(
    datasets: Sequence[xr.Dataset],
    draw: Callable[[Any, int | None, list[xr.Dataset]], list[tuple]],
    ylabel: str,
) -> Figure:
    """One panel per substrate dimension, stacked: ``draw(ax, d, points of d)`` plots, sets
    the scales and returns legend entries not drawn on the axes (handle, label); then the
    tick and axis labels, d as the title, and the panel's legend below it (the curves fill
    the axes)."""
    groups = _by_dim(datasets)
    entries = [len(dss) + 2 for _, dss in groups]  # curves, reference, finite size
    heights = [1.9 + 0.12 * k for k in entries]
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(COLUMN_WIDTH, sum(heights) + 0.1), layout="constrained")
        FigureCanvasAgg(fig)
        subs = np.atleast_1d(fig.subfigures(len(groups), 1, height_ratios=heights))
        for sub, (d, dss) in zip(subs, groups, strict=True):
            ax = sub.subplots()
            extra = draw(ax, d, dss)
            log_tick_labels(ax)
            ax.set_xlabel(time_label(dss))
            ax.set_ylabel(ylabel)
            ax.set_title(_dim_title(d))
            handles, labels = ax.get_legend_handles_labels()
            handles += [h for h, _ in extra]
            labels += [label for _, label in extra]
            sub.legend(handles, labels, loc="outside lower center", fontsize=6,
                       handler_map=SIDE_BY_SIDE)  # fmt: skip
    return fig


def plot_W2(datasets: Sequence[xr.Dataset]) -> Figure:
    """W^2(t) log-log with jackknife error bars, one line per parameter point (the colour
    of its L, fixed per size), one panel per substrate dimension; a t^(2 beta) guide with
    the reference beta above the data, and each point's finite-size regime (t >
    SATURATION_ONSET L^z), where W^2 bends towards saturation, in open markers with a
    tick at its onset in the size's colour."""

    def draw(ax: Any, d: int | None, dss: list[xr.Dataset]) -> list[tuple]:
        styles = _styles(dss)
        for ds, style in zip(dss, styles, strict=True):
            t = np.asarray(ds["t"].values, dtype=float)
            y = np.asarray(ds["W2_mean"].values, dtype=float)
            e = np.asarray(ds["W2_err"].values, dtype=float)
            ok = (t > 0) & (y > 0)
            _draw_with_onset(ax, ds, t[ok], y[ok], e[ok], style)
        ref = REFERENCE_BETA.get(d) if d is not None else None
        if ref is not None:  # the guide through the largest system, before its crossover
            big = max(dss, key=lambda x: float(x.attrs.get("L", 0)))
            t = np.asarray(big["t"].values, dtype=float)
            y = np.asarray(big["W2_mean"].values, dtype=float)
            t_end = min(saturation_onset(big) or t.max(), t.max())
            ok = (t > 0) & (t <= t_end) & (y > 0)
            if ok.sum() >= 2:
                t0 = float(np.sqrt(t[ok][0] * t[ok][-1]))
                y0 = float(np.exp(np.interp(np.log(t0), np.log(t[ok]), np.log(y[ok]))))
                tt = t[ok & (t >= t0 / 2)]  # above the curve, up to the crossover
                ax.plot(tt, 2 * y0 * (tt / t0) ** (2 * ref.value), **guide_style(),
                        label=rf"$\propto t^{{2\beta}}$, $\beta = {ref.text}$")  # fmt: skip
        ax.set_xscale("log")
        ax.set_yscale("log")
        return _mark_onsets(ax, dss, styles)

    return _per_dimension(datasets, draw, axis_label("$W^2$", datasets[0]["W2_mean"].attrs))


def plot_beta_eff(datasets: Sequence[xr.Dataset]) -> Figure:
    """beta_eff(t) with jackknife error bars (the colour of each point's L), log t, the
    reference beta per dimension dashed above the data, and each point's finite-size
    regime in open markers with a tick at its onset (there beta_eff turns down towards 0
    as W^2 saturates: not a bug)."""

    def draw(ax: Any, d: int | None, dss: list[xr.Dataset]) -> list[tuple]:
        styles = _styles(dss)
        for ds, style in zip(dss, styles, strict=True):
            t = np.asarray(ds["t_eff"].values, dtype=float)
            y = np.asarray(ds["beta_eff"].values, dtype=float)
            e = np.asarray(ds["beta_eff_err"].values, dtype=float)
            ok = np.isfinite(y)
            _draw_with_onset(ax, ds, t[ok], y[ok], e[ok], style)
        ref = _reference(dss[0])
        if ref is not None:
            ax.axhline(ref[0], **guide_style(), label=ref[1])
        ax.set_xscale("log")
        return _mark_onsets(ax, dss, styles)

    return _per_dimension(datasets, draw, r"$\beta_{eff}$")


def _symlog_threshold(y: np.ndarray, e: np.ndarray) -> float | None:
    """The linear range of a symlog axis for values ``y`` with errors ``e``: where some mean
    is not above ``SIGNAL_SIGMAS`` errors (the signal is lost), the power of ten below
    that noise level (median of SIGNAL_SIGMAS * e over those points); else None (a log
    axis shows every value)."""
    noisy = np.isfinite(y) & np.isfinite(e) & (y <= SIGNAL_SIGMAS * e)
    if not noisy.any():
        return None
    level = float(np.median(SIGNAL_SIGMAS * e[noisy]))
    return 10.0 ** np.floor(np.log10(level)) if level > 0 else None


class Curve(NamedTuple):
    """A curve of sample means with errors to draw, with its matplotlib style."""

    x: np.ndarray
    y: np.ndarray
    err: np.ndarray
    label: str
    style: dict[str, Any]


def draw_decaying(ax: Any, curves: Sequence[Curve]) -> None:
    """Decaying means (autocorrelations) with error bars on a log y axis; filled markers
    where a mean stands above ``SIGNAL_SIGMAS`` errors, open ones where it does not.  If the
    signal is lost anywhere the y axis is symlog with the noise band linear (shaded), so
    every point is drawn, negative ones too, and no line runs across missing data."""
    y_all = np.concatenate([c.y for c in curves]) if curves else np.array([])
    e_all = np.concatenate([c.err for c in curves]) if curves else np.array([])
    lin = _symlog_threshold(y_all, e_all)
    for c in curves:
        x, y, e = c.x, c.y, np.nan_to_num(c.err)
        if lin is None:
            keep = y > 0
            x, y, e = x[keep], y[keep], e[keep]
        style = {k: v for k, v in c.style.items() if k != "marker"}
        marker = c.style.get("marker", "o")
        ax.errorbar(x, y, yerr=e, marker="none", label=c.label, **style)
        signal = y > SIGNAL_SIGMAS * e
        dots = {"color": style.get("color"), "marker": marker, "linestyle": "none"}
        ax.plot(x[signal], y[signal], **dots, zorder=style.get("zorder", 2))
        ax.plot(x[~signal], y[~signal], **dots, mfc="none", zorder=style.get("zorder", 2))
    ax.set_xscale("log")
    if lin is None:
        ax.set_yscale("log")
    else:
        ax.set_yscale("symlog", linthresh=lin, linscale=0.5)
        ax.axhspan(-lin, lin, color="0.88", linewidth=0, zorder=0, label="linear axis")
    log_tick_labels(ax)


def noise_legend_entry() -> tuple[Line2D, str]:
    """The legend entry of the open markers of :func:`draw_decaying`."""
    marker = Line2D([], [], marker="o", mfc="none", color="0.3", linestyle="none")
    return marker, rf"$\leq {SIGNAL_SIGMAS:g}$ errors"


def _c_curves(ds: xr.Dataset, kind: str) -> list[Curve]:
    """C_kind(t, s) vs t/s for t >= s, one curve per waiting time."""
    t = np.asarray(ds["t"].values, dtype=float)
    s_vals = np.asarray(ds["s"].values, dtype=float)
    out = []
    for k, (s, color) in enumerate(zip(s_vals, _s_colors(len(s_vals)), strict=True)):
        y = np.asarray(ds[f"C_{kind}_mean"].isel(s=k).values, dtype=float)
        e = np.asarray(ds[f"C_{kind}_err"].isel(s=k).values, dtype=float)
        ok = (t >= s) & np.isfinite(y)
        out.append(Curve(t[ok] / s, y[ok], e[ok], f"{s:g}", {"color": color}))
    return out


def plot_C(datasets: Sequence[xr.Dataset], kind: str = "h") -> Figure:
    """C_kind(t, s) vs t/s with jackknife error bars, one line per waiting time s, one panel
    per point (stacked, the legend beside each).  Where C decays into its noise the axis
    turns symlog (:func:`draw_decaying`), so the figure shows where the signal is lost
    instead of skipping points."""
    if kind not in ("h", "s"):
        raise ValueError(f"kind must be 'h' or 's', got {kind!r}")
    symbol = r"$C_h(t,s)$" if kind == "h" else r"$C_s(t,s)$"
    n = len(datasets)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(n, 1, PANEL_HEIGHT if n == 1 else 0.3 + 2.0 * n)
        for ax, ds in zip(axes[:, 0], datasets, strict=True):
            draw_decaying(ax, _c_curves(ds, kind))
            ax.set_xlabel("t/s")
            ax.set_ylabel(axis_label(symbol, ds[f"C_{kind}_mean"].attrs))
            ax.set_title(point_label(ds), fontsize=7)
            if not ds.sizes["s"]:  # a point run without waiting times has no C(t, s)
                ax.text(0.5, 0.5, "no waiting times", ha="center", va="center",
                        transform=ax.transAxes)  # fmt: skip
                continue
            handles, labels = ax.get_legend_handles_labels()
            marker, text = noise_legend_entry()
            handles.append(marker)
            labels.append(text)
            ax.legend(handles, labels, title=f"s [{unit_text(ds['s'].attrs)}]",
                      loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=6,
                      title_fontsize=6)  # fmt: skip
    return fig


def plot_lambda_eff(datasets: Sequence[xr.Dataset]) -> Figure:
    """Effective lambda/z vs t/s for heights (left) and slopes (right), one row per point,
    one line per waiting time, with jackknife error bars, each estimate drawn at the
    geometric midpoint of its window (the analysis chooses the windows from the errors and
    stops where C is lost in its noise: :data:`LAMBDA_WINDOW_RULE`)."""
    n = len(datasets)
    height = PANEL_HEIGHT + 0.2 if n == 1 else 0.4 + 2.1 * n
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(COLUMN_WIDTH, height), layout="constrained")
        FigureCanvasAgg(fig)
        rows = np.atleast_1d(fig.subfigures(n, 1))
        for sub, ds in zip(rows, datasets, strict=True):
            sub.suptitle(point_label(ds), fontsize=7)
            axes = sub.subplots(1, 2, squeeze=False)[0]
            s_vals = np.asarray(ds["s"].values, dtype=float)
            colors = _s_colors(len(s_vals))
            for ax, kind, word in zip(axes, ("h", "s"), ("heights", "slopes"), strict=True):
                name = f"lambda_{kind}_over_z_eff"
                w_s = np.asarray(ds[f"lambda_{kind}_s"].values, dtype=float)
                x_all = np.asarray(ds[f"lambda_{kind}_t_over_s"].values, dtype=float)
                for s, color in zip(s_vals, colors, strict=True):
                    m = w_s == s
                    if not m.any():
                        continue
                    ax.errorbar(x_all[m], ds[name].values[m], yerr=ds[f"{name}_err"].values[m],
                                marker="o", color=color, label=f"s={s:g}")  # fmt: skip
                ax.set_xscale("log")
                log_tick_labels(ax)
                ax.set_xlabel("t/s (window midpoint)")
                ax.set_ylabel(rf"$(\lambda_{kind}/z)_{{eff}}$")
                ax.set_title(word, fontsize=7)
                if not ax.has_data():  # no waiting times, or C(t, s) lost in its noise
                    why = "no waiting times" if not s_vals.size else "C lost in noise"
                    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes)
            handles, labels = axes[0].get_legend_handles_labels()
            if handles:  # one legend per row, below the panels: the data fill the axes
                sub.legend(handles, labels, loc="outside lower center",
                           ncols=min(len(labels), 4), fontsize=7, handlelength=1.5,
                           columnspacing=1.0)  # fmt: skip
        fig.supxlabel(
            f"windows: slope error <= {LAMBDA_TARGET_ERR:g}; none after C(t,s) "
            f"< {SIGNAL_SIGMAS:g} errors", fontsize=6, color="0.3")  # fmt: skip
    return fig


#: How each campaign figure is drawn from the analyses.
_FIGURES: dict[str, Callable[[Sequence[xr.Dataset]], Figure]] = {
    "W2": plot_W2,
    "beta_eff": plot_beta_eff,
    "C_h": lambda datasets: plot_C(datasets, "h"),
    "C_s": lambda datasets: plot_C(datasets, "s"),
    "lambda_eff": plot_lambda_eff,
}


def draw_figures(
    analyses: Sequence[xr.Dataset], names: Collection[str] | None = None
) -> dict[str, Drawn]:
    """The campaign figures of kpz analyses with their provenance: those the kpz spec's
    ``campaign_figures`` names, in its order (only ``names``, if given).  Raises
    ``ValueError`` naming the file for an input that is not a kpz analysis."""
    require_variables(analyses, FIGURE_VARIABLES, WHAT)
    return draw_campaign_figures(MODEL, analyses, _FIGURES, names=names)
