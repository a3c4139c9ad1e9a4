"""The campaign figures of ea3d_pt analyses (:func:`draw_figures`; names and captions are
the ea3d_pt spec's ``campaign_figures``; :mod:`analysis.ea3d_pt` serves them to
:mod:`analysis.figures`), one curve per L, every mean with its jackknife error bar:
``binder`` (g vs T, the crossings of :mod:`analysis.ea3d_pt_crossings` and the literature
T_c marked), ``xi_over_L`` (xi_L / L vs T, marked as binder; drawn from the analyses that
have it, those of runs with qk2: with none, the panel says so), ``chi_sg`` (log y),
``energy``, ``equilibration`` (e and [<q^2>] at the lowest temperature per bin vs the
bin's last sweep, and g and xi_L / L where the analyses have them) and ``exchange``
(acceptance vs the pair's mid temperature, round trips per configuration vs L).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from functools import partial
from typing import Any

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from analysis.ea3d_pt_crossings import CROSSING_VARIABLES, MODEL, T_C, crossings, size_of
from analysis.plotting import (
    PANEL_HEIGHT,
    STYLE,
    Drawn,
    axis_label,
    draw_campaign_figures,
    fmt_number,
    guide_style,
    log_tick_labels,
    n_samples_of,
    new_figure,
    require_variables,
    styles_by,
    unit_text,
    value_error_text,
)

__all__ = [
    "FIGURE_VARIABLES",
    "LOW_ACCEPTANCE",
    "draw_figures",
    "plot_binder",
    "plot_chi_sg",
    "plot_energy",
    "plot_equilibration",
    "plot_exchange",
    "plot_xi_over_L",
]

#: Who measured each of :data:`analysis.ea3d_pt_crossings.T_C`, for the legend.
_T_C_LABELS = ("Janus 2013", "Katzgraber, Koerner, Young 2006")

#: Variables of an analysis that :func:`draw_figures` reads.
FIGURE_VARIABLES = (
    *CROSSING_VARIABLES,
    "binder_err",
    "chi_sg",
    "chi_sg_err",
    "energy_mean",
    "energy_err",
    "energy_bin_mean",
    "energy_bin_err",
    "q2_bin_mean",
    "q2_bin_err",
    "exchange_acceptance_mean",
    "exchange_acceptance_err",
    "round_trips_per_config_mean",
    "round_trips_per_config_err",
    "round_trips_min",
)
#: The acceptance below which the exchange figure's dashed line says the ladder is thin.
LOW_ACCEPTANCE = 0.2


def _label(ds: xr.Dataset) -> str:
    return f"L={ds.attrs.get('L', '?')}, n={n_samples_of(ds)}"


def _styles(datasets: Sequence[xr.Dataset]) -> list[dict[str, Any]]:
    """Colour by L (fixed per size, as in every figure:
    :func:`analysis.plotting.size_color`), marker and line style by layout (the same for
    one layout)."""
    return [{**s, "ms": 3} for s in styles_by(datasets, "L", "layout")]


def _legend(fig: Figure, ax: Any, ncols: int = 2) -> None:
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=ncols,
               fontsize=6)  # fmt: skip


def _height(entries: int, base: float = PANEL_HEIGHT, ncols: int = 2) -> float:
    """A figure's height with a legend of ``entries`` in ``ncols`` columns below."""
    return base + 0.12 * math.ceil(entries / ncols)


def _vs_temperature(
    datasets: Sequence[xr.Dataset],
    var: str,
    ylabel: str,
    logy: bool = False,
    decorate: Callable[[Any, Sequence[xr.Dataset], Sequence[dict]], int] | None = None,
) -> Figure:
    """``var`` (error ``var_err``, or ``<name>_err`` of ``<name>_mean``) against T, one
    curve per L; ``decorate(ax, datasets, styles)`` draws more and returns its legend
    entries."""
    error = var.removesuffix("_mean") + "_err"
    styles = _styles(datasets)
    with matplotlib.rc_context(STYLE):
        extra = len(T_C) + len(datasets) if decorate else 0
        ncols = 1 if decorate else 2  # the long labels of crossings and literature
        fig, axes = new_figure(1, 1, _height(len(datasets) + extra, ncols=ncols))
        ax = axes[0, 0]
        for ds, style in zip(datasets, styles, strict=True):
            y = np.asarray(ds[var].values, dtype=float)
            e = np.nan_to_num(np.asarray(ds[error].values, dtype=float))
            ok = np.isfinite(y) & ((y > 0) if logy else True)
            T = np.asarray(ds["T"].values, dtype=float)
            ax.errorbar(T[ok], y[ok], yerr=e[ok], label=_label(ds), **style)
        if decorate:
            decorate(ax, datasets, styles)
        if logy:
            ax.set_yscale("log")
            log_tick_labels(ax)
        ax.set_xlabel(axis_label("T", datasets[0]["T"].attrs))
        ax.set_ylabel(axis_label(ylabel, datasets[0][var].attrs))
        _legend(fig, ax, ncols)
    return fig


def _mark_crossings(
    ax: Any, datasets: Sequence[xr.Dataset], styles: Sequence[dict], quantity: str = "binder"
) -> int:
    """The literature T_c (grey bands) and the crossings of ``quantity`` of successive
    sizes (the colour of the larger L, a band of one error), each labelled; returns the
    legend entries."""
    for ref, who, ls in zip(T_C, _T_C_LABELS, ("--", ":"), strict=True):
        ax.axvspan(ref.value - ref.error, ref.value + ref.error, color="0.6", alpha=0.35,
                   linewidth=0)  # fmt: skip
        ax.axvline(ref.value, **guide_style(color="0.35", linestyle=ls),
                   label=f"$T_c$ = {ref.text}, {who} (literature)")  # fmt: skip
    color = {size_of(d): s["color"] for d, s in zip(datasets, styles, strict=True)}
    rows = crossings(datasets, quantity)
    for r in rows:
        pair = f"L={r['L1']}/{r['L2']}"
        if math.isfinite(r["T_cross"]):
            t, e = r["T_cross"], r["T_cross_err"]
            if math.isfinite(e):
                ax.axvspan(t - e, t + e, color=color[r["L2"]], alpha=0.15, linewidth=0)
            ax.axvline(t, **guide_style(color=color[r["L2"]], linestyle="-.", linewidth=0.9),
                       label=f"crossing {pair}: T = {value_error_text(t, e)}"
                       + (" (one of several)" if r["note"] else ""))  # fmt: skip
        else:
            ax.plot([], [], linestyle="none", label=f"{pair}: no crossing in "
                    f"[{r['T_min']:g}, {r['T_max']:g}]")  # fmt: skip
    return len(T_C) + len(rows)


def plot_binder(datasets: Sequence[xr.Dataset]) -> Figure:
    """The Binder ratio g against T, one curve per L, with the crossings of successive
    sizes and the literature T_c marked (above the data)."""
    return _vs_temperature(datasets, "binder", "Binder ratio g", decorate=_mark_crossings)


def plot_xi_over_L(datasets: Sequence[xr.Dataset]) -> Figure:
    """xi_L / L against T, one curve per L, with the crossings of successive sizes and the
    literature T_c marked, from the analyses that have it; with none (runs without qk2)
    one panel that says so."""
    have = _having(datasets, "xi_over_L")
    if have:
        mark = partial(_mark_crossings, quantity="xi_over_L")
        return _vs_temperature(have, "xi_over_L", r"$\xi_L/L$", decorate=mark)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1)
        ax = axes[0, 0]
        ax.text(0.5, 0.5, "no xi_L/L: the runs of these analyses have no\n|q(k_min)|^2 "
                "(qk2; runs before it was measured)", ha="center", va="center", fontsize=7,
                transform=ax.transAxes)  # fmt: skip
        ax.set_xlabel(axis_label("T", datasets[0]["T"].attrs))
        ax.set_ylabel(r"$\xi_L/L$")
    return fig


def _having(datasets: Sequence[xr.Dataset], var: str) -> list[xr.Dataset]:
    """The analyses that have ``var`` (those of runs with qk2, for the xi variables)."""
    return [d for d in datasets if var in d.variables]


def plot_chi_sg(datasets: Sequence[xr.Dataset]) -> Figure:
    """chi_SG against T (log y), one curve per L."""
    return _vs_temperature(datasets, "chi_sg", r"spin-glass susceptibility $\chi_{SG}$", logy=True)


def plot_energy(datasets: Sequence[xr.Dataset]) -> Figure:
    """e against T, one curve per L."""
    return _vs_temperature(datasets, "energy_mean", "energy per spin e")


#: The panels of the equilibration figure: mean per bin, its error and axis label; the last
#: two only where the analyses have them (runs with qk2).
_EQUILIBRATION = (
    ("energy_bin_mean", "energy_bin_err", "energy per spin e"),
    ("q2_bin_mean", "q2_bin_err", r"$[\langle q^2 \rangle]$"),
    ("binder_bin", "binder_bin_err", "Binder ratio g"),
    ("xi_over_L_bin", "xi_over_L_bin_err", r"$\xi_L/L$"),
)


def plot_equilibration(datasets: Sequence[xr.Dataset]) -> Figure:
    """e and [<q^2>] at the lowest temperature of each ladder per logarithmic bin against
    the bin's last sweep (log x), one curve per L, and g and xi_L / L per bin from the
    analyses that have them (a panel each where any has)."""
    styles = _styles(datasets)
    lowest = {float(d["T"].values[0]) for d in datasets}
    panels = [p for p in _EQUILIBRATION if _having(datasets, p[0])]
    with matplotlib.rc_context(STYLE):
        n = len(panels)
        fig, axes = new_figure(n, 1, _height(len(datasets), 0.6 + 1.5 * n), sharex=True)
        for ax, (mean, error, symbol) in zip(axes[:, 0], panels, strict=True):
            for ds, style in zip(datasets, styles, strict=True):
                if mean not in ds.variables:
                    continue
                t = np.asarray(ds["t"].values, dtype=float)
                y = np.asarray(ds[mean].isel(T=0).values, dtype=float)
                e = np.nan_to_num(np.asarray(ds[error].isel(T=0).values, dtype=float))
                label = _label(ds)
                if len(lowest) > 1:
                    label += f", T={fmt_number(ds['T'].values[0])}"
                ok = np.isfinite(y)
                ax.errorbar(t[ok], y[ok], yerr=e[ok], label=label, **style)
            ax.set_ylabel(axis_label(symbol, _having(datasets, mean)[0][mean].attrs))
            ax.set_xscale("log")
            log_tick_labels(ax)
        if len(lowest) == 1:
            unit = unit_text(datasets[0]["T"].attrs)
            axes[0, 0].set_title(f"lowest temperature T = {fmt_number(lowest.pop())} {unit}")
        axes[-1, 0].set_xlabel(axis_label("last sweep of the bin", datasets[0]["t"].attrs))
        _legend(fig, axes[0, 0])
    return fig


def plot_exchange(datasets: Sequence[xr.Dataset]) -> Figure:
    """Exchange acceptance against the pair's mid temperature (a dashed line at
    :data:`LOW_ACCEPTANCE`), and the round trips per configuration against L (the fewest
    of any configuration written by each point)."""
    styles = _styles(datasets)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(2, 1, _height(len(datasets) + 1, 4.2))
        ax, bx = axes[0, 0], axes[1, 0]
        for ds, style in zip(datasets, styles, strict=True):
            mid = 0.5 * (np.asarray(ds["T_lower"].values) + np.asarray(ds["T_upper"].values))
            y = np.asarray(ds["exchange_acceptance_mean"].values, dtype=float)
            e = np.nan_to_num(np.asarray(ds["exchange_acceptance_err"].values, dtype=float))
            ax.errorbar(mid, y, yerr=e, label=_label(ds), **style)
            L = size_of(ds)
            r = float(ds["round_trips_per_config_mean"])
            re = float(np.nan_to_num(ds["round_trips_per_config_err"].values))
            bx.errorbar([L], [r], yerr=[re], **{**style, "linestyle": "none"})
            bx.annotate(f"min {int(ds['round_trips_min'])}", (L, r), textcoords="offset points",
                        xytext=(4, 2), fontsize=6)  # fmt: skip
        ax.axhline(LOW_ACCEPTANCE, **guide_style(color="0.4"),
                   label=f"acceptance {LOW_ACCEPTANCE:g}")  # fmt: skip
        ax.set_ylim(0.0, 1.0)
        ax.set_xlabel(axis_label(r"$(T_i + T_{i+1})/2$", datasets[0]["T"].attrs))
        ax.set_ylabel("exchange acceptance")
        sizes = sorted({size_of(d) for d in datasets})
        bx.set_xticks(sizes)
        bx.set_xlim(min(sizes) - 1, max(sizes) + 1)
        bx.set_xlabel("L")
        bx.set_ylabel("round trips per configuration")
        _legend(fig, ax)
    return fig


def draw_figures(
    analyses: Sequence[xr.Dataset], names: Collection[str] | None = None
) -> dict[str, Drawn]:
    """The campaign figures of ea3d_pt analyses with their provenance: those the ea3d_pt
    spec's ``campaign_figures`` names, in its order (only ``names``, if given); the
    analyses are drawn in order of L, xi_over_L from those that have it (its provenance
    theirs)."""
    require_variables(analyses, FIGURE_VARIABLES, f"an {MODEL} analysis dataset")
    ordered = sorted(analyses, key=lambda d: (size_of(d), str(d.attrs.get("layout", ""))))
    drawings = {
        "binder": plot_binder,
        "xi_over_L": plot_xi_over_L,
        "chi_sg": plot_chi_sg,
        "energy": plot_energy,
        "equilibration": plot_equilibration,
        "exchange": plot_exchange,
    }

    def shown(name: str) -> Sequence[xr.Dataset]:
        """xi_over_L: the analyses that have it (all, for the panel that says none has)."""
        return (name == "xi_over_L" and _having(ordered, "xi_over_L")) or ordered

    return draw_campaign_figures(MODEL, ordered, drawings, shown=shown, names=names)
