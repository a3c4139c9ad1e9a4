"""fcc binary alloy (kelling2012): analysis and campaign figures.

Analysis (:func:`analyze`) of one aggregated dataset: sample means with grouped
jackknife errors over samples (:mod:`analysis.stats`) of ``open_bonds`` (A-B bonds per B
particle), ``energy`` (per site, in units of the bond energy), ``domain_size`` L(t) and
the structure factor S(k, t), and the effective coarsening exponent

    x_eff = d ln L / d ln t

between successive positive sampling times, on their midpoints ``t_eff``: the local slope
of :func:`analysis.estimates.local_slope_of` (the same as kpz's beta_eff), applied to the
mean domain size, the jackknife running through the whole chain mean -> log -> slope.
Late-time coarsening by bulk diffusion (Lifshitz-Slyozov) has L ~ t^(1/3): the analyses
carry ``reference_x`` = 1/3 and the figures draw it.  Samples are independent (each has
its own Philox streams and job seed), so contiguous jackknife groups are as good as random
ones.

Each quantity X is stored as ``X_mean`` and ``X_err`` over ``time`` (S(k, t): over
``time`` and ``k``), ``x_eff`` and ``x_eff_err`` over ``t_eff``; ``slice`` (row, col) is
the z = 0 plane at t_max of the first sample, for the picture.

Campaign figures (:func:`draw_figures`; names, order and captions are the fcc spec's
``campaign_figures``): ``domain_size`` (L(t), log-log, with a t^(1/3) guide), ``x_eff``,
``open_bonds`` (log t), ``structure_factor`` (S / L^3 vs k L at a few times, one panel
per point: the dynamic scaling collapse) and ``slice`` (the z = 0 plane at t_max, one
panel per point).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from analysis.estimates import (
    POSITIVE_MIDPOINT_NOTE,
    analysis_attrs,
    local_slope_of,
    put_local_slope,
    put_means,
)
from analysis.plotting import (
    COLUMN_WIDTH,
    PANEL_HEIGHT,
    STYLE,
    Drawn,
    axis_label,
    draw_campaign_figures,
    fmt_number,
    grid,
    guide_style,
    log_tick_labels,
    n_samples_of,
    new_figure,
    plot_mean_vs_time,
    require_variables,
    styles_by,
    time_label,
    unit_text,
)
from analysis.stats import default_groups, jackknife

__all__ = [
    "OBSERVABLES",
    "REFERENCE_X",
    "analyze",
    "draw_figures",
    "panel_title",
    "plot_domain_size",
    "plot_observable",
    "plot_slices",
    "plot_structure_factor",
    "plot_x_eff",
    "point_label",
]

#: The per-sample observables of the run file whose means are reported (besides S(k, t)).
OBSERVABLES = ("open_bonds", "energy", "domain_size")
#: The coarsening exponent of bulk diffusion (Lifshitz-Slyozov): L ~ t^(1/3).
REFERENCE_X = 1.0 / 3.0
#: The model whose spec names the campaign figures drawn here.
MODEL = "fcc"
#: Times drawn in the scaled structure factor figure (at most; log-spaced picks).
N_SK_TIMES = 4

ANALYSIS_METHOD = (
    "sample means; grouped jackknife errors over samples (analysis.fcc); x_eff: "
    "d ln L / d ln t of the mean domain size L between successive positive sampling times "
    "(analysis.estimates.local_slope_of), " + POSITIVE_MIDPOINT_NOTE
)


def _check(ds: xr.Dataset) -> None:
    missing = [v for v in (*OBSERVABLES, "structure_factor") if v not in ds.variables]
    if missing:
        raise ValueError(f"not an fcc dataset: missing {', '.join(missing)}")
    if ds.sizes.get("sample", 0) < 1:
        raise ValueError("fcc dataset has no samples")


def _derived(m: xr.Dataset) -> xr.Dataset:
    """The reported quantities as functions of the sample means (the jackknife's ``func``):
    the means and x_eff.  Addresses dimensions by name only, so the jackknife's replica
    dimension passes through."""
    out = dict(m.data_vars)
    out["x_eff"] = local_slope_of(m["domain_size"], np.asarray(m["t"].values, dtype=float))
    return xr.Dataset(out)


def analyze(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """Means and jackknife errors of the fcc observables of one (aggregated) dataset.

    Returns ``<name>_mean`` and ``<name>_err`` over ``time`` for :data:`OBSERVABLES`,
    ``structure_factor_mean``/``_err`` over (``time``, ``k``), ``x_eff``/``x_eff_err`` over
    ``t_eff`` (coordinates ``t_lower``, ``t_upper``: the pair of times), ``slice`` of the
    first sample, and the dataset's attributes plus ``analysis_method``,
    ``jackknife_groups``, ``n_samples_analyzed`` and ``reference_x``.  Raises
    ``ValueError`` naming what is missing for a dataset that is not fcc's.
    """
    _check(ds)
    ds = ds.sortby("sample").sortby("t")
    per_sample = xr.Dataset(
        {name: ds[name].astype(np.float64) for name in (*OBSERVABLES, "structure_factor")}
    )
    n = int(ds.sizes["sample"])
    groups = default_groups(n) if n_groups is None else int(n_groups)
    est, err = jackknife(per_sample, _derived, dim="sample", n_groups=groups, vectorized=True)

    out = xr.Dataset(coords={"t": ds["t"].values, "k": ds["k"].values})
    out["t"].attrs = dict(ds["t"].attrs)
    out["k"].attrs = dict(ds["k"].attrs)

    def meta(name: str) -> tuple[str, dict]:
        a = ds[name].attrs
        return str(a.get("long_name", name)), dict(a)

    put_means(out, est, err, per_sample.data_vars, meta)
    out = put_local_slope(
        out, est, err, "x_eff",
        "effective coarsening exponent x_eff = d ln L / d ln t of the mean domain size",
        np.asarray(ds["t"].values, dtype=float), ds["t"].attrs,
    )  # fmt: skip
    if "slice" in ds.variables:
        out["slice"] = ds["slice"].isel(sample=0).drop_vars("sample").variable
        out["slice"].attrs = {
            **ds["slice"].attrs,
            "comment": f"sample {int(ds['sample'].values[0])}",
        }
        out = out.assign_coords(row=ds["row"].values, col=ds["col"].values)
        out["row"].attrs, out["col"].attrs = dict(ds["row"].attrs), dict(ds["col"].attrs)
    out.attrs = analysis_attrs(
        ds,
        "fcc alloy observables",
        ANALYSIS_METHOD,
        groups,
        reference_x=REFERENCE_X,
        reference_x_source="Lifshitz-Slyozov coarsening by bulk diffusion, L ~ t^(1/3)",
    )
    return out


# ----------------------------------------------------------------------------- figures


def _scheme_text(ds: xr.Dataset) -> str:
    """The scheme with its geometry: sequential, dt32, slabs4."""
    a = ds.attrs
    scheme = str(a.get("scheme", "?"))
    if scheme == "dt":
        scheme += str(a.get("block_side", ""))
    elif scheme == "slabs":
        scheme += str(a.get("n_slabs", ""))
    return scheme


def _parameters(ds: xr.Dataset) -> str:
    a = ds.attrs
    return (
        rf"L={a.get('L', '?')}, c={fmt_number(a.get('c', '?'))}, "
        rf"$\epsilon$={fmt_number(a.get('epsilon', '?'))}"
    )


def point_label(ds: xr.Dataset) -> str:
    """Legend text of an fcc point: L, c, epsilon, active species, scheme, samples."""
    return f"{_parameters(ds)}, {ds.attrs.get('active', '?')}, {_scheme_text(ds)}, " + (
        f"n={n_samples_of(ds)}"
    )


def panel_title(ds: xr.Dataset) -> str:
    """:func:`point_label` on two lines, for the title of a half-column panel."""
    return (
        f"{_parameters(ds)}\n{ds.attrs.get('active', '?')}, {_scheme_text(ds)}, "
        f"n={n_samples_of(ds)}"
    )


#: The settings that tell two fcc points of one size apart (marker and line style; the
#: size is the colour).
_SHAPE_KEYS = ("c", "epsilon", "active", "scheme", "block_side", "n_slabs")


def _styles(datasets: Sequence[xr.Dataset]) -> list[dict[str, Any]]:
    """Colour by the box side L (fixed per size: :func:`analysis.plotting.size_color`),
    marker, line style and fill by the other settings."""
    return [{**s, "ms": 2.5} for s in styles_by(datasets, "L", _SHAPE_KEYS)]


def plot_observable(
    datasets: Sequence[xr.Dataset],
    var: str,
    ylabel: str,
    logy: bool = False,
    decorate: Callable[[Any], None] | None = None,
) -> Figure:
    """``var``_mean vs t (log t) with jackknife error bars, one line per point (the colour
    of its L, the marker and line style of its other settings); ``decorate(ax)`` draws
    a guide."""
    return plot_mean_vs_time(datasets, var, ylabel, point_label, logy, _styles(datasets),
                             decorate)  # fmt: skip


def plot_domain_size(datasets: Sequence[xr.Dataset]) -> Figure:
    """L(t) log-log with error bars, and a dashed t^(1/3) guide through the first point's
    mean at its last time, above the data."""
    label = axis_label("L(t)", datasets[0]["domain_size_mean"].attrs)
    ref = datasets[0]
    t = np.asarray(ref["t"].values, dtype=float)
    y = np.asarray(ref["domain_size_mean"].values, dtype=float)
    ok = (t > 0) & np.isfinite(y) & (y > 0)

    def guide(ax: Any) -> None:
        if ok.any():
            tt = t[ok]
            t_last, y_last = tt[-1], y[ok][-1]
            ax.plot(tt, y_last * (tt / t_last) ** REFERENCE_X, **guide_style(),
                    label=r"$\propto t^{1/3}$")  # fmt: skip

    return plot_observable(datasets, "domain_size", label, logy=True, decorate=guide)


def plot_x_eff(datasets: Sequence[xr.Dataset]) -> Figure:
    """x_eff(t) with jackknife error bars (the colour of each point's L) and the
    Lifshitz-Slyozov 1/3 dashed above the data; the legend below the axes."""
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, PANEL_HEIGHT + 0.12 * (len(datasets) + 2))
        ax = axes[0, 0]
        for ds, style in zip(datasets, _styles(datasets), strict=True):
            t = np.asarray(ds["t_eff"].values, dtype=float)
            y = np.asarray(ds["x_eff"].values, dtype=float)
            e = np.asarray(ds["x_eff_err"].values, dtype=float)
            ok = np.isfinite(y)
            ax.errorbar(t[ok], y[ok], yerr=np.nan_to_num(e[ok]), label=point_label(ds), **style)
        ax.axhline(REFERENCE_X, **guide_style(), label=r"Lifshitz-Slyozov $x = 1/3$")
        ax.set_xscale("log")
        log_tick_labels(ax)
        ax.set_xlabel(time_label(datasets))
        ax.set_ylabel(r"$x_{eff}$ = d ln L / d ln t")
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=6)
    return fig


def _panels(n: int, square: bool = False) -> tuple[Figure, list]:
    nrows, ncols = grid(n)
    width = COLUMN_WIDTH / ncols
    height = (0.9 if square else 0.5) + nrows * (width * 0.95 if square else max(1.9, 0.75 * width))
    fig, axes = new_figure(nrows, ncols, height=height)
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _sk_times(times: np.ndarray) -> np.ndarray:
    """Indices of up to :data:`N_SK_TIMES` positive times, log-spaced from the last
    decade or so of the run to t_max (the scaling regime, if any, is late)."""
    pos = np.flatnonzero(times > 0)
    if pos.size <= N_SK_TIMES:
        return pos
    t = times[pos]
    lo = max(t[0], t[-1] / 100.0)
    wanted = np.geomspace(lo, t[-1], N_SK_TIMES)
    picks = [int(pos[np.argmin(np.abs(np.log(t) - np.log(w)))]) for w in wanted]
    return np.array(sorted(set(picks)))


def plot_structure_factor(datasets: Sequence[xr.Dataset]) -> Figure:
    """Dynamic scaling of S(k, t): S / L(t)^3 vs k L(t) at a few late times, one panel per
    point (log-log), with the jackknife errors of S (scaled alike); curves that fall onto
    one another show L(t) is the only length."""
    with matplotlib.rc_context(STYLE):
        fig, axes = _panels(len(datasets))
        for ax, ds in zip(axes, datasets, strict=True):
            times = np.asarray(ds["t"].values, dtype=float)
            k = np.asarray(ds["k"].values, dtype=float)
            for i in _sk_times(times):
                Lt = float(ds["domain_size_mean"].values[i])
                S = np.asarray(ds["structure_factor_mean"].values[i], dtype=float)
                e = np.asarray(ds["structure_factor_err"].values[i], dtype=float)
                ok = np.isfinite(S) & (S > 0)
                ax.errorbar(k[ok] * Lt, S[ok] / Lt**3, yerr=np.nan_to_num(e[ok]) / Lt**3,
                            marker="o", ms=1.5, label=f"{times[i]:g}")  # fmt: skip
            ax.set_xscale("log")
            ax.set_yscale("log")
            log_tick_labels(ax)
            ax.set_xlabel("k L(t)")
            ax.set_ylabel(r"S(k, t) / L(t)$^3$")
            ax.set_title(panel_title(ds), fontsize=6)
            ax.legend(loc="lower left", fontsize=6, title=time_label([ds]), title_fontsize=6)
    return fig


#: Colours of the slice: A, B, and the points of the simple cubic picture that are no fcc
#: site (x + y + z odd).
_SLICE_COLORS = ("white", "black", "0.8")


def plot_slices(datasets: Sequence[xr.Dataset]) -> Figure:
    """The plane z = 0 at t_max (first sample) of each point: B black, A white, and the
    points of the simple cubic picture that are no fcc site (x + y odd in this plane)
    grey, so the lattice is not mistaken for A."""
    cmap = ListedColormap(_SLICE_COLORS)
    with matplotlib.rc_context(STYLE):
        fig, axes = _panels(len(datasets), square=True)
        for ax, ds in zip(axes, datasets, strict=True):
            if "slice" not in ds.variables:
                ax.set_axis_off()
                continue
            img = np.asarray(ds["slice"].values).astype(int)
            n = img.shape[0]
            y, x = np.indices(img.shape)
            kind = np.where((x + y) % 2 == 1, 2, img)  # row = y, column = x, z = 0
            ax.imshow(kind, cmap=cmap, vmin=-0.5, vmax=2.5, origin="lower",
                      interpolation="nearest", extent=(-0.5, n - 0.5, -0.5, n - 0.5))  # fmt: skip
            ax.set_xlabel("x [lattice spacing]")
            ax.set_ylabel("y [lattice spacing]")
            t_max = float(ds["t"].values[-1])
            where = f"{ds.attrs.get('active', '?')}, {_scheme_text(ds)}, t = {t_max:g}"
            ax.set_title(f"{_parameters(ds)}\n{where} {unit_text(ds['t'].attrs)}", fontsize=6)
        names = ("A", "B", "no fcc site")
        patches = [Patch(facecolor=c, edgecolor="k", linewidth=0.4, label=lab)
                   for c, lab in zip(_SLICE_COLORS, names, strict=True)]  # fmt: skip
        fig.legend(handles=patches, loc="outside lower center", ncols=3, fontsize=6,
                   title="the plane z = 0 at t_max (first sample)", title_fontsize=6)  # fmt: skip
    return fig


#: How each campaign figure is drawn from the analyses.
_FIGURES: dict[str, Callable[[Sequence[xr.Dataset]], Figure]] = {
    "domain_size": plot_domain_size,
    "x_eff": plot_x_eff,
    "open_bonds": lambda datasets: plot_observable(
        datasets, "open_bonds", axis_label("open bonds per B", datasets[0]["open_bonds_mean"].attrs)
    ),
    "structure_factor": plot_structure_factor,
    "slice": plot_slices,
}


def draw_figures(
    analyses: Sequence[xr.Dataset], names: Collection[str] | None = None
) -> dict[str, Drawn]:
    """The campaign figures of fcc analyses with their provenance: those the fcc spec's
    ``campaign_figures`` names, in its order (only ``names``, if given).  Raises
    ``ValueError`` naming the file for an input that is not an fcc analysis."""
    needed = ("domain_size_mean", "x_eff", "structure_factor_mean")
    require_variables(analyses, needed, "an fcc analysis dataset")
    return draw_campaign_figures(MODEL, analyses, _FIGURES, names=names)
