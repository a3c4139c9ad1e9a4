"""kelling2017 Fig. 3: the autocorrelations under device-layer DD schemes, heights (a) and
the noise levels of the slopes that the paper compares in (b).

Draw functions (the kpz spec's paper figures ``fig3a`` and ``fig3b_noise``; ``python -m
analysis.papers FIGURE``), each ``draw(inputs, **options) -> (Figure, provenance)`` from
the analysis files of :mod:`analysis.kpz`, one per point:

- :func:`fig3a` (Fig. 3a): height autocorrelation ``C_h(t, s)`` vs ``t/s`` for one waiting
  time (option ``s``), one curve per point, the sequential reference in black, as
  :func:`analysis.kelling2017.fig3b` draws ``C_s``.  Why: under cDB (and DT with a fixed
  origin) ``C_h`` leaves the power law of the sequential reference at late times.
- :func:`fig3b_noise` (Fig. 3b, its text): the noise level of ``C_s(t, s)`` at late times
  (``t/s >`` option ``min_ratio``, 30 as the paper), where the signal has decayed below
  the noise, per point and at equal sample counts.  Why: the paper reads from Fig. 3(b)
  that DB with its 5-site borders adds noise (more at ``t_async = 1`` than at 0.5) while
  DTr adds none; :func:`noise_table` gives the numbers behind that reading.

The styling (sequential first and black, the others coloured in order, legends below the
axes, scheme + TC labels) is :mod:`analysis.kelling2017`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from analysis.kelling2017 import (
    choose_s,
    common_waiting_times,
    legend_below,
    legend_height,
    load_paper_analyses,
    plot_c,
)
from analysis.kelling2017_labels import curve_styles, is_sequential, reference_first, scheme_label
from analysis.plotting import (
    PANEL_HEIGHT,
    STYLE,
    Drawn,
    axis_label,
    fmt_number,
    guide_style,
    log_tick_labels,
    n_samples_of,
    new_figure,
    provenance,
    source_of,
    unit_text,
)

__all__ = [
    "MIN_RATIO",
    "fig3a",
    "fig3b_noise",
    "noise_table",
    "noise_table_text",
    "plot_fig3a",
    "plot_fig3b_noise",
]

#: The paper's late times of Fig. 3(b): "At late times (t/s > 30) autocorrelation signals
#: have decayed below the noise-level of the respective sample, so the variance can be
#: compared."
MIN_RATIO = 30.0


# ----------------------------------------------------------------------------- Fig. 3(a)


def plot_fig3a(datasets: Sequence[xr.Dataset], s: float | None = None) -> Figure:
    """kelling2017 Fig. 3(a): height autocorrelation C_h(t, s) vs t/s with jackknife errors.

    One curve per point at a single waiting time ``s`` (default: the largest s common to
    all datasets), the sequential points in black as the reference, the layout of
    :func:`analysis.kelling2017.plot_fig3b`.  The axes are log-log while every C_h stands
    above its noise; where a curve decays into its noise the y axis turns symlog with the
    noise band linear and shaded (:func:`analysis.kpz_figures.draw_decaying`), so no point is
    dropped.  A scheme that imprints a pattern (cDB, DT with a fixed origin) bends away
    from the power law of the reference at late t/s.
    """
    dss = reference_first(datasets)
    s_val = choose_s(dss, s)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, PANEL_HEIGHT + legend_height(len(dss) + 2))
        ax = axes[0, 0]
        plot_c(ax, dss, "h", s_val)
        ax.set_ylabel(axis_label(r"$C_h(t,s)$", dss[0]["C_h_mean"].attrs))
        legend_below(fig, ax, f"s = {s_val:g} {unit_text(dss[0]['s'].attrs)}")
    return fig


def fig3a(inputs: Sequence[str], s: float | None = None) -> Drawn:
    """Fig. 3(a) (:func:`plot_fig3a`) from the analysis files ``inputs`` of the points, at
    waiting time ``s`` (default: the largest common one); with their provenance."""
    datasets = load_paper_analyses(inputs)
    return plot_fig3a(datasets, s=s), provenance(datasets)


# ----------------------------------------------------------------------------- Fig. 3(b) noise


def _min_ratio(value: Any) -> float:
    """The option ``min_ratio`` as a number >= 1 (t/s starts at 1); ``ValueError`` else."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if isinstance(value, bool) or not math.isfinite(x) or x < 1:
        raise ValueError(f"option min_ratio must be a number >= 1 (a t/s), got {value!r}")
    return x


def _point_text(ds: xr.Dataset, tex: bool) -> str:
    """A point as the noise figure names it: scheme (+TC), and t_async for a DD point
    (mathtext where ``tex``, plain text for tables)."""
    text = scheme_label(ds)
    if not is_sequential(ds) and "t_async" in ds.attrs:
        name = r"$t_{async}$" if tex else "t_async"
        text += f", {name}={fmt_number(ds.attrs['t_async'])}"
    return text


def _late(ds: xr.Dataset, s: float, min_ratio: float) -> tuple[np.ndarray, ...]:
    """``(t/s, C_s mean, C_s error)`` at waiting time ``s`` for the times t/s > min_ratio
    where the mean and its error are finite."""
    k = int(np.flatnonzero(np.asarray(ds["s"].values, dtype=float) == s)[0])
    t = np.asarray(ds["t"].values, dtype=float)
    y = np.asarray(ds["C_s_mean"].isel(s=k).values, dtype=float)
    e = np.asarray(ds["C_s_err"].isel(s=k).values, dtype=float)
    ok = (t / s > min_ratio) & np.isfinite(y) & np.isfinite(e)
    return t[ok] / s, y[ok], e[ok]


def _noise_s(datasets: Sequence[xr.Dataset], s: float | None, min_ratio: float) -> float:
    """The waiting time of the noise figure: ``s`` where given (every point must have it),
    else the largest s common to all points at which every point has at least two times
    t/s > ``min_ratio`` (a noise level with an error), else the largest common s.  Why
    not simply the largest common s: with s = 100 and 1000 to t = 10^4, s = 1000 has no
    time beyond t/s = 30 and the figure would be empty."""
    if s is not None:
        return choose_s(datasets, s)
    for s_val in common_waiting_times(datasets)[::-1]:
        if all(_late(d, float(s_val), min_ratio)[0].size >= 2 for d in datasets):
            return float(s_val)
    return choose_s(datasets, None)


def _count(n: Any) -> Any:
    """A sample count as a Python int (netCDF gives numpy integers); else as it is."""
    try:
        return int(n) if float(n) == int(n) else n
    except (TypeError, ValueError):
        return n


def _noise_row(ds: xr.Dataset, s: float, min_ratio: float) -> dict[str, Any]:
    """The noise numbers of one point (see :func:`noise_table`)."""
    _, y, e = _late(ds, s, min_ratio)
    k = int(y.size)
    rms = math.sqrt(float(np.mean(y**2))) if k else math.nan
    rms_err = math.nan
    if k >= 2 and rms > 0:
        rms_err = float(np.std(y**2, ddof=1)) / (2.0 * rms * math.sqrt(k))
    expected = math.sqrt(float(np.mean(e**2))) if k else math.nan
    ratio = rms / expected if k and expected > 0 else math.nan
    return {
        "label": _point_text(ds, tex=False),
        "scheme": str(ds.attrs.get("scheme", "?")),
        "t_async": None if is_sequential(ds) else ds.attrs.get("t_async"),
        "n": _count(n_samples_of(ds)),
        "n_times": k,
        "rms": rms,
        "rms_err": rms_err,
        "expected": expected,
        "ratio": ratio,
    }


def noise_table(
    datasets: Sequence[xr.Dataset], s: float | None = None, min_ratio: float = MIN_RATIO
) -> list[dict[str, Any]]:
    """The late-time noise of ``C_s(t, s)`` per point, reference first (the order of
    :func:`plot_fig3b_noise`): at waiting time ``s`` (default the largest common one with
    at least two such times in every point, else the largest common one), over the K
    sampling times with ``t/s > min_ratio`` where C_s has a finite mean and error, with
    y_i the sample means and e_i their jackknife errors:

    - ``rms`` = sqrt(mean_i y_i^2): the measured noise level (the paper's "variance" that
      Fig. 3b compares by eye);
    - ``rms_err`` = sd_i(y_i^2) / (2 rms sqrt(K)): its error from the scatter over the
      times (the standard error of the mean of y_i^2, propagated through the square
      root; NaN for K < 2).  It treats the K means as independent; they share the n
      samples, so neighbouring times are correlated and the bar is a lower bound;
    - ``expected`` = sqrt(mean_i e_i^2): the rms that a zero signal would show, each mean
      then scattering by its own error (E[y_i^2] = e_i^2);
    - ``ratio`` = rms / expected: about 1 where the signal has decayed into the noise; well
      above 1 where a signal remains (the plateau that cDB imprints).  Extra noise (DB's
      wide borders) raises rms and expected alike: the schemes are compared by their
      levels at equal n, the ratio tells noise from a remaining signal.

    Each row also has ``label`` (scheme, TC, t_async), ``scheme``, ``t_async`` (None for
    sequential), ``n`` (samples) and ``n_times`` (K; rms and expected are NaN for K = 0).
    ``ValueError`` for a waiting time some point lacks or a ``min_ratio`` below 1.
    """
    ratio = _min_ratio(min_ratio)
    dss = reference_first(datasets)
    s_val = _noise_s(dss, s, ratio)
    return [_noise_row(ds, s_val, ratio) for ds in dss]


def noise_table_text(rows: Sequence[dict[str, Any]]) -> str:
    """The rows of :func:`noise_table` as one line of text each, joined by ``"; "`` (for a
    figure's provenance and for quoting): ``label (n=.., K=..): rms .. +- .., expected
    .., ratio ..``."""
    return "; ".join(
        f"{r['label']} (n={r['n']}, K={r['n_times']}): rms {r['rms']:.3g} +- "
        f"{r['rms_err']:.2g}, expected {r['expected']:.3g}, ratio {r['ratio']:.3g}"
        for r in rows
    )


def _check_equal_n(datasets: Sequence[xr.Dataset], equal_n: Any) -> None:
    """Refuse points of different sample counts unless ``equal_n`` is false: the noise
    levels are compared at equal n (they fall as 1/sqrt(n))."""
    if not isinstance(equal_n, bool | np.bool_):
        raise ValueError(f"option equal_n must be true or false, got {equal_n!r}")
    counts = [str(n_samples_of(d)) for d in datasets]
    if equal_n and len(set(counts)) > 1:
        have = ", ".join(f"{source_of(d)} n={n}" for d, n in zip(datasets, counts, strict=True))
        raise ValueError(
            f"fig3b_noise compares noise levels at equal sample counts, but the points "
            f"differ ({have}); set option equal_n: false to draw them anyway"
        )


def plot_fig3b_noise(
    datasets: Sequence[xr.Dataset],
    s: float | None = None,
    min_ratio: float = MIN_RATIO,
    equal_n: bool = True,
) -> Figure:
    """kelling2017 Fig. 3(b), its noise: the late-time scatter of C_s(t, s) per point.

    Panel (a), one column per point (reference first, labelled scheme + TC, t_async, the
    sample count n and the number K of times): the measured noise level ``rms`` of the
    sample means C_s(t, s) over the K times t/s > ``min_ratio`` at waiting time ``s``
    (default: as :func:`noise_table`) as a marker with the error bar from their scatter
    (drawn for K >= 2), and the level a zero signal would give from the jackknife errors
    (``expected``) as a horizontal bar of the point's colour (:func:`noise_table` defines
    both).  A correlation-free scheme sits at
    the reference's height; DB's wide borders add noise (both numbers higher at equal n);
    a remaining signal (cDB's plateau) lifts the marker above its bar.  Panel (b): those
    C_s(t, s) with their jackknife errors vs t/s, y linear around the zero line.  Points
    of different n are refused unless ``equal_n`` is false (then compare with care: noise
    falls as 1/sqrt(n)).
    """
    dss = reference_first(datasets)
    _check_equal_n(dss, equal_n)
    ratio = _min_ratio(min_ratio)
    s_val = _noise_s(dss, s, ratio)
    rows = [_noise_row(ds, s_val, ratio) for ds in dss]
    styles = curve_styles(dss)
    unit = unit_text(dss[0]["s"].attrs)
    window = f"t/s > {ratio:g}"
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(2, 1, 2 * PANEL_HEIGHT + 0.9 + legend_height(len(dss)))
        ax, bx = axes[0, 0], axes[1, 0]
        x = np.arange(len(dss), dtype=float)
        for i, (row, style) in enumerate(zip(rows, styles, strict=True)):
            if row["n_times"] >= 2:  # with fewer, the rms has no error from its scatter
                ax.errorbar([x[i]], [row["rms"]], yerr=[row["rms_err"]], linestyle="none",
                            **style)  # fmt: skip
            if row["n_times"] >= 1:
                ax.hlines(row["expected"], x[i] - 0.3, x[i] + 0.3, color=style["color"],
                          linewidth=1.5, zorder=1)  # fmt: skip
        ticks = [f"{_point_text(d, tex=True)}\nn={r['n']}, K={r['n_times']}"
                 for d, r in zip(dss, rows, strict=True)]  # fmt: skip
        ax.set_xticks(x, ticks, rotation=35, ha="right", rotation_mode="anchor", fontsize=6)
        ax.set_xlim(-0.6, len(dss) - 0.4)
        tops = [v for r in rows for v in (r["rms"] + np.nan_to_num(r["rms_err"]), r["expected"])]
        top = max((v for v in tops if np.isfinite(v)), default=0.0)
        ax.set_ylim(0, 1.4 * top if top > 0 else None)  # headroom for the legend
        ax.set_ylabel(rf"noise of $C_s(t,s)$, {window}")
        ax.set_title(f"(a) s = {s_val:g} {unit}", loc="left")
        handles = [
            Line2D([], [], color="0.3", marker="o", linestyle="none"),
            Line2D([], [], color="0.3", linewidth=1.5),
        ]
        ax.legend(handles, ["rms of the means (bar: scatter)", "rms of their errors"],
                  fontsize=6, loc="upper left")  # fmt: skip
        for ds, row, style in zip(dss, rows, styles, strict=True):
            t_s, y, e = _late(ds, s_val, ratio)
            label = f"{_point_text(ds, tex=True)}, n={row['n']}"
            bx.errorbar(t_s, y, yerr=e, label=label, **style)
        bx.axhline(0.0, **guide_style(color="0.4", linestyle=":"))
        bx.set_xlabel("t/s")
        bx.set_ylabel(axis_label(r"$C_s(t,s)$", dss[0]["C_s_mean"].attrs))
        bx.set_title(f"(b) {window}", loc="left")
        if any(r["n_times"] for r in rows):
            bx.set_xscale("log")
            log_tick_labels(bx)
        else:  # t_max below min_ratio * s: nothing to draw, and said so
            for a in (ax, bx):
                a.text(0.5, 0.5, f"no sampling time with {window} at s = {s_val:g}",
                       ha="center", va="center", fontsize=7, transform=a.transAxes)  # fmt: skip
        handles, labels = bx.get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="outside lower center", fontsize=6)
    return fig


def fig3b_noise(
    inputs: Sequence[str],
    s: float | None = None,
    min_ratio: float = MIN_RATIO,
    equal_n: bool = True,
) -> Drawn:
    """The noise levels of Fig. 3(b) (:func:`plot_fig3b_noise`) from the analysis files
    ``inputs`` of the points; the provenance has the numbers as ``noise_table``
    (:func:`noise_table_text`)."""
    datasets = load_paper_analyses(inputs)
    fig = plot_fig3b_noise(datasets, s=s, min_ratio=min_ratio, equal_n=equal_n)
    rows = noise_table(datasets, s=s, min_ratio=min_ratio)
    return fig, {**provenance(datasets), "noise_table": noise_table_text(rows)}
