"""The windows and fits of the kpz analysis (:func:`analysis.kpz.analyze`): the effective
autocorrelation exponents lambda/z over windows of times chosen from their jackknife
errors (:data:`LAMBDA_WINDOW_RULE`), and the asymptotic growth exponent fitted to
``beta_eff = beta + a t^-omega`` over windows fixed in advance (:data:`BETA_FIT_RULE`;
:func:`analysis.estimates.power_correction_fit`).  Each is a jackknife of the whole chain
samples -> means -> estimate (:mod:`analysis.stats`), and each ``put_*`` stores its
results, with their windows as coordinates, in the analysis dataset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from analysis.estimates import (
    OMEGA_RANGE,
    beta_eff_of,
    power_correction_fit,
    signal_end,
    slope_windows,
    successive_pairs,
    window_slope,
)
from analysis.kpz_literature import REFERENCE_BETA, SATURATION_ONSET, dim_of, saturation_onset
from analysis.stats import jackknife
from simcore.io.dataset import unit_attributes

__all__ = [
    "BETA_FIT_MIN_POINTS",
    "BETA_FIT_RULE",
    "BETA_FIT_T_LOWER",
    "BETA_FIT_T_LOWERS",
    "LAMBDA_TARGET_ERR",
    "LAMBDA_WINDOW_RULE",
    "SIGNAL_SIGMAS",
    "BetaFitWindow",
    "LambdaWindows",
    "BETA_FIT",
    "WindowFit",
    "beta_fit_windows",
    "put_window_fits",
    "put_lambdas",
    "set_variable",
]

#: lambda/z: the slope error a window aims at, and how many jackknife errors a mean C must
#: stand above to count as signal.
LAMBDA_TARGET_ERR = 0.1
SIGNAL_SIGMAS = 2.0

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


def set_variable(
    out: xr.Dataset, name: str, value: xr.DataArray, long_name: str, units: dict[str, str]
) -> None:
    """``out[name] = value`` (its variable: dims by name) with its long name and units."""
    out[name] = value.variable
    out[name].attrs = {"long_name": long_name, **units}


def _lambda_estimates(
    data: xr.Dataset, est: xr.Dataset, err: xr.Dataset, groups: int
) -> tuple[dict[str, LambdaWindows], dict[str, np.ndarray], xr.Dataset, xr.Dataset]:
    """The lambda/z estimates of heights and slopes of the samples ``data`` (sorted by t),
    whose mean C and its errors are ``est``, ``err``: per kind the chosen windows, the
    time at which the signal is lost per waiting time, and the estimates with their
    jackknife errors over the windows chosen (:data:`LAMBDA_WINDOW_RULE`)."""
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
    return windows, lost, lam, lam_err


def put_lambdas(
    out: xr.Dataset,
    ds: xr.Dataset,
    data: xr.Dataset,
    est: xr.Dataset,
    err: xr.Dataset,
    groups: int,
    t_units: dict[str, str],
) -> xr.Dataset:
    """``out`` with, for heights and slopes, ``C_<k>_signal_lost`` (s) and
    ``lambda_<k>_over_z_eff(_err)`` over ``lambda_<k>_window`` with its coordinates
    ``lambda_<k>_s``, ``lambda_<k>_t_lower``, ``lambda_<k>_t_upper`` and
    ``lambda_<k>_t_over_s``, from the samples ``data`` of ``ds`` (sorted by t) whose mean C
    and its errors are ``est``, ``err``."""
    windows, lost, lam, lam_err = _lambda_estimates(data, est, err, groups)
    times = np.asarray(data["t"].values, dtype=float)
    s_vals = np.asarray(data["s"].values, dtype=float)
    for kind, word in (("h", "heights"), ("s", "slopes")):
        w, dim, name = windows[kind], f"lambda_{kind}_window", f"lambda_{kind}_over_z_eff"
        set_variable(out, f"C_{kind}_signal_lost", xr.DataArray(lost[kind], dims="s"),
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
        set_variable(
            out,
            name,
            lam[name],
            f"effective autocorrelation exponent lambda_{kind}/z of the {word}: "
            f"-d ln C_{kind} / d ln(t/s) over a window of times t > s",
            {"units": "1"},
        )
        set_variable(out, f"{name}_err", lam_err[name], f"jackknife standard error of {name}",
                     {"units": "1"})  # fmt: skip
        out[name].attrs["comment"] = LAMBDA_WINDOW_RULE
    return out


class BetaFitWindow(NamedTuple):
    """One window of the beta fit: its lower end ``t_lower`` (the rule's), the indices
    into ``t_eff`` of its beta_eff values, and why it cannot be fitted ('' if it can)."""

    t_lower: float
    index: np.ndarray
    reason: str


def beta_fit_windows(
    ds: xr.Dataset,
    t_eff: np.ndarray,
    t_upper: np.ndarray,
    beta: np.ndarray,
    err: np.ndarray,
    lowers: Sequence[float] = BETA_FIT_T_LOWERS,
    min_points: int = BETA_FIT_MIN_POINTS,
) -> list[BetaFitWindow]:
    """The windows of :data:`BETA_FIT_RULE` for each lower end of ``lowers``, from the
    beta_eff values ``beta`` (errors ``err``) at ``t_eff``, each from the pair of times
    ending at ``t_upper``; ``min_points`` values at least (the plateau of
    :mod:`analysis.kpz_plateau` takes the same windows with other lower ends)."""
    none = np.zeros(0, dtype=np.int64)
    dim = dim_of(ds)
    if dim not in REFERENCE_BETA:
        why = "substrate dimension unknown" if dim is None else f"d = {dim}"
        return [BetaFitWindow(t, none, f"{why}: fitted only for d = 1, 2")
                for t in lowers]  # fmt: skip
    onset = saturation_onset(ds)
    end = np.inf if onset is None else onset
    out = []
    for t_lo in lowers:
        idx = np.flatnonzero((t_eff >= t_lo) & (t_upper <= end))
        reason = ""
        if idx.size < min_points:
            before = "" if onset is None else f" before the finite-size regime (t > {end:g})"
            reason = (f"{idx.size} beta_eff value(s) with t_eff >= {t_lo:g}{before}, fewer "
                      f"than {min_points}")  # fmt: skip
        elif not np.all(np.isfinite(beta[idx])):
            reason = f"beta_eff not finite in the window t_eff >= {t_lo:g}"
        elif not np.all(np.isfinite(err[idx]) & (err[idx] > 0)):
            reason = (f"jackknife errors of beta_eff not finite and positive in the window "
                      f"t_eff >= {t_lo:g} (too few samples or groups)")  # fmt: skip
        out.append(BetaFitWindow(t_lo, idx, reason))
    return out


class WindowFit(NamedTuple):
    """A fit of beta_eff over the windows t_eff >= each of ``lowers`` (:func:`put_window_fits`):
    ``fit(t, y, sigma)`` returns the parameters and ``chi2`` row by row; ``names`` maps
    each parameter to its variable and long name.  The windows lie along ``dim``, with the
    coordinates ``<prefix>_t_lower``/``_t_upper`` and the variables
    ``<prefix>_chi2_per_dof`` and ``<prefix>_n_points``; ``window`` and ``chi2_of`` word
    their long names, ``rule`` ends every comment; ``chi2`` is that of a fit of
    ``chi2_parameters`` parameters (its degrees of freedom); ``notes(windows, estimates)``,
    where given, adds what the comment should say of the estimates."""

    dim: str
    prefix: str
    lowers: Sequence[float]
    min_points: int
    fit: Callable[[np.ndarray, np.ndarray, np.ndarray], dict[str, np.ndarray]]
    names: dict[str, tuple[str, str]]
    rule: str
    window: str
    chi2_of: str
    chi2_parameters: int
    notes: Callable[[Sequence[BetaFitWindow], xr.Dataset], list[str]] | None = None


def _window_fits(
    spec: WindowFit, windows: Sequence[BetaFitWindow], times: np.ndarray, err: np.ndarray
) -> Callable[[xr.Dataset], xr.Dataset]:
    """The jackknife's ``func``: beta_eff of the mean W2 (any replica dimension passes
    through), fitted over each window with the fixed weights ``1/err^2`` of the full
    sample; NaN for a window that cannot be fitted."""
    lo, hi = successive_pairs(times)
    t_eff = 0.5 * (times[lo] + times[hi])
    keys = (*spec.names, "chi2")

    def func(m: xr.Dataset) -> xr.Dataset:
        b = beta_eff_of(m["W2"], times).transpose(..., "t_eff")
        rows = b.values
        cols: dict[str, list[np.ndarray]] = {k: [] for k in keys}
        for w in windows:
            if w.reason:
                fit = {k: np.full(rows.shape[:-1], np.nan) for k in keys}
            else:
                fit = spec.fit(t_eff[w.index], rows[..., w.index], err[w.index])
            for k in keys:
                cols[k].append(fit[k])
        dims = (*b.dims[:-1], spec.dim)
        return xr.Dataset({k: (dims, np.stack(v, axis=-1)) for k, v in cols.items()})

    return func


def put_window_fits(
    out: xr.Dataset,
    ds: xr.Dataset,
    data: xr.Dataset,
    times: np.ndarray,
    groups: int,
    t_units: dict[str, str],
    spec: WindowFit,
) -> xr.Dataset:
    """``out`` with the fits of ``spec`` over its windows (:func:`beta_fit_windows`) along
    ``spec.dim``, one entry per lower end: each window's estimates with jackknife errors,
    chi2/dof, number of values and ends, NaN where a window cannot be fitted, the reason
    in the comment (and what ``spec.notes`` says of the estimates)."""
    t_eff = out["t_eff"].values
    beta, err = out["beta_eff"].values, out["beta_eff_err"].values
    windows = beta_fit_windows(ds, t_eff, out["t_upper"].values, beta, err, spec.lowers,
                               spec.min_points)  # fmt: skip
    weights = np.where(np.isfinite(err) & (err > 0), err, 1.0)  # outside the windows: unused
    est, jk_err = jackknife(data[["W2"]], _window_fits(spec, windows, times, weights),
                            dim="sample", n_groups=groups, vectorized=True)  # fmt: skip
    n_points = np.array([w.index.size for w in windows], dtype=np.int64)
    last = [float(t_eff[w.index[-1]]) if w.index.size else np.nan for w in windows]
    found = [f"t_lower={w.t_lower:g}: {w.reason}" for w in windows if w.reason]
    comment = "; ".join([*found, *(spec.notes(windows, est) if spec.notes else []), spec.rule])
    pre, dim = spec.prefix, spec.dim
    out = out.assign_coords({
        f"{pre}_t_lower": (dim, np.asarray(spec.lowers, dtype=float),
                           {"long_name": f"lower end of the {spec.window} (t_eff >= it)",
                            **t_units}),
        f"{pre}_t_upper": (dim, np.asarray(last, dtype=float),
                           {"long_name": f"t_eff of the last beta_eff in the {spec.window}",
                            **t_units}),
    })  # fmt: skip
    for key, (name, long_name) in spec.names.items():
        out[name] = est[key].variable
        out[name].attrs = {"long_name": long_name, "units": "1", "comment": comment}
        out[f"{name}_err"] = jk_err[key].variable
        out[f"{name}_err"].attrs = {"long_name": f"jackknife standard error of {name}",
                                    "units": "1", "comment": comment}  # fmt: skip
    n_par = spec.chi2_parameters
    dof = np.where(n_points > n_par, n_points - n_par, 1)
    out[f"{pre}_chi2_per_dof"] = (dim, est["chi2"].values / dof)
    out[f"{pre}_chi2_per_dof"].attrs = {
        "long_name": f"chi2 per degree of freedom of {spec.chi2_of} (diagonal weights; "
        "neighbouring beta_eff are correlated, so a rough guide only)",
        "units": "1",
        "comment": comment,
    }
    out[f"{pre}_n_points"] = (dim, n_points)
    out[f"{pre}_n_points"].attrs = {"long_name": f"number of beta_eff values in the "
                                    f"{spec.window}", "units": "1"}  # fmt: skip
    return out


def _power_correction(t: np.ndarray, y: np.ndarray, sigma: np.ndarray) -> dict[str, np.ndarray]:
    fit = power_correction_fit(t, y, sigma)
    return {"beta": fit.beta, "omega": fit.omega, "a": fit.a, "chi2": fit.chi2}


def _omega_notes(windows: Sequence[BetaFitWindow], est: xr.Dataset) -> list[str]:
    """The windows whose omega sits at an end of its search range: no minimum inside it."""
    notes = []
    for w, om in zip(windows, est["omega"].values, strict=True):
        if not w.reason and np.isfinite(om) and (om <= OMEGA_RANGE[0] * (1 + 1e-9)
                                                 or om >= OMEGA_RANGE[1] * (1 - 1e-9)):  # fmt: skip
            notes.append(f"t_lower={w.t_lower:g}: omega at an end of its search range "
                         f"{list(OMEGA_RANGE)}, the fit is not a minimum inside it")  # fmt: skip
    return notes


#: The beta fit (:data:`BETA_FIT_RULE`) over the dim ``beta_fit``, one entry per lower end
#: of :data:`BETA_FIT_T_LOWERS`: its parameters, as
#: :class:`analysis.estimates.PowerCorrectionFit` names them, and their variables.
BETA_FIT = WindowFit(
    dim="beta_fit",
    prefix="beta_fit",
    lowers=BETA_FIT_T_LOWERS,
    min_points=BETA_FIT_MIN_POINTS,
    fit=_power_correction,
    names={
        "beta": (
            "beta_asymptotic",
            "asymptotic growth exponent beta of the fit beta_eff = beta + a t^-omega",
        ),
        "omega": (
            "beta_correction_exponent",
            "correction-to-scaling exponent omega of the fit beta_eff = beta + a t^-omega",
        ),
        "a": (
            "beta_correction_amplitude",
            "correction amplitude a of the fit beta_eff = "
            "beta + a t^-omega (t in the time unit of t)",
        ),
    },  # fmt: skip
    rule=BETA_FIT_RULE,
    window="beta fit window",
    chi2_of="the beta fit",
    chi2_parameters=3,
    notes=_omega_notes,
)
