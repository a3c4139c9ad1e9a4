"""Paper figures from analysis datasets (output of :mod:`analysis.exponents`).

``python -m analysis.figures --out-dir DIR ANALYSIS.nc [ANALYSIS.nc ...]``

Writes ``W2``, ``beta_eff``, ``C_h``, ``C_s`` and ``lambda_eff``, each as PNG (300 dpi)
and PDF, sized for one paper column (3.4 x 2.6 inches for a single panel; taller when
there are several panels), 8 pt text (7 pt legends), constrained layout.

Design choices (why):

- One function per figure (``plot_W2``, ``plot_beta_eff``, ``plot_C``,
  ``plot_lambda_eff``) taking a list of analysis datasets and returning a
  ``matplotlib.figure.Figure``, so later models can reuse or compose them.
- Figures are built with ``matplotlib.figure.Figure`` and rendered by Agg (PNG) and the
  PDF backend directly: no pyplot state, safe in workers and tests.
- Every file carries provenance in its metadata (simcore version, git commit, points,
  samples), so a figure found in a draft can be traced to its data.
- Files are written atomically (temp file in the same directory + ``os.replace``).
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from simcore.io.atomic import atomic_path

__all__ = [
    "COLUMN_WIDTH",
    "FIGURE_NAMES",
    "REFERENCE_BETA",
    "load_analyses",
    "make_all",
    "main",
    "plot_C",
    "plot_W2",
    "plot_beta_eff",
    "plot_lambda_eff",
    "point_label",
    "provenance",
    "save_figure",
]

#: Width of one paper column in inches, and the default single-panel height.
COLUMN_WIDTH = 3.4
PANEL_HEIGHT = 2.6

#: Names (file stems) of the figures :func:`make_all` writes.
FIGURE_NAMES = ("W2", "beta_eff", "C_h", "C_s", "lambda_eff")

#: The campaign figures of the other models: model -> (module, function taking the loaded
#: analysis datasets and the output directory).
MODEL_FIGURE_DRAWERS: dict[str, tuple[str, str]] = {
    "ea3d": ("analysis.spin_glass", "make_all_ea3d"),
    "kmc2d": ("analysis.kmc2d", "make_all_kmc2d"),
    "fcc": ("analysis.fcc", "make_all_fcc"),
}

#: Reference KPZ growth exponents drawn in ``beta_eff`` when an input lacks the attribute.
REFERENCE_BETA: dict[int, tuple[float, str]] = {
    1: (1.0 / 3.0, r"$\beta = 1/3$ (1D KPZ)"),
    2: (0.2414, r"$\beta = 0.2414$ (2D KPZ)"),
}

_NEEDED = (
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


# ----------------------------------------------------------------------------- helpers


def load_analyses(paths: Iterable[str | os.PathLike[str]]) -> list[xr.Dataset]:
    """Open analysis datasets fully into memory (files are closed again)."""
    out = []
    for p in paths:
        with xr.open_dataset(p, decode_times=False) as f:
            ds = f.load()
        missing = [v for v in _NEEDED if v not in ds.variables]
        if missing:
            raise ValueError(
                f"{os.fspath(p)}: not an analysis dataset, missing {', '.join(missing)}"
            )
        ds.attrs.setdefault("source_file", os.fspath(p))
        out.append(ds)
    return out


def _attr(ds: xr.Dataset, key: str, default: Any = "?") -> Any:
    return ds.attrs.get(key, default)


def _dim_of(ds: xr.Dataset) -> int | None:
    try:
        return int(ds.attrs["dim"])
    except (KeyError, TypeError, ValueError):
        return None


def fmt_number(x: Any) -> str:
    try:
        return f"{float(x):g}"
    except (TypeError, ValueError):
        return str(x)


def n_samples_of(ds: xr.Dataset) -> Any:
    return _attr(ds, "n_samples", _attr(ds, "n_samples_analyzed"))


def point_label(ds: xr.Dataset, short: bool = False) -> str:
    """Legend text naming a parameter point: d, L, p, q, scheme, number of samples.

    ``short`` drops d (used inside per-dimension panels, whose title gives d).
    """
    parts = [] if short else [f"d={_attr(ds, 'dim')}"]
    parts += [
        f"L={_attr(ds, 'L')}",
        f"p={fmt_number(_attr(ds, 'p'))}",
        f"q={fmt_number(_attr(ds, 'q'))}",
        str(_attr(ds, "scheme")),
        f"n={n_samples_of(ds)}",
    ]
    return ", ".join(parts)


def provenance(datasets: Sequence[xr.Dataset]) -> dict[str, str]:
    """Provenance strings: simcore versions, git commits, points and their sample counts."""

    def uniq(key: str) -> str:
        vals = sorted({str(_attr(d, key)) for d in datasets})
        return ", ".join(vals)

    points = "; ".join(
        f"{_attr(d, 'campaign', '')}/{_attr(d, 'point', point_label(d))} (n={n_samples_of(d)})"
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


def _metadata(name: str, prov: Mapping[str, str], fmt: str) -> dict[str, str]:
    """Backend-specific metadata dict for ``savefig(metadata=...)``."""
    text = (
        f"simcore {prov['simcore_version']}; git {prov['git_commit']}; "
        f"config {prov.get('point_config_hash', '?')}; backend {prov.get('backend', '?')} on "
        f"{prov.get('device', '?')}; points: {prov['points']}; samples: {prov['samples']}"
    )
    software = (
        f"simcore {prov['simcore_version']} (analysis.figures), matplotlib {matplotlib.__version__}"
    )
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

    The constrained layout is solved on the first save and then frozen (it is in
    inches, independent of dpi and format), which halves the cost of the second format.
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


def new_figure(
    nrows: int, ncols: int, height: float | None = None, **kw: Any
) -> tuple[Figure, Any]:
    h = PANEL_HEIGHT if height is None else height
    fig = Figure(figsize=(COLUMN_WIDTH, h), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    return fig, axes


def stack_height(n: int) -> float:
    """Figure height for ``n`` panels stacked in one column."""
    return PANEL_HEIGHT if n <= 1 else 0.3 + 1.9 * n


def _by_dim(datasets: Sequence[xr.Dataset]) -> list[tuple[int | None, list[xr.Dataset]]]:
    groups: dict[int | None, list[xr.Dataset]] = {}
    for d in datasets:
        groups.setdefault(_dim_of(d), []).append(d)
    return sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))


def positive_only(x: np.ndarray) -> np.ndarray:
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
    label: Any,
    logy: bool = False,
) -> Figure:
    """``var``_mean vs t (log t) with jackknife error bars, one line per point, labelled
    by ``label(ds)`` (the kmc2d and fcc analyses share it)."""
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


def _dim_title(d: int | None) -> str:
    return f"d = {d}" if d is not None else "d = ?"


# ----------------------------------------------------------------------------- figures


def plot_W2(datasets: Sequence[xr.Dataset]) -> Figure:
    """W^2(t) log-log, one line per parameter point, one panel per substrate dimension."""
    groups = _by_dim(datasets)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(len(groups), 1, stack_height(len(groups)))
        for ax, (d, dss) in zip(axes[:, 0], groups, strict=True):
            for ds in dss:
                t = np.asarray(ds["time"].values, dtype=float)
                y = positive_only(ds["W2_mean"].values)
                ok = (t > 0) & np.isfinite(y)
                ax.plot(t[ok], y[ok], marker="o", label=point_label(ds, short=True))
            ax.set_xscale("log")
            ax.set_yscale("log")
            log_tick_labels(ax)
            ax.set_xlabel("t [MCS]")
            ax.set_ylabel(r"$W^2$ [lattice units$^2$]")
            if len(groups) > 1:
                ax.set_title(_dim_title(d))
            ax.legend(title=None if len(groups) > 1 else _dim_title(d), loc="upper left")
    return fig


def _reference(ds: xr.Dataset) -> tuple[float, str] | None:
    d = _dim_of(ds)
    if "reference_beta" in ds.attrs:
        val = float(ds.attrs["reference_beta"])
        label = REFERENCE_BETA[d][1] if d in REFERENCE_BETA else rf"$\beta = {val:g}$"
        return val, label
    return REFERENCE_BETA.get(d) if d is not None else None


def plot_beta_eff(datasets: Sequence[xr.Dataset]) -> Figure:
    """beta_eff(t) with jackknife error bars, log t, dashed reference beta per dimension."""
    groups = _by_dim(datasets)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(len(groups), 1, stack_height(len(groups)))
        for ax, (d, dss) in zip(axes[:, 0], groups, strict=True):
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
            log_tick_labels(ax)
            ax.set_xlabel("t [MCS]")
            ax.set_ylabel(r"$\beta_{eff}$ [1]")
            if len(groups) > 1:
                ax.set_title(_dim_title(d))
            ax.legend(title=None if len(groups) > 1 else _dim_title(d), loc="best")
    return fig


def _grid(n: int) -> tuple[int, int]:
    ncols = 1 if n <= 1 else 2
    return math.ceil(n / ncols), ncols


def _wrapped_label(ds: xr.Dataset) -> str:
    return (
        f"d={_attr(ds, 'dim')}, L={_attr(ds, 'L')}, p={fmt_number(_attr(ds, 'p'))}, "
        f"q={fmt_number(_attr(ds, 'q'))}\n{_attr(ds, 'scheme')}, n={n_samples_of(ds)}"
    )


def _s_colors(n: int) -> list[Any]:
    cmap = matplotlib.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.0, 0.85, max(n, 1))]


def plot_C(datasets: Sequence[xr.Dataset], kind: str = "h") -> Figure:
    """C_kind(t, s) vs t/s log-log, one line per waiting time s, one panel per point.

    Non-positive and missing values are skipped (they cannot be drawn on a log axis).
    """
    if kind not in ("h", "s"):
        raise ValueError(f"kind must be 'h' or 's', got {kind!r}")
    var = f"C_{kind}_mean"
    ylabel = r"$C_h(t,s)$ [lattice units$^2$]" if kind == "h" else r"$C_s(t,s)$ [1]"
    nrows, ncols = _grid(len(datasets))
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
            if ax.has_data():  # C decays from its value at t = s: the upper right is free
                ax.legend(title="s [MCS]", loc="upper right", fontsize=7, title_fontsize=7)
    return fig


#: Largest jackknife error of a drawn lambda/z point (see :func:`plot_lambda_eff`).
LAMBDA_MAX_ERR = 0.5


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


# ----------------------------------------------------------------------------- driver


def make_all(
    paths: Sequence[str | os.PathLike[str]], out_dir: str | os.PathLike[str]
) -> list[Path]:
    """Read analysis datasets and write every figure as PNG and PDF into ``out_dir``.

    Returns the written paths (``FIGURE_NAMES`` x (png, pdf)).
    """
    if not paths:
        raise ValueError("no analysis datasets given")
    models = set()
    for p in paths:
        with xr.open_dataset(p, decode_times=False) as f:
            models.add(f.attrs.get("model", "kpz"))
    if len(models) == 1 and (model := next(iter(models))) in MODEL_FIGURE_DRAWERS:
        module, func = MODEL_FIGURE_DRAWERS[model]
        loaded = []
        for p in paths:
            with xr.open_dataset(p, decode_times=False) as f:
                loaded.append(f.load())
        return getattr(importlib.import_module(module), func)(loaded, out_dir)
    if len(models) > 1:
        raise ValueError(f"analyses of several models ({', '.join(sorted(models))}) in one call")
    datasets = load_analyses(paths)
    prov = provenance(datasets)
    builders = {
        "W2": lambda: plot_W2(datasets),
        "beta_eff": lambda: plot_beta_eff(datasets),
        "C_h": lambda: plot_C(datasets, "h"),
        "C_s": lambda: plot_C(datasets, "s"),
        "lambda_eff": lambda: plot_lambda_eff(datasets),
    }
    written: list[Path] = []
    for name in FIGURE_NAMES:
        written += save_figure(builders[name](), out_dir, name, prov)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    matplotlib.use("Agg")
    parser = argparse.ArgumentParser(
        prog="python -m analysis.figures",
        description=(
            "Write paper-column figures (W2, beta_eff, C_h, C_s, lambda_eff; PNG 300 dpi and "
            "PDF) from one or more analysis datasets of analysis.exponents."
        ),
    )
    parser.add_argument("--out-dir", required=True, metavar="DIR", help="output directory")
    parser.add_argument("analyses", nargs="+", metavar="ANALYSIS.nc", help="analysis datasets")
    args = parser.parse_args(argv)
    try:
        make_all(args.analyses, args.out_dir)
    except (OSError, ValueError, KeyError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        print(f"{parser.prog}: error: {msg}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
