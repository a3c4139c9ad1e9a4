"""The campaign figures of kpz analyses (:func:`draw_figures`; their names and captions
are the kpz spec's ``campaign_figures``; :mod:`analysis.kpz` serves them to
:mod:`analysis.figures`): ``W2`` and ``beta_eff`` (one panel per substrate dimension, the
reference beta of :data:`analysis.kpz_literature.REFERENCE_BETA` dashed), ``C_h`` and
``C_s`` (vs t/s, one panel per point, one line per waiting time) and ``lambda_eff``
(lambda/z of heights and slopes, one row per point).

Also the pieces the kelling2017 figures share with them: :func:`load_analyses`,
:func:`point_label`, the decaying autocorrelations with their noise
(:func:`draw_decaying`, :class:`Curve`, :func:`noise_legend_entry`).
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

from analysis.kpz_fits import LAMBDA_TARGET_ERR, SIGNAL_SIGMAS
from analysis.kpz_literature import REFERENCE_BETA, SATURATION_ONSET, dim_of, saturation_onset
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

__all__ = [
    "FIGURE_VARIABLES",
    "FINITE_SIZE_LABEL",
    "Curve",
    "draw_decaying",
    "draw_figures",
    "load_analyses",
    "noise_legend_entry",
    "plot_C",
    "plot_W2",
    "plot_beta_eff",
    "plot_lambda_eff",
    "point_label",
]

#: The model whose spec names the campaign figures drawn here.
MODEL = "kpz"

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


def load_analyses(paths: Iterable[str | os.PathLike[str]]) -> list[xr.Dataset]:
    """Open kpz analysis datasets fully into memory; a file lacking a variable the
    figures draw raises ``ValueError`` naming it."""
    datasets = load_datasets(paths)
    require_variables(datasets, FIGURE_VARIABLES, WHAT)
    return datasets


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


def _by_dim(datasets: Sequence[xr.Dataset]) -> list[tuple[int | None, list[xr.Dataset]]]:
    groups: dict[int | None, list[xr.Dataset]] = {}
    for d in datasets:
        groups.setdefault(dim_of(d), []).append(d)
    return sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))


def _dim_title(d: int | None) -> str:
    return f"d = {d}" if d is not None else "d = ?"


def _s_colors(n: int) -> list[Any]:
    cmap = matplotlib.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.0, 0.85, n)]


def _reference(ds: xr.Dataset) -> tuple[float, str] | None:
    """The dashed reference of a beta_eff panel: the analysis's ``reference_beta``, else
    the table's value for its dimension; with its legend text."""
    d = dim_of(ds)
    ref = REFERENCE_BETA.get(d) if d is not None else None
    label = None if ref is None else rf"$\beta = {ref.text}$ ({d}D KPZ)"
    if "reference_beta" in ds.attrs:
        val = float(ds.attrs["reference_beta"])
        return val, label or rf"$\beta = {val:g}$"
    return None if ref is None else (ref.value, label)


# ----------------------------------------------------------------------------- figures


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
    stops where C is lost in its noise: :data:`analysis.kpz_fits.LAMBDA_WINDOW_RULE`)."""
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
