"""Exact 2D kinetic Monte Carlo (kmc2d, darkins2024): analysis and campaign figures.

Analysis (:func:`analyze`) of one aggregated dataset: sample means with grouped jackknife
errors over samples (:mod:`analysis.stats`).  Samples are independent (each has its own
Philox streams), so contiguous groups of samples are as good as random ones.

* rates ``sos`` (crystal growth, darkins2024 sec. 4.1): ``mean_h``, ``W2``,
  ``step_density`` and the effective growth exponent ``beta_eff`` from W = sqrt(<W2>)
  between successive sampling times (kelling2017 eq. 8, :mod:`analysis.estimates`: the
  jackknife runs through the whole chain mean -> log -> slope);
* rates ``ising`` (Glauber): ``magnetization`` m, ``abs_magnetization`` abs(m),
  ``energy`` per spin, ``step_density``;
* both: ``events_rate`` = events / (L^2 t), the real events per cell and unit time since
  t = 0 (NaN at t = 0): the work a run did, and for sos at phi = 0 exactly k2.
  ``events_per_second`` = events / wall_time per sample (the speed; a job advances all its
  samples together, so its throughput is the sum over its samples).

Each quantity X is stored as ``X_mean`` and ``X_err`` over ``time`` (``beta_eff`` and
``beta_eff_err`` over ``t_eff``, the midpoints of successive positive sampling times).

Random deposition (sos at phi = 0): every cell grows by an independent Poisson process of
rate k2, so <h> = k2 t and W^2 = k2 t exactly, and beta = 1/2.  Such analyses carry
``reference_beta`` = 0.5, and the figures draw the exact W^2 = k2 t.

Campaign figures (:func:`draw_figures`), one line per point: ``W2`` and ``beta_eff`` (sos
points), ``energy`` and ``magnetization`` (|m|; ising points), ``step_density`` and
``events_rate`` (all points).  Which of them a campaign has, and in which order, is the
kmc2d spec's ``campaign_figures`` of its points' rate models; each figure draws the
points whose analysis holds its variable.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis.estimates import analysis_attrs, beta_eff_of, put_local_slope, put_means
from analysis.plotting import (
    PANEL_HEIGHT,
    SIDE_BY_SIDE,
    STYLE,
    Drawn,
    axis_label,
    draw_campaign_figures,
    draw_mean_vs_time,
    fmt_number,
    guide_style,
    log_tick_labels,
    n_samples_of,
    new_figure,
    stack_height,
    styles_by,
    time_label,
)
from analysis.stats import default_groups, jackknife
from simcore.io.dataset import reciprocal_unit

__all__ = [
    "OBSERVABLES",
    "RD_BETA",
    "analyze",
    "draw_figures",
    "monolayer_times",
    "plot_beta_eff",
    "plot_observable",
    "plot_W2",
    "point_label",
    "rates_of",
]

#: The per-sample observables of the run file, per rate model (besides ``events``).
OBSERVABLES = {
    "sos": ("mean_h", "W2", "step_density"),
    "ising": ("magnetization", "energy", "step_density"),
}
#: Growth exponent of random deposition (sos at phi = 0).
RD_BETA = 0.5
#: The model whose spec names the campaign figures drawn here.
MODEL = "kmc2d"
#: Panel titles of the rate models, where a figure shows both.
RATE_TITLES = {"sos": "SOS crystal growth", "ising": "Glauber Ising"}
#: At most this many monolayer completions are marked on a figure.
MAX_LAYER_MARKS = 30
LAYER_LABEL = r"monolayer completed ($\langle h \rangle$ = 1, 2, ...)"
LAYER_NOTE = (
    r"$\phi > 0$: layer-by-layer growth; $W^2$ dips as each monolayer completes (ticks), and"
    "\n"
    r"$\beta_{eff}$ between log-spaced times samples that oscillation: a zig-zag, not noise"
)


_NAMES: dict[str, tuple[str, str | None]] = {
    # name -> (long name, units; None: the run file's units)
    "mean_h": ("mean surface height <h>", None),
    "W2": ("squared surface width W^2", None),
    "step_density": ("fraction of cells with a higher nearest neighbour", "1"),
    "magnetization": ("magnetization per spin m", "1"),
    "abs_magnetization": ("absolute magnetization per spin |m|", "1"),
    "energy": ("energy per spin", None),
    "events_rate": ("real events per cell and unit time since t = 0, events / (L^2 t)", None),
    "events_per_second": (
        "real events per wall-clock second since the start, of one sample (a job advances "
        "all its samples together: its throughput is the sum over them)",
        "1/s",
    ),
}


def rates_of(ds: xr.Dataset) -> str:
    """The rate model of a kmc2d dataset: its ``rates`` attribute, else from its variables."""
    rates = ds.attrs.get("rates")
    if rates in OBSERVABLES:
        return str(rates)
    return "sos" if "W2" in ds.variables or "W2_mean" in ds.variables else "ising"


def _derived(m: xr.Dataset) -> xr.Dataset:
    """The reported quantities as functions of the sample means (the jackknife's ``func``):
    the means themselves and, where there is ``W2``, beta_eff.  Addresses dimensions by name
    only, so the jackknife's replica dimension passes through."""
    out = dict(m.data_vars)
    if "W2" in m:
        out["beta_eff"] = beta_eff_of(m["W2"], np.asarray(m["t"].values, dtype=float))
    return xr.Dataset(out)


def _per_sample(ds: xr.Dataset, rates: str) -> xr.Dataset:
    """The per-sample quantities whose means are reported (float64)."""
    L = int(ds.attrs.get("L", ds.sizes.get("row", 0)))
    if L < 1:
        raise ValueError("kmc2d dataset without the attribute L")
    t = ds["t"].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = (ds["events"].astype(np.float64) / (L * L * t)).where(t > 0)
    data = {name: ds[name].astype(np.float64) for name in OBSERVABLES[rates]}
    if rates == "ising":
        data["abs_magnetization"] = abs(data["magnetization"])
    data["events_rate"] = rate
    if "wall_time" in ds.variables:
        wall = ds["wall_time"].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            data["events_per_second"] = (ds["events"].astype(np.float64) / wall).where(wall > 0)
    return xr.Dataset(data)


def _meta(ds: xr.Dataset, name: str) -> tuple[str, str | dict, str | None]:
    """(long name, units, model units) of a reported quantity for :func:`put_means`: the
    table's units, else the run file's; ``events_rate`` is a number per unit model time,
    in the reciprocal of the time's model unit (``k2`` for sos)."""
    long_name, units = _NAMES[name]
    if units is not None:
        return long_name, units, None
    if name == "events_rate":
        time_unit = ds["t"].attrs.get("model_units")
        return long_name, "1", reciprocal_unit(str(time_unit)) if time_unit else None
    return long_name, dict(ds[name].attrs), None


def analyze(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """Means and jackknife errors of the kmc2d observables of one (aggregated) dataset.

    Returns ``<name>_mean`` and ``<name>_err`` over ``time`` for every quantity of the rate
    model (module docstring), ``beta_eff(_err)`` over ``t_eff`` for sos, and the
    dataset's attributes plus ``analysis_method``, ``jackknife_groups``,
    ``n_samples_analyzed`` and, for random deposition (sos, phi = 0), ``reference_beta``.
    Raises ``ValueError`` naming what is missing for a dataset that is not kmc2d's.
    """
    rates = rates_of(ds)
    missing = [v for v in (*OBSERVABLES[rates], "events") if v not in ds.variables]
    if missing:
        raise ValueError(f"not a kmc2d {rates} dataset: missing {', '.join(missing)}")
    if ds.sizes.get("sample", 0) < 1:
        raise ValueError("kmc2d dataset has no samples")
    ds = ds.sortby("sample").sortby("t")
    per_sample = _per_sample(ds, rates)
    n = int(ds.sizes["sample"])
    groups = default_groups(n) if n_groups is None else int(n_groups)
    est, err = jackknife(per_sample, _derived, dim="sample", n_groups=groups, vectorized=True)

    out = xr.Dataset(coords={"t": ds["t"].values})
    out["t"].attrs = dict(ds["t"].attrs)
    put_means(out, est, err, per_sample.data_vars, lambda name: _meta(ds, name))
    if "beta_eff" in est:
        out = put_local_slope(
            out, est, err, "beta_eff",
            "effective growth exponent beta_eff (kelling2017 eq. 8, E = sqrt(mean W2))",
            np.asarray(ds["t"].values, dtype=float), ds["t"].attrs,
        )  # fmt: skip
    attrs = analysis_attrs(
        ds,
        f"kmc2d {rates} observables",
        "sample means; grouped jackknife errors over samples (analysis.kmc2d); beta_eff: "
        "kelling2017 eq. 8 with E = sqrt(mean W2) between successive positive sampling times",
        groups,
    )
    if rates == "sos" and _is_random_deposition(attrs):
        attrs["reference_beta"] = RD_BETA
        attrs["reference_beta_source"] = (
            "random deposition (phi = 0): <h> = k2 t, W^2 = k2 t, beta = 1/2 exactly"
        )
    out.attrs = attrs
    return out


def _is_random_deposition(attrs: dict[str, Any]) -> bool:
    try:
        return float(attrs["phi"]) == 0.0
    except (KeyError, TypeError, ValueError):
        return False


# ----------------------------------------------------------------------------- figures


def point_label(ds: xr.Dataset) -> str:
    """Legend text of a kmc2d point: rate model and parameters, L, scheme, samples."""
    a = ds.attrs
    if rates_of(ds) == "sos":
        par = rf"$\phi$={fmt_number(a.get('phi', '?'))}"
        if float(a.get("k2", 1.0)) != 1.0:
            par += f", k2={fmt_number(a['k2'])}"
    else:
        par = f"T={fmt_number(a.get('T', '?'))}"
        if float(a.get("J", 1.0)) != 1.0:
            par += f", J={fmt_number(a['J'])}"
        if float(a.get("h", 0.0)) != 0.0:
            par += f", h={fmt_number(a['h'])}"
    scheme = str(a.get("scheme", "?"))
    if scheme == "tiles":
        scheme += str(a.get("tile", ""))
    return f"{rates_of(ds)} L={a.get('L', '?')}, {par}, {scheme}, n={n_samples_of(ds)}"


def _rd_k2(datasets: Sequence[xr.Dataset]) -> list[float]:
    """The k2 values of the random-deposition points (phi = 0) among ``datasets``."""
    return sorted({float(d.attrs.get("k2", 1.0)) for d in datasets
                   if _is_random_deposition(d.attrs)})  # fmt: skip


#: The settings that tell two kmc2d points of one size apart (marker and line style; the
#: size is the colour).
_SHAPE_KEYS = ("rates", "phi", "k2", "T", "J", "h", "scheme", "tile")


def _styles(datasets: Sequence[xr.Dataset]) -> list[dict[str, Any]]:
    """Colour by L (fixed per size: :func:`analysis.plotting.size_color`), marker, line
    style and fill by the other settings (:func:`analysis.plotting.styles_by`)."""
    return [{**s, "ms": 2.5} for s in styles_by(datasets, "L", _SHAPE_KEYS)]


def _by_rates(datasets: Sequence[xr.Dataset]) -> list[tuple[str, list[xr.Dataset]]]:
    """The points grouped by rate model, in order of appearance: each model has its own
    time unit, so each gets its own panel."""
    groups: dict[str, list[xr.Dataset]] = {}
    for ds in datasets:
        groups.setdefault(rates_of(ds), []).append(ds)
    return list(groups.items())


def plot_observable(
    datasets: Sequence[xr.Dataset], var: str, symbol: str, logy: bool = False
) -> Figure:
    """``var``_mean vs t (log t) with jackknife error bars, one line per point (the colour
    of its L, the marker and line style of its other settings: one style per point across
    the panels, so one legend serves them), one panel per rate model (their time units
    differ); ``symbol`` gets the unit of the file."""
    groups = _by_rates(datasets)
    style_of = dict(zip(map(id, datasets), _styles(datasets), strict=True))
    with matplotlib.rc_context(STYLE):
        legend_rows = 0.12 * (len(datasets) + 1)
        fig, axes = new_figure(len(groups), 1, stack_height(len(groups)) + legend_rows)
        handles, labels = [], []
        for ax, (rates, dss) in zip(axes[:, 0], groups, strict=True):
            draw_mean_vs_time(ax, dss, var, point_label, logy, [style_of[id(d)] for d in dss])
            ax.set_ylabel(axis_label(symbol, dss[0][f"{var}_mean"].attrs))
            if len(groups) > 1:
                ax.set_title(RATE_TITLES.get(rates, rates), fontsize=7)
            h, lab = ax.get_legend_handles_labels()
            handles, labels = handles + h, labels + lab
        fig.legend(handles, labels, loc="outside upper center", fontsize=6)  # off the data
    return fig


def monolayer_times(ds: xr.Dataset, max_layers: int = MAX_LAYER_MARKS) -> np.ndarray:
    """The times at which the mean height of an sos point reaches 1, 2, ... monolayers
    (linear interpolation between sampling times), at most ``max_layers``: where a
    layer-by-layer surface is smoothest."""
    if "mean_h_mean" not in ds.variables:
        return np.array([])
    t = np.asarray(ds["t"].values, dtype=float)
    h = np.asarray(ds["mean_h_mean"].values, dtype=float)
    ok = np.isfinite(h)
    t, h = t[ok], h[ok]
    if h.size < 2 or not np.all(np.diff(h) >= 0):
        return np.array([])
    layers = np.arange(1, min(int(np.floor(h[-1])), max_layers) + 1)
    return np.interp(layers, h, t)


def _layered(ds: xr.Dataset) -> bool:
    """An sos point with attachment that depends on neighbours (phi > 0): it grows layer
    by layer at first, and W^2 oscillates with each monolayer."""
    try:
        return rates_of(ds) == "sos" and float(ds.attrs.get("phi", 0.0)) > 0.0
    except (TypeError, ValueError):
        return False


def _mark_monolayers(ax: Any, datasets: Sequence[xr.Dataset]) -> list[tuple]:
    """Ticks along the bottom of ``ax`` at the monolayer times of every layered point, in
    its line's colour; returns the legend entry of the ticks (a tick in each colour drawn,
    handle and label), none where no point has them."""
    colors = [c.lines[0].get_color() for c in ax.containers]
    handles: dict[str, Line2D] = {}
    for ds, color in zip(datasets, colors, strict=False):
        tk = monolayer_times(ds) if _layered(ds) else np.array([])
        if tk.size:
            ax.vlines(tk, 0.0, 0.05, transform=ax.get_xaxis_transform(), color=color,
                      linewidth=0.8)  # fmt: skip
            handles.setdefault(str(color), Line2D([], [], color=color, marker="|", ms=6,
                                                  linestyle="none"))  # fmt: skip
    return [(tuple(handles.values()), LAYER_LABEL)] if handles else []


def _legend_above(fig: Figure, ax: Any, extra: Sequence[tuple]) -> None:
    """The legend of ``ax`` and the ``extra`` entries (handle, label) above the axes."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend([*handles, *(h for h, _ in extra)], [*labels, *(lab for _, lab in extra)],
               loc="outside upper center", fontsize=6, handler_map=SIDE_BY_SIDE)  # fmt: skip


def plot_W2(datasets: Sequence[xr.Dataset]) -> Figure:
    """W^2(t) log-log with error bars (the colour of each point's L); the exact
    random-deposition W^2 = k2 t dashed above the data, which at phi = 0 follow it; the
    monolayer completions of layered points (phi > 0) as ticks, where W^2 dips."""
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, PANEL_HEIGHT + 0.12 * (len(datasets) + 3))
        ax = axes[0, 0]
        draw_mean_vs_time(ax, datasets, "W2", point_label, logy=True, styles=_styles(datasets))
        ax.set_ylabel(axis_label("$W^2$", datasets[0]["W2_mean"].attrs))
        t_all = np.concatenate([np.asarray(d["t"].values, dtype=float) for d in datasets])
        t = np.unique(t_all[t_all > 0])
        for k2 in _rd_k2(datasets):
            label = r"random deposition $W^2 = k_2 t$" + (f" ($k_2$={k2:g})" if k2 != 1 else "")
            ax.plot(t, k2 * t, **guide_style(), label=label)
        _legend_above(fig, ax, _mark_monolayers(ax, datasets))
    return fig


def plot_beta_eff(datasets: Sequence[xr.Dataset]) -> Figure:
    """beta_eff(t) with jackknife error bars (the colour of each point's L) and random
    deposition's beta = 1/2 dashed above the data.  Layered points (phi > 0) zig-zag: their
    W^2 oscillates with each completed monolayer (ticks), and beta_eff between log-spaced
    sampling times samples that oscillation at varying phase; the figure says so."""
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, PANEL_HEIGHT + 0.12 * (len(datasets) + 4))
        ax = axes[0, 0]
        for ds, style in zip(datasets, _styles(datasets), strict=True):
            t = np.asarray(ds["t_eff"].values, dtype=float)
            y = np.asarray(ds["beta_eff"].values, dtype=float)
            e = np.asarray(ds["beta_eff_err"].values, dtype=float)
            ok = np.isfinite(y)
            ax.errorbar(t[ok], y[ok], yerr=np.nan_to_num(e[ok]), label=point_label(ds), **style)
        ax.axhline(RD_BETA, **guide_style(), label=r"random deposition $\beta = 1/2$")
        ax.set_xscale("log")
        log_tick_labels(ax)
        ax.set_xlabel(time_label(datasets))
        ax.set_ylabel(r"$\beta_{eff}$")
        ticks = _mark_monolayers(ax, datasets)
        if ticks:
            fig.supxlabel(LAYER_NOTE, fontsize=6, color="0.3")
        _legend_above(fig, ax, ticks)
    return fig


def _observable(var: str, symbol: str, logy: bool = False) -> Callable[..., Figure]:
    """The drawing of :func:`plot_observable` of ``var`` with this symbol."""
    return lambda datasets: plot_observable(datasets, var, symbol, logy)


#: How each campaign figure is drawn.
_FIGURES: dict[str, Callable[[Sequence[xr.Dataset]], Figure]] = {
    "W2": plot_W2,
    "beta_eff": plot_beta_eff,
    "energy": _observable("energy", "energy per spin e"),
    "magnetization": _observable("abs_magnetization", "magnetization per spin |m|"),
    "step_density": _observable("step_density", "step density"),
    "events_rate": _observable("events_rate", r"events / ($L^2$ t)", logy=True),
}
#: The analysis variable whose presence selects the points a figure shows (sos or ising
#: points, or all).
_SHOWN_BY = {
    "W2": "W2_mean",
    "beta_eff": "beta_eff",
    "energy": "energy_mean",
    "magnetization": "abs_magnetization_mean",
    "step_density": "step_density_mean",
    "events_rate": "events_rate_mean",
}


def draw_figures(
    analyses: Sequence[xr.Dataset], names: Collection[str] | None = None
) -> dict[str, Drawn]:
    """The campaign figures of kmc2d analyses with their provenance: those the kmc2d spec's
    ``campaign_figures`` names for the analyses' rate models, in its order (only
    ``names``, if given), each from the points whose analysis holds its variable."""

    def shown(name: str) -> list[xr.Dataset]:
        chosen = [d for d in analyses if _SHOWN_BY[name] in d.variables]
        if not chosen:
            raise ValueError(f"kmc2d figure {name}: no analysis holds {_SHOWN_BY[name]}")
        return chosen

    points = [{**d.attrs, "rates": rates_of(d)} for d in analyses]
    return draw_campaign_figures(MODEL, analyses, _FIGURES, shown, points, names=names)
