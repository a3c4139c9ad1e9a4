"""KPZ growth (the octahedron model, kelling2017): effective exponents and campaign figures.

Analysis (:func:`analyze`) of one aggregated dataset in the ARCHITECTURE.md layout (dims
``sample``, ``time``, ``s``; ``W2(sample, time)``, ``mean_h(sample, time)``,
``C_h(sample, s, time)``, ``C_s(sample, s, time)``): sample means and their errors, the
effective growth exponent ``beta_eff`` and the effective autocorrelation exponents
``lambda_h/z`` and ``lambda_s/z`` (kelling2017, eqs. 5, 6, 8).

Why the effective exponents are computed from means, not per sample: eq. 8 is applied to
``E = W = sqrt(<W2>)`` and ``E = <C>``, the ensemble averages; a single sample's ``C``
can be negative.  All errors come from one grouped jackknife over samples
(:mod:`analysis.stats`) applied to the whole chain ``means -> logs -> slopes``
(:mod:`analysis.estimates`), so the correlations between neighbouring times (which share
samples) are accounted for.

Campaign figures (:func:`make_figures`; their names and captions are the kpz spec's
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
from pathlib import Path
from typing import Any, NamedTuple

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis.estimates import analysis_attrs, beta_eff_of, local_slope_of, successive_pairs
from analysis.plotting import (
    COLUMN_WIDTH,
    PANEL_HEIGHT,
    STYLE,
    attr,
    fmt_number,
    grid,
    load_datasets,
    log_tick_labels,
    n_samples_of,
    new_figure,
    positive_only,
    require_variables,
    save_campaign_figures,
    stack_height,
)
from analysis.stats import default_groups, jackknife

__all__ = [
    "BETA",
    "LAMBDA_MAX_ERR",
    "REFERENCE_BETA",
    "REQUIRED_VARIABLES",
    "AnalysisInputError",
    "LiteratureValue",
    "analyze",
    "load_analyses",
    "make_figures",
    "plot_C",
    "plot_W2",
    "plot_beta_eff",
    "plot_lambda_eff",
    "point_label",
    "reference_beta",
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
    "W2": ("sample", "time"),
    "mean_h": ("sample", "time"),
    "C_h": ("sample", "s", "time"),
    "C_s": ("sample", "s", "time"),
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
    "t_over_s_mid",
)

MIDPOINT_NOTE = (
    "t_eff is the arithmetic midpoint (t_i + t_j)/2 of two successive sampling times; "
    "kelling2017 eq. 8 prints (t_i - t_j)/2, a misprint for the midpoint"
)

ANALYSIS_METHOD = (
    "Sample means over the 'sample' dim; errors are grouped (blocked) jackknife "
    "standard errors over samples (contiguous groups, n_groups = jackknife_groups, "
    "weighted delete-m_g formula), applied to the whole chain mean -> log -> slope. "
    "beta_eff: kelling2017 eq. 8 with E = W = sqrt(mean W2) between successive sampling "
    "times t_j < t_i, t = 0 skipped. lambda_h_over_z_eff, lambda_s_over_z_eff: minus the "
    "slope of ln(mean C) vs ln(t/s) between successive sampling times, both > s "
    "(kelling2017 eqs. 5, 6, 8); NaN where t <= s or mean C <= 0. " + MIDPOINT_NOTE + "."
)

#: Largest jackknife error of a drawn lambda/z point (see :func:`plot_lambda_eff`).
LAMBDA_MAX_ERR = 0.5


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
    times = np.asarray(ds["time"].values)
    if len(np.unique(times)) != len(times):
        raise AnalysisInputError("duplicate values in coordinate 'time'")


def _derived(m: xr.Dataset) -> xr.Dataset:
    """Every reported quantity as a function of the sample-mean dataset ``m``.

    This is the function the jackknife re-evaluates on the leave-group-out means; it
    addresses dimensions by name only, so extra dimensions (the jackknife replicas)
    pass through elementwise.  ``m.time`` must be sorted ascending.  lambda/z is the
    local slope of ln C in ln t, which between two times of one waiting time s is the
    slope in ln(t/s); it is defined where both times of the pair are after s.
    """
    times = np.asarray(m["time"].values, dtype=float)
    lo, hi = successive_pairs(times)
    mid = 0.5 * (times[lo] + times[hi])
    s_vals = xr.DataArray(np.asarray(m["s"].values, dtype=float), dims="s", coords={"s": m["s"]})
    t_lo_c = xr.DataArray(times[lo], dims="t_eff_c", coords={"t_eff_c": mid})
    valid = t_lo_c > s_vals  # both times of the pair strictly after the waiting time
    out = {
        "W2_mean": m["W2"],
        "mean_h_mean": m["mean_h"],
        "C_h_mean": m["C_h"],
        "C_s_mean": m["C_s"],
        "beta_eff": beta_eff_of(m["W2"], times),
    }
    for src, name in (("C_h", "lambda_h_over_z_eff"), ("C_s", "lambda_s_over_z_eff")):
        slope = local_slope_of(m[src], times).rename(t_eff="t_eff_c")
        out[name] = (-slope).where(valid)
    return xr.Dataset(out)


def _attrs_of(ds: xr.Dataset, var: str, default_units: str) -> dict[str, str]:
    units = str(ds[var].attrs.get("units", default_units))
    long_name = str(ds[var].attrs.get("long_name", var))
    return {"units": units, "long_name": long_name}


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
        Variables ``W2_mean, W2_err, mean_h_mean, mean_h_err`` (time);
        ``C_h_mean, C_h_err, C_s_mean, C_s_err`` (s, time);
        ``beta_eff, beta_eff_err`` (t_eff);
        ``lambda_h_over_z_eff(_err), lambda_s_over_z_eff(_err)`` (s, t_eff_c);
        coordinates ``t_lower, t_upper`` (t_eff), ``t_lower_c, t_upper_c`` (t_eff_c) and
        ``t_over_s_mid(s, t_eff_c) = t_eff_c / s``.  Global attributes of ``ds`` are
        copied and ``analysis_method``, ``reference_beta`` (d=1, 2), ``jackknife_groups``
        are added.

    Raises
    ------
    AnalysisInputError
        If a required variable or dimension is missing.
    """
    _check_input(ds)
    data = ds[list(REQUIRED_VARIABLES)].sortby("time").astype(np.float64)
    n_samples = int(data.sizes["sample"])
    groups = default_groups(n_samples) if n_groups is None else int(n_groups)
    est, err = jackknife(data, _derived, dim="sample", n_groups=groups, vectorized=True)

    times = np.asarray(data["time"].values, dtype=float)
    lo, hi = successive_pairs(times)
    mid = 0.5 * (times[lo] + times[hi])

    out = xr.Dataset(
        coords={
            "time": data["time"].values,
            "s": data["s"].values,
            "t_eff": mid,
            "t_eff_c": mid.copy(),
        }
    )
    out["time"].attrs = {**ds["time"].attrs, "long_name": "time", "units": "MCS"}
    out["s"].attrs = {**ds["s"].attrs, "long_name": "waiting time s", "units": "MCS"}
    out["t_eff"].attrs = {
        "long_name": "effective time of beta_eff (midpoint of successive sampling times)",
        "units": "MCS",
        "comment": MIDPOINT_NOTE,
    }
    out["t_eff_c"].attrs = {
        "long_name": "effective time of lambda/z (midpoint of successive sampling times)",
        "units": "MCS",
        "comment": MIDPOINT_NOTE,
    }
    for dim_name, suffix in (("t_eff", ""), ("t_eff_c", "_c")):
        out = out.assign_coords(
            {
                f"t_lower{suffix}": (dim_name, times[lo]),
                f"t_upper{suffix}": (dim_name, times[hi]),
            }
        )
        out[f"t_lower{suffix}"].attrs = {
            "long_name": "earlier time t_j of the pair",
            "units": "MCS",
        }
        out[f"t_upper{suffix}"].attrs = {"long_name": "later time t_i of the pair", "units": "MCS"}
    s_col = np.asarray(data["s"].values, dtype=float)[:, None]
    out = out.assign_coords(t_over_s_mid=(("s", "t_eff_c"), mid[None, :] / s_col))
    out["t_over_s_mid"].attrs = {
        "long_name": "t/s at the midpoint of the pair, t_eff_c / s",
        "units": "1",
    }

    def put(name: str, value: xr.DataArray, long_name: str, units: str, **extra: str) -> None:
        out[name] = value.variable if isinstance(value, xr.DataArray) else value
        out[name].attrs = {"long_name": long_name, "units": units, **extra}

    for var in ("W2", "mean_h", "C_h", "C_s"):
        a = _attrs_of(ds, var, "1")
        put(f"{var}_mean", est[f"{var}_mean"], f"sample mean of {a['long_name']}", a["units"])
        put(
            f"{var}_err",
            err[f"{var}_mean"],
            f"jackknife standard error of the sample mean of {a['long_name']}",
            a["units"],
        )
    put(
        "beta_eff",
        est["beta_eff"],
        "effective growth exponent beta_eff (kelling2017 eq. 8, E = sqrt(mean W2))",
        "1",
        comment=MIDPOINT_NOTE,
    )
    put("beta_eff_err", err["beta_eff"], "jackknife standard error of beta_eff", "1")
    for kind, word in (("h", "heights"), ("s", "slopes")):
        name = f"lambda_{kind}_over_z_eff"
        put(
            name,
            est[name],
            f"effective autocorrelation exponent lambda_{kind}/z of the {word}: "
            f"-d ln C_{kind} / d ln(t/s) between successive times t > s",
            "1",
            comment=MIDPOINT_NOTE + "; NaN where t <= s or mean C <= 0",
        )
        put(f"{name}_err", err[name], f"jackknife standard error of {name}", "1")

    attrs = analysis_attrs(ds, "effective exponents", ANALYSIS_METHOD, groups)
    ref = REFERENCE_BETA.get(_dim_of(ds))
    if ref is not None:
        attrs["reference_beta"] = ref.value
        attrs["reference_beta_err"] = ref.error
        attrs["reference_beta_source"] = ref.source
    out.attrs = attrs
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


def _per_dimension(
    datasets: Sequence[xr.Dataset],
    draw: Callable[[Any, int | None, list[xr.Dataset]], None],
    ylabel: str,
    legend_loc: str,
) -> Figure:
    """One panel per substrate dimension, stacked: ``draw(ax, d, points of d)`` plots and
    sets the scales; then the tick and axis labels, and d as the title (several panels)
    or as the legend's title (one)."""
    groups = _by_dim(datasets)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(len(groups), 1, stack_height(len(groups)))
        for ax, (d, dss) in zip(axes[:, 0], groups, strict=True):
            draw(ax, d, dss)
            log_tick_labels(ax)
            ax.set_xlabel("t [MCS]")
            ax.set_ylabel(ylabel)
            if len(groups) > 1:
                ax.set_title(_dim_title(d))
            ax.legend(title=None if len(groups) > 1 else _dim_title(d), loc=legend_loc)
    return fig


def plot_W2(datasets: Sequence[xr.Dataset]) -> Figure:
    """W^2(t) log-log, one line per parameter point, one panel per substrate dimension."""

    def draw(ax: Any, d: int | None, dss: list[xr.Dataset]) -> None:
        for ds in dss:
            t = np.asarray(ds["time"].values, dtype=float)
            y = positive_only(ds["W2_mean"].values)
            ok = (t > 0) & np.isfinite(y)
            ax.plot(t[ok], y[ok], marker="o", label=point_label(ds, short=True))
        ax.set_xscale("log")
        ax.set_yscale("log")

    return _per_dimension(datasets, draw, r"$W^2$ [lattice units$^2$]", "upper left")


def plot_beta_eff(datasets: Sequence[xr.Dataset]) -> Figure:
    """beta_eff(t) with jackknife error bars, log t, dashed reference beta per dimension."""

    def draw(ax: Any, d: int | None, dss: list[xr.Dataset]) -> None:
        for ds in dss:
            t = np.asarray(ds["t_eff"].values, dtype=float)
            y = np.asarray(ds["beta_eff"].values, dtype=float)
            e = np.asarray(ds["beta_eff_err"].values, dtype=float)
            ok = np.isfinite(y)
            ax.errorbar(
                t[ok],
                y[ok],
                yerr=np.nan_to_num(e[ok]),
                marker="o",
                linestyle="-",
                label=point_label(ds, short=True),
            )
        ref = _reference(dss[0])
        if ref is not None:
            ax.axhline(ref[0], color="k", linestyle="--", linewidth=0.8, label=ref[1])
        ax.set_xscale("log")

    return _per_dimension(datasets, draw, r"$\beta_{eff}$ [1]", "best")


def plot_C(datasets: Sequence[xr.Dataset], kind: str = "h") -> Figure:
    """C_kind(t, s) vs t/s log-log, one line per waiting time s, one panel per point.

    Non-positive and missing values are skipped (they cannot be drawn on a log axis).
    """
    if kind not in ("h", "s"):
        raise ValueError(f"kind must be 'h' or 's', got {kind!r}")
    var = f"C_{kind}_mean"
    ylabel = r"$C_h(t,s)$ [lattice units$^2$]" if kind == "h" else r"$C_s(t,s)$ [1]"
    nrows, ncols = grid(len(datasets))
    height = PANEL_HEIGHT if nrows == 1 and ncols == 1 else 0.3 + 2.0 * nrows
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(nrows, ncols, height)
        for i, ax in enumerate(axes.flat):
            if i >= len(datasets):
                ax.set_axis_off()
                continue
            ds = datasets[i]
            t = np.asarray(ds["time"].values, dtype=float)
            s_vals = np.asarray(ds["s"].values, dtype=float)
            for k, (s, color) in enumerate(zip(s_vals, _s_colors(len(s_vals)), strict=True)):
                y = positive_only(ds[var].isel(s=k).values)
                ok = (t >= s) & np.isfinite(y)
                ax.plot(t[ok] / s, y[ok], marker="o", color=color, label=f"{s:g}")
            ax.set_xscale("log")
            ax.set_yscale("log")
            log_tick_labels(ax)
            ax.set_xlabel("t/s [1]")
            ax.set_ylabel(ylabel)
            ax.set_title(_wrapped_label(ds), fontsize=7)
            if not s_vals.size:  # a point run without waiting times has no C(t, s)
                ax.text(0.5, 0.5, "no waiting times", ha="center", va="center",
                        transform=ax.transAxes)  # fmt: skip
            if ax.has_data():  # C decays from its value at t = s: the upper right is free
                ax.legend(title="s [MCS]", loc="upper right", fontsize=7, title_fontsize=7)
    return fig


def plot_lambda_eff(datasets: Sequence[xr.Dataset]) -> Figure:
    """Effective lambda/z vs t/s for heights (left) and slopes (right), one row per point.

    Each row is a subfigure titled with the point; one line per waiting time s.
    Points whose jackknife error exceeds ``LAMBDA_MAX_ERR`` are not drawn: once C has
    decayed into its noise the local slopes scatter wildly and would set the axis range.
    """
    n = len(datasets)
    height = PANEL_HEIGHT if n == 1 else 0.2 + 2.1 * n
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
                for k, (s, color) in enumerate(zip(s_vals, colors, strict=True)):
                    x = np.asarray(ds["t_over_s_mid"].isel(s=k).values, dtype=float)
                    y = np.asarray(ds[name].isel(s=k).values, dtype=float)
                    e = np.asarray(ds[f"{name}_err"].isel(s=k).values, dtype=float)
                    ok = np.isfinite(y) & (x > 0) & (np.nan_to_num(e, nan=np.inf) < LAMBDA_MAX_ERR)
                    if not ok.any():
                        continue
                    ax.errorbar(
                        x[ok],
                        y[ok],
                        yerr=np.nan_to_num(e[ok]),
                        marker="o",
                        color=color,
                        label=f"s={s:g} MCS",
                    )
                ax.set_xscale("log")
                log_tick_labels(ax)
                ax.set_xlabel("t/s [1]")
                ax.set_ylabel(rf"$(\lambda_{kind}/z)_{{eff}}$ [1]")
                ax.set_title(word, fontsize=7)
                if not ax.has_data():  # no waiting times, or C(t, s) lost in its noise
                    why = "no waiting times" if not s_vals.size else "no estimate"
                    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes)
            handles, labels = axes[0].get_legend_handles_labels()
            if handles:  # one legend per row, below the panels: the data fill the axes
                sub.legend(
                    handles,
                    labels,
                    loc="outside lower center",
                    ncols=min(len(labels), 4),
                    fontsize=7,
                    handlelength=1.5,
                    columnspacing=1.0,
                )
    return fig


#: How each campaign figure is drawn from the analyses.
_FIGURES: dict[str, Callable[[Sequence[xr.Dataset]], Figure]] = {
    "W2": plot_W2,
    "beta_eff": plot_beta_eff,
    "C_h": lambda datasets: plot_C(datasets, "h"),
    "C_s": lambda datasets: plot_C(datasets, "s"),
    "lambda_eff": plot_lambda_eff,
}


def make_figures(
    analyses: Sequence[xr.Dataset],
    out_dir: str | os.PathLike[str],
    names: Collection[str] | None = None,
) -> list[Path]:
    """Write the campaign figures of kpz analyses into ``out_dir``, PNG and PDF each: those
    the kpz spec's ``campaign_figures`` names, in its order (only ``names``, if given).
    Returns the written paths.

    Raises ``ValueError`` naming the file for an input that is not a kpz analysis.
    """
    require_variables(analyses, FIGURE_VARIABLES, WHAT)
    return save_campaign_figures(MODEL, analyses, out_dir, _FIGURES, names=names)
