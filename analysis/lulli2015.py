"""lulli2015 (Lulli, Bernaschi, Parisi: highly optimized simulations on single- and
multi-GPU systems of the 3D Ising spin glass model): its performance figures, from the
tables of ``simcore bench ea3d --csv`` and ``simcore bench mgpu --csv``.

Draw functions (the ea3d spec's paper figures; ``python -m analysis.papers FIGURE``), each
``draw(inputs, **options) -> (Figure, provenance)`` with one table as input:

* ``psflip_k`` (lulli2015 Fig. 4): psFlip vs the number of coded words k, one line per
  (layout, L): small lattices need many words to fill the GPU.
* ``psflip_L`` (Fig. 5): the best psFlip over k vs L, one line per layout and branch of
  sizes (L = 4m and L = 2(2m+1), the paper's L_0 and L_1).
* ``psflip_prng`` (Fig. 9): psFlip of each random number generator relative to the
  baseline (MINSTD when measured, else Philox) vs L, and the absolute values.
* ``strong_scaling`` (Fig. 12), from ``simcore bench mgpu --csv`` tables: the efficiency
  eta = psFlip_1 / psFlip_N (eq. 19-21; N = 1 is the single-GPU kernel) and psFlip_multi
  = psFlip_N / N vs L, one line per GPU count N;
* ``scaling_collapse`` (Fig. 13): x psFlip_N vs x = L / N, all N on one curve when the
  communication is fast enough.

Tables 1 and 2 (generators), Fig. 7 (best k, branching warps) and Fig. 8 (bandwidth) are
in :mod:`analysis.lulli2015_tables`.

Every point is the median of the repeats of one configuration; bars span min to max.
The columns each figure needs are named here and read by header (:mod:`analysis.tables`).
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from analysis.plotting import STYLE, Drawn, guide_style, log_tick_labels, new_figure, size_color
from analysis.tables import Row, read_table, table_provenance

__all__ = [
    "best_over_k",
    "gpu_color",
    "layout_style",
    "load_ea3d_bench",
    "load_scaling",
    "from_ea3d_table",
    "medians",
    "only",
    "plot_psflip_L",
    "plot_psflip_k",
    "plot_psflip_prng",
    "plot_scaling_collapse",
    "plot_strong_scaling",
    "psflip_L",
    "psflip_k",
    "psflip_prng",
    "recorded_scaling",
    "scaling_collapse",
    "size_branch",
    "strong_scaling",
]

#: Sizes Fig. 4 draws a line for at most before it keeps L = 2^l only.
_MAX_FIG4_SIZES = 8
#: Markers of the generators and devices of one size in Fig. 4 (the size is the colour).
_MARKERS = ("o", "s", "^", "D", "v")
#: (colour, marker) of each layout in Figs. 5, 7 and 8, the paper's: sliced red squares,
#: standard green circles, bitwise blue circles.
_LAYOUT_STYLES = {"sliced": ("C3", "s"), "standard": ("C2", "o"), "bitwise": ("C0", "o")}
#: Colours of the GPU counts N = 1, 2, 4, ... of Figs. 12 and 13 (tab10 without grey).
_GPU_COLORS = ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C8", "C9")

#: Columns of a ``simcore bench ea3d --csv`` table the psFlip figures need.
EA3D_COLUMNS: dict[str, Callable[[str], Any]] = {
    "layout": str, "L": int, "k": int, "prng": str, "backend": str, "device": str,
    "ps_per_flip": float, "commit": str,
}  # fmt: skip
#: The strong-scaling table recorded on 8 H200s (package data), for one-GPU campaigns.
RECORDED_SCALING = Path(__file__).with_name("data") / "lulli2015_mgpu_h200x8.csv"
#: Columns of a ``simcore bench mgpu --csv`` (strong-scaling) table the scaling figures need.
SCALING_COLUMNS: dict[str, Callable[[str], Any]] = {
    "L": int, "n_gpus": int, "ps_per_flip_n": float, "device": str, "commit": str,
}  # fmt: skip


def gpu_color(n: int) -> str:
    """The colour of the GPU count ``n`` in Figs. 12 and 13, the same whichever counts a
    table holds (N = 1 blue, 2 orange, 4 green, 8 red, ...): from log2 N."""
    return _GPU_COLORS[max(round(math.log2(max(int(n), 1))), 0) % len(_GPU_COLORS)]


def load_ea3d_bench(path: str | os.PathLike[str]) -> list[Row]:
    """Rows of an EA3D benchmark CSV; ValueError naming the file for a bad table."""
    return read_table(path, EA3D_COLUMNS, "an ea3d benchmark table")


def medians(rows: Sequence[Row], keys: tuple[str, ...]) -> dict[tuple, tuple]:
    """(median, min, max) of psFlip per configuration ``keys``."""
    groups: dict[tuple, list[float]] = defaultdict(list)
    for r in rows:
        groups[tuple(r[k] for k in keys)].append(r["ps_per_flip"])
    return {g: (float(np.median(v)), min(v), max(v)) for g, v in sorted(groups.items())}


def _plot_lines(
    ax: Any,
    series: dict[str, list[tuple[float, tuple]]],
    styles: dict[str, dict[str, Any]] | None = None,
) -> None:
    """One line per series: medians at each x with bars from the minimum to the maximum;
    ``styles``: a series' colour and marker (default: the colour cycle, circles)."""
    for label, pts in series.items():
        pts.sort()
        x = np.array([p[0] for p in pts], dtype=float)
        med = np.array([p[1][0] for p in pts])
        bars = np.array([[m - p[1][1] for p, m in zip(pts, med, strict=True)],
                         [p[1][2] - m for p, m in zip(pts, med, strict=True)]])  # fmt: skip
        style = {"marker": "o", **(styles or {}).get(label, {})}
        ax.errorbar(x, med, yerr=bars, ms=3, capsize=1.5, label=label, **style)


def _log_log_figure(
    series: dict[str, list],
    xlabel: str,
    ylabel: str,
    legend: int,
    styles: dict[str, dict[str, Any]] | None = None,
) -> Figure:
    """One panel of median lines with min-max bars, log2 x, log y."""
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1)
        ax = axes[0, 0]
        _plot_lines(ax, series, styles)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=legend, loc="best")
    return fig


def plot_psflip_k(rows: Sequence[Row]) -> Figure:
    """lulli2015 Fig. 4: psFlip vs k, one line per (L, prng, device) measured at three or
    more k, for one layout (sliced if measured; the paper's Fig. 4 shows one kernel): the
    colour of its L (fixed per size, as in every figure:
    :func:`analysis.plotting.size_color`), a marker per generator and device.  A table of
    more than :data:`_MAX_FIG4_SIZES` sizes (the every-even-L scan of Figs. 5, 7 and 8) is
    drawn at its sizes L = 2^l only, one readable line each."""
    layouts = {r["layout"] for r in rows}
    shown = "sliced" if "sliced" in layouts else sorted(layouts)[0]
    rows = [r for r in rows if r["layout"] == shown]
    sizes = {r["L"] for r in rows}
    if len(sizes) > _MAX_FIG4_SIZES and any(L & (L - 1) == 0 for L in sizes):
        rows = [r for r in rows if r["L"] & (r["L"] - 1) == 0]  # a Fig. 5 scan: L = 2^l
    series: dict[str, list] = defaultdict(list)
    styles: dict[str, dict[str, Any]] = {}
    kinds = sorted({(r["prng"], r["device"]) for r in rows})
    for (layout, L, prng, dev, k), val in medians(
        rows, ("layout", "L", "prng", "device", "k")
    ).items():
        label = f"L={L}, {layout}, {prng}, {dev}"
        series[label].append((k, val))
        marker = _MARKERS[kinds.index((prng, dev)) % len(_MARKERS)]
        styles[label] = {"color": size_color(L), "marker": marker}
    series = {label: pts for label, pts in series.items() if len(pts) >= 3}
    if not series:
        raise ValueError("psflip_k needs a configuration measured at three or more k")
    return _log_log_figure(series, "coded words k (64 samples each)", "psFlip [ps]", 5, styles)


def best_over_k(rows: Sequence[Row], keys: tuple[str, ...]) -> dict[tuple, tuple]:
    """Per configuration ``keys`` + L: the (median, min, max) of the k with the best median."""
    best: dict[tuple, tuple] = {}
    for g, val in medians(rows, (*keys, "L", "k")).items():
        key = g[:-1]
        if key not in best or val[0] < best[key][0]:
            best[key] = val
    return best


def only(rows: Sequence[Row], key: str, preferred: str) -> list[Row]:
    """The rows of one value of ``key``: ``preferred`` if measured, else the first."""
    values = sorted({r[key] for r in rows})
    keep = preferred if preferred in values else values[0]
    return [r for r in rows if r[key] == keep]


def size_branch(L: int) -> str:
    """The paper's subsequence of an even size (lulli2015 sec. 4.1, App. B): "L = 4m" (L_0,
    faster: L^3 / 2 a multiple of the warp) or "L = 2(2m+1)" (L_1, one partly filled warp
    per word and colour)."""
    return "L = 4m" if int(L) % 4 == 0 else "L = 2(2m+1)"


def layout_style(layout: str, branch: str = "L = 4m", device_index: int = 0) -> dict[str, Any]:
    """The colour and marker of a layout as in the paper's Figs. 5, 7 and 8 (sliced red
    squares, standard green circles, bitwise blue circles); the L = 2(2m+1) branch drawn
    with open markers and a dashed line; a second device's markers from :data:`_MARKERS`."""
    color, marker = _LAYOUT_STYLES.get(layout, ("C7", "o"))
    if device_index:
        marker = _MARKERS[device_index % len(_MARKERS)]
    style: dict[str, Any] = {"color": color, "marker": marker}
    if branch != "L = 4m":
        style.update(mfc="none", linestyle="--")
    return style


def plot_psflip_L(rows: Sequence[Row]) -> Figure:
    """lulli2015 Fig. 5: the best psFlip over k vs L, one line per layout and branch of
    sizes (for one PRNG, philox if measured): L = 4m filled markers on a solid line, L =
    2(2m+1) open markers on a dashed line, the paper's L_0 and L_1 subsequences."""
    rows = only(rows, "prng", "philox")
    series: dict[str, list] = defaultdict(list)
    styles: dict[str, dict[str, Any]] = {}
    devices = sorted({r["device"] for r in rows})
    prng = rows[0]["prng"]
    for (layout, dev, L), val in best_over_k(rows, ("layout", "device")).items():
        label = f"{layout}, {size_branch(L)}" + (f", {dev}" if len(devices) > 1 else "")
        series[label].append((L, val))
        styles[label] = layout_style(layout, size_branch(L), devices.index(dev))
    fig = _log_log_figure(series, "L [sites]", "best psFlip over k [ps]", 5, styles)
    title = prng + (f", {devices[0]}" if len(devices) == 1 else "")
    fig.axes[0].get_legend().set_title(title, prop={"size": 5})
    return fig


def plot_psflip_prng(rows: Sequence[Row]) -> Figure:
    """lulli2015 Fig. 9: psFlip per PRNG relative to the baseline, and absolute, vs L (for
    one layout, sliced if measured)."""
    rows = only(rows, "layout", "sliced")
    # compare at the same k: keep, per L, the k values measured for every generator
    prngs = {r["prng"] for r in rows}
    ks: dict[int, set] = defaultdict(set)
    for L in {r["L"] for r in rows}:
        per = [{r["k"] for r in rows if r["L"] == L and r["prng"] == p} for p in prngs]
        ks[L] = set.intersection(*per)
    rows = [r for r in rows if r["k"] in ks[r["L"]]]
    best = best_over_k(rows, ("prng", "layout", "device"))
    prngs = sorted({k[0] for k in best})
    base = "minstd" if "minstd" in prngs else prngs[0]
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(2, 1)
        rel: dict[str, list] = defaultdict(list)
        absolute: dict[str, list] = defaultdict(list)
        for (prng, layout, dev, L), val in best.items():
            ref = best.get((base, layout, dev, L))
            label = f"{prng}, {layout}, {dev}"
            absolute[label].append((L, val))
            if ref is not None:
                rel[label].append((L, tuple(v / ref[0] for v in val)))
        _plot_lines(axes[0, 0], rel)
        _plot_lines(axes[1, 0], absolute)
        axes[0, 0].set_ylabel(f"psFlip / {base}")
        axes[1, 0].set_ylabel("psFlip [ps]")
        axes[1, 0].set_yscale("log")
        for ax in axes[:, 0]:
            ax.set_xscale("log", base=2)
            ax.set_xlabel("L [sites]")
        axes[1, 0].legend(fontsize=5)
    return fig


def load_scaling(path: str | os.PathLike[str]) -> list[Row]:
    """Rows of a strong-scaling CSV (simcore bench mgpu); ValueError naming the file."""
    rows = read_table(path, SCALING_COLUMNS, "a strong-scaling table")
    return [{**r, "ps": r["ps_per_flip_n"]} for r in rows]


def _scaling_medians(rows: Sequence[Row]) -> dict[tuple[int, int], float]:
    groups: dict[tuple[int, int], list[float]] = defaultdict(list)
    for r in rows:
        groups[(r["L"], r["n_gpus"])].append(r["ps"])
    return {key: float(np.median(v)) for key, v in sorted(groups.items())}


def recorded_scaling() -> list[Row]:
    """The strong-scaling table recorded on 8 H200s of one host (BENCHMARKS.md): what the
    figures draw where the machine that ran the campaign had fewer GPUs than they need."""
    return load_scaling(RECORDED_SCALING)


def _with_recorded(rows: Sequence[Row]) -> tuple[list[Row], list[Row], str]:
    """(rows drawn as curves, rows of this machine drawn as markers, a note for the
    figure): a table measured on one GPU has no scaling to show, so the curves come from
    :func:`recorded_scaling` and the measured single-GPU points are drawn over them."""
    if max(r["n_gpus"] for r in rows) >= 2:
        return list(rows), [], ""
    recorded = recorded_scaling()
    device, commit = recorded[0]["device"], recorded[0]["commit"]
    here = ", ".join(sorted({str(r["device"]) for r in rows}))
    note = (f"curves: recorded on {device} (commit {commit}, BENCHMARKS.md);\n"
            f"this campaign's machine has 1 GPU ({here}): its N = 1 points in black")  # fmt: skip
    return recorded, list(rows), note


def _measured_points(ax: Any, measured: Sequence[Row], y: Callable[[int, float], float]) -> None:
    """This machine's points (median per L) over the recorded curves, in black."""
    if not measured:
        return
    med = _scaling_medians(measured)
    Ls = sorted(L for L, _ in med)
    ax.plot(Ls, [y(L, med[(L, 1)]) for L in Ls], "ks", mfc="none", linestyle="none",
            label="this machine, N = 1")  # fmt: skip


def plot_strong_scaling(rows: Sequence[Row]) -> Figure:
    """lulli2015 Fig. 12: (a) eta vs L per N >= 2, (b) psFlip_multi vs L per N.  A table
    with only N = 1 (a one-GPU machine) is drawn over the recorded multi-GPU table, and
    the figure says so (:func:`_with_recorded`): never an empty panel."""
    curves, measured, note = _with_recorded(rows)
    med = _scaling_medians(curves)
    ns = sorted({n for _, n in med})
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(2, 1, 4.2 if note else 3.9, sharex=True)
        for n in ns:
            Ls = sorted(L for L, m in med if m == n)
            style = {"marker": "o", "label": f"N = {n}", "color": gpu_color(n)}
            if n > 1:
                eta = [med[(L, 1)] / med[(L, n)] if (L, 1) in med else np.nan for L in Ls]
                axes[0, 0].plot(Ls, eta, **style)
            axes[1, 0].plot(Ls, [med[(L, n)] / n for L in Ls], **style)
        _measured_points(axes[1, 0], measured, lambda L, ps: ps)
        axes[0, 0].axhline(0.9, **guide_style(color="0.6"), label=r"$\eta = 0.9$")
        axes[0, 0].set_ylim(0.0, max(1.2, axes[0, 0].get_ylim()[1]))
        axes[0, 0].set_ylabel(r"$\eta_{SC}$ = psFlip$_1$ / psFlip$_N$")
        axes[1, 0].set_ylabel(r"psFlip$_{multi}$ [ps]")
        axes[1, 0].set_yscale("log")
        axes[1, 0].set_xlabel("L [sites]")
        for ax in axes[:, 0]:
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g}"))
            log_tick_labels(ax)
            ax.legend(fontsize=6, ncols=2)
        if note:
            fig.supxlabel(note, fontsize=6, color="0.3")
    return fig


def plot_scaling_collapse(rows: Sequence[Row]) -> Figure:
    """lulli2015 Fig. 13: x psFlip_N vs x = L / N, one marker set per N (over the recorded
    multi-GPU table where the campaign's machine has one GPU, as in Fig. 12)."""
    curves, measured, note = _with_recorded(rows)
    med = _scaling_medians(curves)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, 2.9 if note else None)
        ax = axes[0, 0]
        for n in sorted({n for _, n in med}):
            pts = sorted((L / n, L / n * ps) for (L, m), ps in med.items() if m == n)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"N = {n}",
                    color=gpu_color(n))  # fmt: skip
        _measured_points(ax, measured, lambda L, ps: L * ps)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("x = L / N [sites]")
        ax.set_ylabel(r"x psFlip$_N$ [ps]")
        ax.legend(fontsize=6)
        if note:
            fig.supxlabel(note, fontsize=6, color="0.3")
    return fig


def from_ea3d_table(plot: Callable[[Sequence[Row]], Figure], inputs: Sequence[str]) -> Drawn:
    """A figure drawn by ``plot`` from the one table of ``simcore bench ea3d --csv``, with
    provenance (Figs. 4, 5, 9 here; Figs. 7, 8 in :mod:`analysis.lulli2015_tables`)."""
    (path,) = inputs
    rows = load_ea3d_bench(path)
    configs = sorted({f"{r['layout']} L={r['L']} k={r['k']} {r['prng']}" for r in rows})
    prov = table_provenance([path], rows, "; ".join(configs), f"{len(rows)} measurements")
    return plot(rows), prov


def _scaling(plot: Callable[[Sequence[Row]], Figure], inputs: Sequence[str]) -> Drawn:
    """A strong-scaling figure from the one table of ``simcore bench mgpu --csv`` (and the
    recorded table, whose commit then enters the provenance, for a one-GPU table)."""
    (path,) = inputs
    rows = load_scaling(path)
    if max(r["n_gpus"] for r in rows) < 2:
        recorded = recorded_scaling()
        sizes = ", ".join(map(str, sorted({r["L"] for r in rows})))
        prov = table_provenance([path, RECORDED_SCALING], [*rows, *recorded],
                                f"L = {sizes}; N = 1 here, 1-8 recorded", f"{len(rows)} "
                                f"measurements + {len(recorded)} recorded medians")  # fmt: skip
        return plot(rows), {**prov, "backend": "gpu"}
    sizes = ", ".join(map(str, sorted({r["L"] for r in rows})))
    gpus = ", ".join(map(str, sorted({r["n_gpus"] for r in rows})))
    prov = table_provenance([path], rows, f"L = {sizes}; N = {gpus}", f"{len(rows)} measurements")
    return plot(rows), {**prov, "backend": "gpu"}


def psflip_k(inputs: Sequence[str]) -> Drawn:
    """lulli2015 Fig. 4 (:func:`plot_psflip_k`) from a ``simcore bench ea3d`` table."""
    return from_ea3d_table(plot_psflip_k, inputs)


def psflip_L(inputs: Sequence[str]) -> Drawn:
    """lulli2015 Fig. 5 (:func:`plot_psflip_L`) from a ``simcore bench ea3d`` table."""
    return from_ea3d_table(plot_psflip_L, inputs)


def psflip_prng(inputs: Sequence[str]) -> Drawn:
    """lulli2015 Fig. 9 (:func:`plot_psflip_prng`) from a ``simcore bench ea3d`` table."""
    return from_ea3d_table(plot_psflip_prng, inputs)


def strong_scaling(inputs: Sequence[str]) -> Drawn:
    """lulli2015 Fig. 12 (:func:`plot_strong_scaling`) from a ``simcore bench mgpu`` table."""
    return _scaling(plot_strong_scaling, inputs)


def scaling_collapse(inputs: Sequence[str]) -> Drawn:
    """lulli2015 Fig. 13 (:func:`plot_scaling_collapse`) from a ``simcore bench mgpu`` table."""
    return _scaling(plot_scaling_collapse, inputs)
