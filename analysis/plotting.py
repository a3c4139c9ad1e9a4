"""What every figure of the analysis shares: style, sizes, saving with provenance, loading.

Figures are one paper column wide (3.4 inches; 2.6 inches per single panel, taller with
more panels), 8 pt text (7 pt legends), constrained layout, written as PNG (300 dpi) and
PDF.  They are built with ``matplotlib.figure.Figure`` and rendered by Agg and the PDF
backend directly: no pyplot state, safe in workers and tests.  Every file carries
provenance in its metadata (simcore version, git commit, points, samples), so a figure
found in a draft can be traced to its data, and is written atomically.

Nothing here names a model: the model modules (:mod:`analysis.kpz`, ...) and the paper
modules (:mod:`analysis.kelling2017`, ...) draw with these pieces.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import xarray as xr
from matplotlib import patheffects
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.ticker import FuncFormatter, NullFormatter

from simcore.io.atomic import atomic_path
from simcore.models import registry

__all__ = [
    "COLUMN_WIDTH",
    "GUIDE_ZORDER",
    "PANEL_HEIGHT",
    "SIDE_BY_SIDE",
    "SIZE_PALETTE",
    "STYLE",
    "Drawn",
    "attr",
    "draw_mean_vs_time",
    "axis_label",
    "fmt_number",
    "grid",
    "guide_style",
    "load_datasets",
    "log_tick_labels",
    "n_samples_of",
    "new_figure",
    "plot_mean_vs_time",
    "positive_only",
    "provenance",
    "require_variables",
    "draw_campaign_figures",
    "save_drawn",
    "save_figure",
    "size_color",
    "styles_by",
    "source_of",
    "stack_height",
    "time_label",
    "unit_text",
    "value_error_text",
]

#: What a paper figure's draw function returns: the figure and its provenance strings.
Drawn = tuple[Figure, dict[str, str]]

#: Width of one paper column in inches, and the default single-panel height.
COLUMN_WIDTH = 3.4
PANEL_HEIGHT = 2.6

STYLE: dict[str, Any] = {
    "font.size": 8,
    "axes.labelsize": 8,
    "axes.titlesize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 7,
    "legend.frameon": False,
    "lines.linewidth": 1.0,
    "lines.markersize": 2.5,
    "errorbar.capsize": 0,
    "savefig.dpi": 300,
    # Type 3 (matplotlib's default) PDF fonts: Type 42 would embed TrueType subsets,
    # which some journals prefer, but costs ~0.6 s per PDF here (fontTools subsetting).
    # Switch to 42 here if a publisher asks for it.
    "pdf.fonttype": 3,
    "mathtext.default": "regular",
}


# ----------------------------------------------------------------------------- datasets


def load_datasets(paths: Iterable[str | os.PathLike[str]]) -> list[xr.Dataset]:
    """Open netCDF datasets fully into memory (the files are closed again), each with its
    path as the attribute ``source_file`` for messages and provenance.

    A file that is missing, unreadable or not netCDF raises ``ValueError`` starting with
    its name (the first sentence of the reader's message: xarray appends install hints).
    """
    out = []
    for p in paths:
        try:
            with xr.open_dataset(p, decode_times=False) as f:
                ds = f.load()
        except Exception as exc:  # noqa: BLE001 - missing, unreadable, not netCDF
            first = " ".join(str(exc).split()).split(". ")[0] or type(exc).__name__
            raise ValueError(f"{os.fspath(p)}: cannot read as netCDF: {first}") from exc
        ds.attrs.setdefault("source_file", os.fspath(p))
        out.append(ds)
    return out


def require_variables(datasets: Iterable[xr.Dataset], needed: Sequence[str], what: str) -> None:
    """Raise ``ValueError`` naming the first dataset that lacks a variable of ``needed``:
    its file, ``what`` it is not, and the variables it misses."""
    for ds in datasets:
        missing = [v for v in needed if v not in ds.variables]
        if missing:
            raise ValueError(f"{source_of(ds)}: not {what}, missing {', '.join(missing)}")


def attr(ds: xr.Dataset, key: str, default: Any = "?") -> Any:
    """The global attribute ``key`` of ``ds``, ``default`` ("?") where it is missing."""
    return ds.attrs.get(key, default)


def source_of(ds: xr.Dataset) -> str:
    """Name of a dataset in error messages: its file, else its point name."""
    return str(ds.attrs.get("source_file", ds.attrs.get("point", "<dataset>")))


def fmt_number(x: Any) -> str:
    """``%g`` text of a number for labels (1.0 -> "1"); anything else as ``str``."""
    try:
        return f"{float(x):g}"
    except (TypeError, ValueError):
        return str(x)


def value_error_text(value: float, err: float) -> str:
    """``value(err)`` as papers write a result with its error (``0.2415(15)``): the error
    to one significant digit, two where that digit would be 1 (rounding 0.0015 to 0.002
    would overstate it by a third), the value to the same decimal; ``value +- err`` where
    the error reaches the units digit, ``value +- nan`` where it is not finite, ``nan``
    for a value that is not."""
    value, err = float(value), float(err)
    if not math.isfinite(value):
        return "nan"
    if not math.isfinite(err) or err < 0:
        return f"{value:.4g} +- nan"
    if err == 0:
        return f"{value:g}(0)"
    decimals = -math.floor(math.log10(err))
    digits = 2 if math.floor(err * 10.0**decimals) == 1 else 1  # a leading 1: two digits
    decimals += digits - 1
    if round(err * 10.0**decimals) >= 10**digits:  # rounding carried (0.00096 -> 0.001)
        decimals -= 1
    if decimals <= 0:
        return f"{value:.0f} +- {err:.0f}"
    return f"{value:.{decimals}f}({round(err * 10.0**decimals)})"


def n_samples_of(ds: xr.Dataset) -> Any:
    """The number of samples behind an analysis (``n_samples``, else those analysed)."""
    return attr(ds, "n_samples", attr(ds, "n_samples_analyzed"))


def provenance(datasets: Sequence[xr.Dataset]) -> dict[str, str]:
    """Provenance strings of a figure drawn from analyses: simcore versions, git commits,
    config hashes, backends and devices, points and their sample counts."""

    def uniq(key: str) -> str:
        return ", ".join(sorted({str(attr(d, key)) for d in datasets}))

    points = "; ".join(
        f"{attr(d, 'campaign', '')}/{d.attrs.get('point') or source_of(d)} (n={n_samples_of(d)})"
        for d in datasets
    )
    return {
        "simcore_version": uniq("simcore_version"),
        "git_commit": uniq("git_commit"),
        "point_config_hash": uniq("point_config_hash"),
        "backend": uniq("backend"),
        "device": uniq("device"),
        "points": points,
        "samples": ", ".join(str(n_samples_of(d)) for d in datasets),
    }


# ----------------------------------------------------------------------------- saving


def _metadata(name: str, prov: Mapping[str, str], fmt: str) -> dict[str, str]:
    """Backend-specific metadata dict for ``savefig(metadata=...)``."""
    text = (
        f"simcore {prov['simcore_version']}; git {prov['git_commit']}; "
        f"config {prov.get('point_config_hash', '?')}; backend {prov.get('backend', '?')} on "
        f"{prov.get('device', '?')}; points: {prov['points']}; samples: {prov['samples']}"
    )
    software = f"simcore {prov['simcore_version']} (analysis), matplotlib {matplotlib.__version__}"
    if fmt == "pdf":  # the PDF info dictionary has a fixed set of keys
        return {
            "Title": name,
            "Subject": text,
            "Keywords": f"git_commit={prov['git_commit']}; points={prov['points']}",
            "Creator": software,
        }
    return {
        "Title": name,
        "Software": software,
        "Description": text,
        "simcore_version": prov["simcore_version"],
        "git_commit": prov["git_commit"],
        "points": prov["points"],
        "samples": prov["samples"],
        "point_config_hash": prov.get("point_config_hash", ""),
        "backend": prov.get("backend", ""),
        "device": prov.get("device", ""),
    }


def save_figure(
    fig: Figure,
    out_dir: str | os.PathLike[str],
    name: str,
    prov: Mapping[str, str],
    formats: Sequence[str] = ("png", "pdf"),
) -> list[Path]:
    """Save ``fig`` as ``out_dir/name.<fmt>`` for each format, atomically, with metadata.

    ``prov`` needs ``simcore_version``, ``git_commit``, ``points`` and ``samples``
    (:func:`provenance`, or a table's own).  The constrained layout is solved on the first
    save and then frozen (it is in inches, independent of dpi and format), which halves
    the cost of the second format.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i, fmt in enumerate(formats):
        target = out / f"{name}.{fmt}"
        with atomic_path(target) as tmp, matplotlib.rc_context(STYLE):
            fig.savefig(tmp, format=fmt, dpi=300, metadata=_metadata(name, prov, fmt))
        if i == 0:
            fig.set_layout_engine("none")
        written.append(target)
    return written


def draw_campaign_figures(
    model: str,
    analyses: Sequence[xr.Dataset],
    figures: Mapping[str, Callable[[Sequence[xr.Dataset]], Figure]],
    shown: Callable[[str], Sequence[xr.Dataset]] | None = None,
    points: Sequence[Mapping[str, Any]] | None = None,
    names: Collection[str] | None = None,
) -> dict[str, Drawn]:
    """Draw the campaign figures that the spec of ``model`` names for the points
    (``points``: their settings, default the analyses' attributes), in the spec's order,
    or only those of them in ``names``: the spec defines the names once, ``figures`` says
    how each is drawn from the analyses it shows (``shown(name)``, default all), whose
    provenance it carries.  ``ValueError`` for a name the spec does not give these
    points."""
    if not analyses:
        raise ValueError(f"no {model} analyses given")
    settings = [d.attrs for d in analyses] if points is None else points
    named = registry.get(model).campaign_figures(settings)
    unknown = [n for n in names or () if n not in named]
    if unknown:
        raise ValueError(
            f"no {model} campaign figure {', '.join(map(repr, unknown))} for these points "
            f"(they have {', '.join(named)})"
        )
    drawn: dict[str, Drawn] = {}
    for name in named:
        if names is not None and name not in names:
            continue
        if name not in figures:
            raise ValueError(f"the {model} spec names a campaign figure {name!r} not drawn here")
        chosen = analyses if shown is None else shown(name)
        drawn[name] = (figures[name](chosen), provenance(chosen))
    return drawn


def save_drawn(drawn: Mapping[str, Drawn], out_dir: str | os.PathLike[str]) -> list[Path]:
    """Save figures drawn by :func:`draw_campaign_figures` into ``out_dir``, PNG and PDF
    each, named by their keys; returns the written paths."""
    return [path for name, (fig, prov) in drawn.items()
            for path in save_figure(fig, out_dir, name, prov)]  # fmt: skip


# ----------------------------------------------------------------------------- layout


def new_figure(
    nrows: int, ncols: int, height: float | None = None, **kw: Any
) -> tuple[Figure, Any]:
    """A column-wide figure (``height`` inches, default one panel) with an Agg canvas and
    an ``nrows`` x ``ncols`` array of axes (always 2D: ``axes[0, 0]``)."""
    h = PANEL_HEIGHT if height is None else height
    fig = Figure(figsize=(COLUMN_WIDTH, h), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    return fig, axes


def stack_height(n: int) -> float:
    """Figure height for ``n`` panels stacked in one column."""
    return PANEL_HEIGHT if n <= 1 else 0.3 + 1.9 * n


def grid(n: int) -> tuple[int, int]:
    """Rows and columns of a grid of ``n`` panels in one paper column (at most 2 across)."""
    ncols = 1 if n <= 1 else 2
    return math.ceil(n / ncols), ncols


# ----------------------------------------------------------------------------- axes


def positive_only(x: np.ndarray) -> np.ndarray:
    """``x`` as floats with the non-positive values NaN (they cannot sit on a log axis)."""
    x = np.asarray(x, dtype=float)
    return np.where(x > 0, x, np.nan)


def _plain_log_label(x: float, _pos: int | None = None) -> str:
    """'%g' label for 1, 2 and 5 times a power of ten; no label for other ticks."""
    if x <= 0:
        return ""
    mantissa = x / 10 ** np.floor(np.log10(x) + 1e-9)
    return f"{x:g}" if any(abs(mantissa - m) < 1e-6 for m in (1, 2, 5)) else ""


def _nice_numbers(lo: float, hi: float) -> list[float]:
    """The numbers 1, 2 and 5 times a power of ten in [lo, hi] (lo > 0)."""
    out = []
    for k in range(int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 1):
        out += [m * 10.0**k for m in (1, 2, 5) if lo <= m * 10.0**k <= hi]
    return out


def log_tick_labels(ax: Any) -> None:
    """Readable tick labels on log axes in narrow column panels.

    Call after plotting.  Axes spanning two or more decades keep only the powers of ten
    (minor labels clutter); shorter ones, which would show one label or none, get plain
    numbers at 1, 2 and 5 times powers of ten.
    """
    for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        if axis.get_scale() != "log" or getattr(axis.get_transform(), "base", 10) != 10:
            continue  # linear, or powers of two (sizes): their own ticks
        lo, hi = sorted(lim)
        if lo > 0 and np.log10(hi / lo) < 2:
            axis.set_major_formatter(FuncFormatter(_plain_log_label))
            axis.set_minor_formatter(FuncFormatter(_plain_log_label))
            nice = _nice_numbers(lo, hi)
            if len(nice) < 2:  # too narrow for two labels: widen to the nice numbers around
                below = max(x for x in _nice_numbers(lo / 10, lo) if x <= lo)
                above = min(x for x in _nice_numbers(hi, hi * 10) if x >= hi)
                (ax.set_xlim if axis is ax.xaxis else ax.set_ylim)(below, above)
        else:
            axis.set_minor_formatter(NullFormatter())


def unit_text(attrs: Mapping[str, Any]) -> str:
    """The unit an axis shows for a variable with these attributes, as mathtext: its
    ``model_units`` (the model's own unit of a pure number: MCS, lattice units, J), else
    its CF ``units``; '' for a dimensionless quantity (``units`` "1" and no model unit),
    whose label carries no unit."""
    unit = str(attrs.get("model_units", attrs.get("units", "1")))
    if unit in ("1", ""):
        return ""
    return re.sub(r"\^\(?(-?\d+)\)?", r"$^{\1}$", unit)


def axis_label(symbol: str, attrs: Mapping[str, Any]) -> str:
    """``symbol [unit]`` with the unit of :func:`unit_text`, or the bare symbol for a
    dimensionless quantity: labels and files name the same unit."""
    unit = unit_text(attrs)
    return f"{symbol} [{unit}]" if unit else symbol


def time_label(datasets: Sequence[xr.Dataset], symbol: str = "t") -> str:
    """x label of a time axis from the datasets' time units (:func:`axis_label`); raises
    ``ValueError`` when they differ (such points belong on separate axes)."""
    units = {unit_text(d["t"].attrs) for d in datasets}
    if len(units) > 1:
        raise ValueError(f"times in different units on one axis: {', '.join(sorted(units))}")
    return axis_label(symbol, datasets[0]["t"].attrs)


_MARKERS = ("o", "s", "^", "D", "v", "P")
_LINESTYLES = ("-", "--", ":", "-.")

#: The colours of system sizes (:func:`size_color`): tab10 without its grey (kept for
#: references and literature values) and two darker ones, placed so that the powers of
#: two from L = 4 follow tab10's order (4 blue, 8 orange, 16 green, 32 red, 64 purple,
#: 128 brown, 256 pink, 512 olive, 1024 cyan, 2048 navy, 4096 maroon, then again).
SIZE_PALETTE: tuple[str, ...] = (
    "#000080",  # navy:   2048, 48
    "#ff7f0e",  # orange: 8, 16384
    "#9467bd",  # purple: 64, 10
    "#bcbd22",  # olive:  512, 12
    "#800000",  # maroon: 4096, 96
    "#2ca02c",  # green:  16, 32768
    "#8c564b",  # brown:  128, 20
    "#17becf",  # cyan:   1024, 24
    "#1f77b4",  # blue:   4, 8192
    "#d62728",  # red:    32, 65536
    "#e377c2",  # pink:   256, 6
)
#: Steps of the size ladder per octave: sizes at least 2^(1/4) ~ 1.19 apart differ in
#: colour unless their ratio is near 2^(11/4) ~ 6.7 (between 2^(5/2) and 8) or its square.
_SIZE_STEPS_PER_OCTAVE = 4
#: The colour of a point without a (numeric) system size.
_NO_SIZE_COLOR = "0.25"


def size_color(L: Any) -> str:
    """The colour of the system size ``L``, the same in every figure whatever other sizes
    it shows: a point's colour must not change when a campaign gains a point.

    Why a fixed function and not the order of the sizes drawn: a reader compares figures
    (and campaigns) by colour.  L's place on a ladder of quarter octaves,
    round(4 log2 L), picks an entry of :data:`SIZE_PALETTE` cyclically; 11 entries and 4
    steps per octave share no factor, so eleven successive powers of two, and the usual
    ladders in between (4, 6, 8, 10, 12, 16, 20, 24, 32), all differ.  A missing or
    non-positive L gets dark grey."""
    try:
        size = float(L)
    except (TypeError, ValueError):
        return _NO_SIZE_COLOR
    if not math.isfinite(size) or size <= 0:
        return _NO_SIZE_COLOR
    step = round(_SIZE_STEPS_PER_OCTAVE * math.log2(size))
    return SIZE_PALETTE[step % len(SIZE_PALETTE)]


#: The zorder of guides and references (power laws, exact results, literature values,
#: zero lines): above every data series that :func:`styles_by` styles (zorder below 9,
#: error-bar lines included), so a guide that the data follow is never hidden under them.
GUIDE_ZORDER = 10.0


def guide_style(color: Any = "k", linestyle: Any = "--", linewidth: float = 0.8) -> dict[str, Any]:
    """Keyword arguments of a guide or reference line (``plot``, ``axhline``, ``axvline``):
    drawn above the data (:data:`GUIDE_ZORDER`) with a thin white edge, so where it runs
    along a data line of any colour it still reads as a separate line (random
    deposition's W^2 = k2 t is exactly what phi = 0 data follow)."""
    halo = patheffects.withStroke(linewidth=linewidth + 0.8, foreground="white")
    return {
        "color": color,
        "linestyle": linestyle,
        "linewidth": linewidth,
        "zorder": GUIDE_ZORDER,
        "path_effects": [halo, patheffects.Normal()],
    }


#: Legend ``handler_map`` under which a tuple of handles shows them side by side: the entry
#: of marks drawn in several colours (one per size) shows each colour, never a grey
#: stand-in.
SIDE_BY_SIDE = {tuple: HandlerTuple(ndivide=None, pad=0.2)}


def _sort_key(value: Any) -> tuple[int, float, str]:
    try:
        return (0, -float(value), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


def _setting(ds: xr.Dataset, key: str) -> Any:
    """A point's setting ``key`` as a hashable value: numbers and text as they are, an
    array attribute (netCDF reads a list back as one) as its text."""
    value = ds.attrs.get(key)
    if isinstance(value, np.ndarray):
        return value.item() if value.ndim == 0 else str(value.tolist())
    if isinstance(value, (list, tuple)):
        return str(list(value))
    return value.item() if isinstance(value, np.generic) else value


def styles_by(
    datasets: Sequence[xr.Dataset], color_key: str, shape_key: str | Sequence[str]
) -> list[dict]:
    """Matplotlib styles that tell points apart by two settings: one colour per value of
    the attribute ``color_key``, and per value of ``shape_key`` (an attribute, or several:
    the tuple of their values; largest first) a marker, line style and fill: the first
    solid and filled, the others dashed and open and drawn on top, so curves that nearly
    coincide stay visible.

    A system size (``color_key`` "L") has its fixed colour (:func:`size_color`: the same
    L has the same colour in every figure, whatever other points a campaign has), and the
    smaller sizes of one shape are drawn on top of the larger; other settings are coloured
    in order of appearance."""
    keys = (shape_key,) if isinstance(shape_key, str) else tuple(shape_key)

    def shape_of_ds(d: xr.Dataset) -> tuple:
        return tuple(_setting(d, k) for k in keys)

    shapes = sorted(dict.fromkeys(shape_of_ds(d) for d in datasets),
                    key=lambda v: tuple(_sort_key(x) for x in v))  # fmt: skip
    shape_index = {v: i for i, v in enumerate(shapes)}
    values = list(dict.fromkeys(str(d.attrs.get(color_key)) for d in datasets))
    by_size = color_key == "L"
    # smaller sizes on top: the largest size lowest within each shape's zorder step
    sizes = sorted(values, key=_sort_key)
    out = []
    for d in datasets:
        i = shape_index[shape_of_ds(d)]
        value = str(d.attrs.get(color_key))
        if by_size:
            color = size_color(d.attrs.get(color_key))
            zorder = 2 + min(i, 5) + 0.8 * sizes.index(value) / len(sizes)
        else:
            color = f"C{values.index(value) % 10}"
            zorder = 2 + min(i, 5)
        out.append(
            {
                "color": color,
                "marker": _MARKERS[i % len(_MARKERS)],
                "linestyle": _LINESTYLES[i % len(_LINESTYLES)],
                "mfc": None if i == 0 else "white",
                "zorder": zorder,
            }
        )
    return out


def draw_mean_vs_time(
    ax: Any,
    datasets: Sequence[xr.Dataset],
    var: str,
    label: Callable[[xr.Dataset], str],
    logy: bool = False,
    styles: Sequence[Mapping[str, Any]] | None = None,
) -> None:
    """``var``_mean vs t (log t) with jackknife error bars on ``ax``, one line per point,
    labelled by ``label(ds)``; the x label from the times' unit."""
    for i, ds in enumerate(datasets):
        t = np.asarray(ds["t"].values, dtype=float)
        y = np.asarray(ds[f"{var}_mean"].values, dtype=float)
        e = np.asarray(ds[f"{var}_err"].values, dtype=float)
        ok = (t > 0) & np.isfinite(y) & ((y > 0) if logy else True)
        style = {"marker": "o", "ms": 2.5, **(styles[i] if styles else {})}
        ax.errorbar(t[ok], y[ok], yerr=np.nan_to_num(e[ok]), label=label(ds), **style)
    ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    log_tick_labels(ax)
    ax.set_xlabel(time_label(datasets))


def plot_mean_vs_time(
    datasets: Sequence[xr.Dataset],
    var: str,
    ylabel: str,
    label: Callable[[xr.Dataset], str],
    logy: bool = False,
    styles: Sequence[Mapping[str, Any]] | None = None,
    decorate: Callable[[Any], None] | None = None,
) -> Figure:
    """``var``_mean vs t (log t) with jackknife error bars, one line per point, labelled
    by ``label(ds)`` and styled by ``styles`` (default: the colour cycle): the common
    picture of an observable's sample mean over time.  ``decorate(ax)`` draws more (a
    guide: :func:`guide_style`); the legend lies below the axes, off the curves and
    guides."""
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, PANEL_HEIGHT + 0.12 * (len(datasets) + 2))
        ax = axes[0, 0]
        draw_mean_vs_time(ax, datasets, var, label, logy, styles)
        if decorate is not None:
            decorate(ax)
        ax.set_ylabel(ylabel)
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=6)
    return fig
