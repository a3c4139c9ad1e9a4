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
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from simcore.io.atomic import atomic_path
from simcore.models import registry

__all__ = [
    "COLUMN_WIDTH",
    "PANEL_HEIGHT",
    "STYLE",
    "Drawn",
    "attr",
    "fmt_number",
    "grid",
    "load_datasets",
    "log_tick_labels",
    "n_samples_of",
    "new_figure",
    "plot_mean_vs_time",
    "positive_only",
    "provenance",
    "require_variables",
    "save_campaign_figures",
    "save_figure",
    "source_of",
    "stack_height",
    "time_label",
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


def save_campaign_figures(
    model: str,
    analyses: Sequence[xr.Dataset],
    out_dir: str | os.PathLike[str],
    figures: Mapping[str, Callable[[Sequence[xr.Dataset]], Figure]],
    shown: Callable[[str], Sequence[xr.Dataset]] | None = None,
    points: Sequence[Mapping[str, Any]] | None = None,
    names: Collection[str] | None = None,
) -> list[Path]:
    """Draw and save, PNG and PDF each, the campaign figures that the spec of ``model``
    names for the points (``points``: their settings, default the analyses' attributes),
    in the spec's order, or only those of them in ``names``: the spec defines the names
    once, ``figures`` says how each is drawn from the analyses it shows (``shown(name)``,
    default all), whose provenance its files carry.  Returns the written paths;
    ``ValueError`` for a name the spec does not give these points."""
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
    written: list[Path] = []
    for name in named:
        if names is not None and name not in names:
            continue
        if name not in figures:
            raise ValueError(f"the {model} spec names a campaign figure {name!r} not drawn here")
        chosen = analyses if shown is None else shown(name)
        written += save_figure(figures[name](chosen), out_dir, name, provenance(chosen))
    return written


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


def log_tick_labels(ax: Any) -> None:
    """Readable tick labels on log axes in narrow column panels.

    Call after plotting.  Axes spanning two or more decades keep only the powers of ten
    (minor labels clutter); shorter ones, which would show one label or none, get plain
    numbers at 1, 2 and 5 times powers of ten.
    """
    for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        if axis.get_scale() != "log":
            continue
        lo, hi = sorted(lim)
        if lo > 0 and np.log10(hi / lo) < 2:
            axis.set_major_formatter(FuncFormatter(_plain_log_label))
            axis.set_minor_formatter(FuncFormatter(_plain_log_label))
        else:
            axis.set_minor_formatter(NullFormatter())


def time_label(datasets: Sequence[xr.Dataset]) -> str:
    """x label of a time axis from the datasets' time units."""
    units = {str(d["time"].attrs.get("units", "?")) for d in datasets}
    return f"t [{units.pop()}]" if len(units) == 1 else "t [model time units]"


def plot_mean_vs_time(
    datasets: Sequence[xr.Dataset],
    var: str,
    ylabel: str,
    label: Callable[[xr.Dataset], str],
    logy: bool = False,
) -> Figure:
    """``var``_mean vs t (log t) with jackknife error bars, one line per point, labelled
    by ``label(ds)``: the common picture of an observable's sample mean over time."""
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1)
        ax = axes[0, 0]
        for ds in datasets:
            t = np.asarray(ds["time"].values, dtype=float)
            y = np.asarray(ds[f"{var}_mean"].values, dtype=float)
            e = np.asarray(ds[f"{var}_err"].values, dtype=float)
            ok = (t > 0) & np.isfinite(y) & ((y > 0) if logy else True)
            ax.errorbar(t[ok], y[ok], yerr=e[ok], marker="o", ms=2.5, label=label(ds))
        ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        log_tick_labels(ax)
        ax.set_xlabel(time_label(datasets))
        ax.set_ylabel(ylabel)
        ax.legend(loc="best")
    return fig
