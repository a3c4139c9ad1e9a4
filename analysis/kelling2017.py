"""kelling2017 (Kelling, Odor, Gemming, Comput. Phys. Commun. 220, 205 (2017)): its
comparison figures of domain-decomposition schemes, from kpz analyses and DD benchmarks.

Draw functions (the kpz spec's paper figures; ``python -m analysis.papers FIGURE``), each
``draw(inputs, **options) -> (Figure, provenance)``:

- :func:`fig3b` (Fig. 3b): slope autocorrelation ``C_s(t, s)`` vs ``t/s`` for one waiting
  time (option ``s``), one curve per point, the sequential reference in black.  Why: a
  device-layer scheme that imprints a pattern (cDB) makes ``C_s`` converge to a finite
  plateau, a correlation-free one (DTr) follows the sequential curve.
- :func:`fig4` (Figs. 4, 5): height autocorrelation ``C_h(t, s)`` vs ``t/s`` of two-layer
  schemes labelled by scheme and thread-cell configuration (TC), and below it the
  effective exponent ``lambda_h/z`` (Figs. 4a, 5a; option ``exponent=h``), or the slope
  autocorrelation ``C_s`` and ``lambda_s/z`` (Fig. 4b; ``exponent=s``).  Why: block-layer
  domains that are too small raise ``C_h`` at late times; self-consistency across TC is
  the test.
- :func:`fig5b` (Fig. 5b): the local slopes ``lambda_h/z`` of ``C_h(t, s)`` vs ``t/s`` for
  every waiting time of every point (one colour per point, one marker and line style per
  s), with jackknife error bars.  Why: block-layer DB (DTrDB) should give the same
  slopes for every TC and collapse the waiting times.
- :func:`fig6` (Fig. 6): ``beta_eff(t)`` with jackknife error bars, each point's fit of
  the asymptotic beta with its correction to scaling
  (:data:`analysis.kpz_fits.BETA_FIT_RULE`, the main window) drawn over its window and
  quoted in its legend entry, the asymptotic beta of kelling2017's ref. [19] as a band and
  the value 0.2414(2) of its ref. [13] dashed (:data:`analysis.kpz_literature.BETA`'s
  ``2d_kelling2011`` and ``2d``).  Why: schemes may differ in corrections to scaling but
  must approach the same universal exponent.
- :func:`performance` (Fig. 7; kelling2012 Figs. 4, 5): update attempts per ns (median,
  min-max bars) vs L and run time per MCS vs L, one line per (scheme, TC, p, q, device),
  from the table of ``simcore bench dd --csv`` (:mod:`analysis.kelling2017_bench`).

The first four take the analysis files of :mod:`analysis.kpz`, one per point, labelled
and styled by :mod:`analysis.kelling2017_labels`; the correlation figures of Fig. 3
beyond (b) (:func:`analysis.kelling2017_corr.fig3a`, the noise levels of Fig. 3b
:func:`analysis.kelling2017_corr.fig3b_noise`) live in :mod:`analysis.kelling2017_corr`,
built on the pieces of the figures here that it shares (:func:`choose_s`,
:func:`plot_c`, :func:`legend_below`, :func:`legend_height`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Literal

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from analysis.kelling2017_bench import bench_provenance, load_bench_table, plot_performance
from analysis.kelling2017_labels import (
    curve_labels,
    curve_styles,
    reference_first,
    tc_of,
)
from analysis.kpz_figures import Curve, draw_decaying, load_analyses, noise_legend_entry
from analysis.kpz_fits import BETA_FIT_T_LOWER
from analysis.kpz_literature import BETA
from analysis.kpz_plateau import PLATEAU_T_LOWER
from analysis.plotting import (
    PANEL_HEIGHT,
    STYLE,
    Drawn,
    axis_label,
    guide_style,
    log_tick_labels,
    new_figure,
    provenance,
    source_of,
    stack_height,
    time_label,
    unit_text,
    value_error_text,
)

__all__ = [
    "choose_s",
    "common_waiting_times",
    "fig3b",
    "fig4",
    "fig5b",
    "fig6",
    "legend_below",
    "legend_height",
    "load_paper_analyses",
    "performance",
    "plot_c",
    "plot_fig3b",
    "plot_fig4",
    "plot_fig5b",
    "plot_fig6",
]

#: The asymptotic growth exponent drawn in Fig. 6 as a band (kelling2017's ref. [19]), and
#: the more precise value of its ref. [13] drawn dashed.
FIG6_BETA = BETA["2d_kelling2011"]
FIG6_BETA_PRECISE = BETA["2d"]
#: The horizontal axes of Fig. 6 (option ``x``), and the first t of each panel against 1/t.
FIG6_X = ("t", "inverse_t")
FIG6_INVERSE_T_MINS = (100.0, 1000.0)
#: The 1/t axes show 1000/t (plain tick labels).
FIG6_INVERSE_SCALE = 1000.0

#: The colour of the asymptotic value of Fig. 6 (orange, as in kelling2017 Fig. 6: the
#: curves' palette leaves it out).
_REF_COLOR = matplotlib.colormaps["tab10"].colors[1]


# ----------------------------------------------------------------------------- waiting times


def common_waiting_times(datasets: Sequence[xr.Dataset]) -> np.ndarray:
    """Waiting times ``s`` present in every dataset, ascending."""
    sets = [{float(v) for v in np.asarray(d["s"].values)} for d in datasets]
    return np.array(sorted(set.intersection(*sets)) if sets else [], dtype=float)


def choose_s(datasets: Sequence[xr.Dataset], s: float | None) -> float:
    """The requested waiting time, or the largest one common to all datasets."""
    if s is None:
        common = common_waiting_times(datasets)
        if common.size == 0:
            have = "; ".join(
                f"{source_of(d)} has {', '.join(f'{v:g}' for v in np.asarray(d['s'].values))}"
                for d in datasets
            )
            raise ValueError(f"no waiting time s common to all inputs ({have})")
        return float(common[-1])
    try:
        wanted = float(s)
    except (TypeError, ValueError):
        raise ValueError(f"option s must be a waiting time in MCS, got {s!r}") from None
    for d in datasets:
        s_vals = np.asarray(d["s"].values, dtype=float)
        if not np.any(s_vals == wanted):
            raise ValueError(
                f"{source_of(d)}: no waiting time s={wanted:g} "
                f"(has {', '.join(f'{v:g}' for v in s_vals)})"
            )
    return wanted


def _c_curve(ds: xr.Dataset, kind: str, s: float, label: str, style: dict[str, Any]) -> Curve:
    """C_kind(t, s) with its errors vs t/s at waiting time ``s`` for t >= s."""
    k = int(np.flatnonzero(np.asarray(ds["s"].values, dtype=float) == s)[0])
    t = np.asarray(ds["t"].values, dtype=float)
    y = np.asarray(ds[f"C_{kind}_mean"].isel(s=k).values, dtype=float)
    e = np.asarray(ds[f"C_{kind}_err"].isel(s=k).values, dtype=float)
    ok = (t >= s) & np.isfinite(y)
    return Curve(t[ok] / s, y[ok], e[ok], label, style)


def plot_c(ax: Any, datasets: Sequence[xr.Dataset], kind: str, s: float) -> None:
    """C_kind at waiting time ``s`` of every point, with errors (:func:`draw_decaying`)."""
    labels, styles = curve_labels(datasets), curve_styles(datasets)
    curves = [_c_curve(ds, kind, s, label, style)
              for ds, label, style in zip(datasets, labels, styles, strict=True)]  # fmt: skip
    draw_decaying(ax, curves)
    ax.set_xlabel("t/s")


def legend_below(fig: Figure, ax: Any, title: str) -> None:
    """The legend of ``ax`` below the figure's axes, titled (the curves fill the axes)."""
    handles, labels = ax.get_legend_handles_labels()
    marker, text = noise_legend_entry()
    fig.legend([*handles, marker], [*labels, text], loc="outside lower center", fontsize=6,
               title=title, title_fontsize=7)  # fmt: skip


def legend_height(n: int) -> float:
    """Inches a legend of ``n`` entries below the axes takes."""
    return 0.25 + 0.12 * n


# ----------------------------------------------------------------------------- figures


def plot_fig3b(datasets: Sequence[xr.Dataset], s: float | None = None) -> Figure:
    """kelling2017 Fig. 3(b): slope autocorrelation C_s(t, s) vs t/s with jackknife errors.

    One curve per point at a single waiting time ``s`` (default: the largest s common to
    all datasets); sequential points are drawn in black as the reference.  A scheme that
    imprints a pattern levels off at a finite C_s, a correlation-free one follows the
    black curve into the noise, which the symlog axis shows around zero.
    """
    dss = reference_first(datasets)
    s_val = choose_s(dss, s)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, PANEL_HEIGHT + legend_height(len(dss) + 2))
        ax = axes[0, 0]
        plot_c(ax, dss, "s", s_val)
        ax.set_ylabel(axis_label(r"$C_s(t,s)$", dss[0]["C_s_mean"].attrs))
        legend_below(fig, ax, f"s = {s_val:g} {unit_text(dss[0]['s'].attrs)}")
    return fig


def plot_fig4(
    datasets: Sequence[xr.Dataset], s: float | None = None, exponent: Literal["h", "s"] = "h"
) -> Figure:
    """kelling2017 Figs. 4/5: C(t, s) vs t/s of two-layer schemes, labelled scheme + TC.

    Panel (a): the autocorrelation whose slopes panel (b) shows, at one waiting time ``s``
    (default: the largest common one) with jackknife errors: C_h for ``exponent="h"``
    (Figs. 4a, 5a), C_s for ``"s"`` (the inset of Fig. 4b).  Panel (b), drawn when the
    datasets hold it: the effective exponent ``lambda_h/z`` (``exponent="h"``, Fig. 5b) or
    ``lambda_s/z`` (``"s"``, Fig. 4b) at the same s with jackknife errors, over the windows
    the analysis chose from the errors (:data:`analysis.kpz_fits.LAMBDA_WINDOW_RULE`), at their
    geometric midpoints.  Other schemes passed in are drawn too (sequential in black), so a
    DTrDT curve can be compared with DTrDB as in Fig. 5(a).
    """
    if exponent not in ("h", "s"):
        raise ValueError(f"exponent must be 'h' or 's', got {exponent!r}")
    dss = reference_first(datasets)
    s_val = choose_s(dss, s)
    name = f"lambda_{exponent}_over_z_eff"
    with_exponent = all(name in d.variables and f"{name}_err" in d.variables for d in dss)
    nrows = 2 if with_exponent else 1
    with matplotlib.rc_context(STYLE):
        height = stack_height(nrows) + legend_height(len(dss) + 2)
        fig, axes = new_figure(nrows, 1, height)
        ax = axes[0, 0]
        plot_c(ax, dss, exponent, s_val)
        ax.set_ylabel(axis_label(rf"$C_{exponent}(t,s)$", dss[0][f"C_{exponent}_mean"].attrs))
        if with_exponent:
            ax.set_title("(a)", loc="left")
            bx = axes[1, 0]
            for ds, style in zip(dss, curve_styles(dss), strict=True):
                at_s = np.asarray(ds[f"lambda_{exponent}_s"].values, dtype=float) == s_val
                x = np.asarray(ds[f"lambda_{exponent}_t_over_s"].values, dtype=float)[at_s]
                y = np.asarray(ds[name].values, dtype=float)[at_s]
                e = np.asarray(ds[f"{name}_err"].values, dtype=float)[at_s]
                bx.errorbar(x, y, yerr=e, **style)
            bx.set_xscale("log")
            log_tick_labels(bx)
            bx.set_xlabel("t/s (window midpoint)")
            bx.set_ylabel(rf"$(\lambda_{exponent}/z)_{{eff}}$")
            bx.set_title("(b)", loc="left")
        legend_below(fig, ax, f"s = {s_val:g} {unit_text(dss[0]['s'].attrs)}")
    return fig


#: Marker and line style of each waiting time in Fig. 5(b), in ascending order of s.
_S_STYLES = (("o", "-"), ("s", "--"), ("^", ":"), ("v", "-."), ("D", (0, (5, 1, 1, 1))))


def plot_fig5b(datasets: Sequence[xr.Dataset]) -> Figure:
    """kelling2017 Fig. 5(b): local slopes lambda_h/z of C_h(t, s) vs t/s, every waiting time.

    For each point (one colour, labelled scheme + TC as the other figures) and each of its
    waiting times s (one marker and line style, the same for every point): the analysis's
    ``lambda_h_over_z_eff`` with its jackknife errors over the windows it chose from the
    errors (:data:`analysis.kpz_fits.LAMBDA_WINDOW_RULE`), at their geometric midpoints.  Slopes
    of different s and TC that agree within their errors are the paper's test that the
    block-layer DB leaves the autocorrelation of heights unchanged.
    """
    dss = reference_first(datasets)
    s_all = sorted({float(v) for d in dss for v in np.asarray(d["lambda_h_s"].values)})
    entries = sum(len(np.unique(d["lambda_h_s"].values)) for d in dss)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1, PANEL_HEIGHT + legend_height(max(entries, 1)))
        ax = axes[0, 0]
        for ds, label, style in zip(dss, curve_labels(dss), curve_styles(dss), strict=True):
            w_s = np.asarray(ds["lambda_h_s"].values, dtype=float)
            x_all = np.asarray(ds["lambda_h_t_over_s"].values, dtype=float)
            y_all = np.asarray(ds["lambda_h_over_z_eff"].values, dtype=float)
            e_all = np.asarray(ds["lambda_h_over_z_eff_err"].values, dtype=float)
            for s in np.unique(w_s):
                at = w_s == s
                marker, line = _S_STYLES[s_all.index(float(s)) % len(_S_STYLES)]
                ax.errorbar(x_all[at], y_all[at], yerr=np.nan_to_num(e_all[at]),
                            **{**style, "marker": marker}, linestyle=line,
                            label=f"{label}; s = {s:g}")  # fmt: skip
        ax.set_xscale("log")
        log_tick_labels(ax)
        ax.set_xlabel("t/s (window midpoint)")
        ax.set_ylabel(r"$(\lambda_h/z)_{eff}$")
        if not ax.has_data():  # no waiting times, or C_h lost in its noise at once
            ax.text(0.5, 0.5, "no lambda_h/z windows", ha="center", va="center",
                    transform=ax.transAxes)  # fmt: skip
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="outside lower center", fontsize=6,
                       title=f"s in {unit_text(dss[0]['s'].attrs)}", title_fontsize=7)  # fmt: skip
    return fig


def _main_fit(ds: xr.Dataset) -> tuple[float, float, float, float, float, float] | None:
    """The beta fit of the main window (:data:`analysis.kpz_fits.BETA_FIT_T_LOWER`) of a point:
    (beta, error, a, omega, t_lower, t_upper); None where the file has none."""
    if "beta_asymptotic" not in ds.variables or "beta_fit_t_lower" not in ds.variables:
        return None
    at = np.flatnonzero(np.asarray(ds["beta_fit_t_lower"].values) == BETA_FIT_T_LOWER)
    if at.size != 1:
        return None
    k = int(at[0])
    return tuple(float(ds[v].values[k]) for v in (  # type: ignore[return-value]
        "beta_asymptotic", "beta_asymptotic_err", "beta_correction_amplitude",
        "beta_correction_exponent", "beta_fit_t_lower", "beta_fit_t_upper"))  # fmt: skip


def _fit_label(fit: tuple[float, ...] | None) -> str:
    """The second line of a point's Fig. 6 legend entry: its fitted beta with error and
    window, or that its main window could not be fitted."""
    window = rf"$t \geq {BETA_FIT_T_LOWER:g}$"
    if fit is None or not np.isfinite(fit[0]):
        return f"no fit for {window}"
    return rf"$\beta = {value_error_text(fit[0], fit[1])}$ (fit, {window})"


def _plateau(ds: xr.Dataset) -> tuple[float, float, float, float] | None:
    """The plateau of the main window (:data:`analysis.kpz_plateau.PLATEAU_T_LOWER`) of a
    point: (level, error, t_lower, t_upper); None where the file has none or it is NaN."""
    if "beta_plateau" not in ds.variables:
        return None
    at = np.flatnonzero(np.asarray(ds["beta_plateau_t_lower"].values) == PLATEAU_T_LOWER)
    if at.size != 1:
        return None
    k = int(at[0])
    names = ("beta_plateau", "beta_plateau_err", "beta_plateau_t_lower", "beta_plateau_t_upper")
    vals = tuple(float(ds[v].values[k]) for v in names)
    return vals if all(np.isfinite(vals)) else None  # type: ignore[return-value]


def _check_fig6_input(dss: Sequence[xr.Dataset], x: str) -> None:
    """``ValueError`` for a point that is not 2+1-dimensional, or an unknown ``x``."""
    if x not in FIG6_X:
        raise ValueError(f"fig6 option x = {x!r}: one of {', '.join(FIG6_X)}")
    for d in dss:
        dim = d.attrs.get("dim")
        if dim is not None and str(dim) != "2":
            raise ValueError(
                f"{source_of(d)}: dim={dim}, but fig6 compares with the 2+1-dimensional "
                f"KPZ exponent beta = {FIG6_BETA.value}"
            )


def _fig6_curve(
    ax: Any, ds: xr.Dataset, label: str, style: dict, t_min: float | None, plateau: bool
) -> None:
    """One point's beta_eff with its fit line, and its plateau where asked for; against
    1/t from ``t_min`` on, or against t where ``t_min`` is None."""
    t = np.asarray(ds["t_eff"].values, dtype=float)
    y = np.asarray(ds["beta_eff"].values, dtype=float)
    e = np.asarray(ds["beta_eff_err"].values, dtype=float)
    inverse = t_min is not None
    ok = np.isfinite(y) & (t >= (t_min if inverse else np.nextafter(0, 1)))
    fit = _main_fit(ds)
    level = _plateau(ds) if plateau else None
    text = f"{label}\n{_fit_label(fit)}"
    if level is not None:
        text += (rf"; plateau ${value_error_text(level[0], level[1])}$ "
                 rf"($t \geq {level[2]:g}$)")  # fmt: skip

    def xs(times: np.ndarray) -> np.ndarray:
        return FIG6_INVERSE_SCALE / times if inverse else times

    ax.errorbar(xs(t[ok]), y[ok], yerr=np.nan_to_num(e[ok]), label=text, **style)
    line = {"color": style["color"], "zorder": style["zorder"] + 1}
    if fit is not None and all(np.isfinite(fit)):
        beta, _, a, omega, t_lo, t_hi = fit
        tt = np.geomspace(max(t_lo, t_min) if inverse else t_lo, t_hi, 200)
        ax.plot(xs(tt), beta + a * tt**-omega, linewidth=0.6, **line)
    if level is not None:
        ends = np.array([level[2], level[3]])
        ax.plot(xs(ends), [level[0]] * 2, linewidth=1.2, linestyle="--", **line)


def plot_fig6(datasets: Sequence[xr.Dataset], x: str = "t", plateau: bool = False) -> Figure:
    """kelling2017 Fig. 6: beta_eff(t) per point with the asymptotic beta of its ref. [19].

    Error bars are the jackknife errors of the analysis file; each point's fit
    beta + a t^-omega of the main window (``beta_asymptotic`` etc. at ``beta_fit_t_lower``
    = :data:`analysis.kpz_fits.BETA_FIT_T_LOWER`) is a thin line of its colour over its window,
    and its legend entry quotes the fitted beta with its jackknife error (or says that the
    window could not be fitted).  The references: kelling2017's asymptotic 0.2415(15) as an
    orange band (value +- error, under the data) with a line at the value, and 0.2414(2)
    (its sec. 2.1) dashed, both lines above the data.  Curves may differ at finite t
    (corrections to scaling) but should approach the band.  ``x = "inverse_t"`` draws
    against 1000/t on linear axes, one panel from each t of :data:`FIG6_INVERSE_T_MINS`
    (t -> infinity at the left edge).  ``plateau``: each point's plateau of the main window
    (:mod:`analysis.kpz_plateau`) as a dashed segment over its window, quoted in the
    legend.  Raises ``ValueError`` for a point whose substrate dimension is not 2: the
    references are the 2+1-dimensional values.
    """
    dss = reference_first(datasets)
    _check_fig6_input(dss, x)
    # beta_eff fills the width around the reference: the legend goes below the axes;
    # each point's entry takes two lines (its fit)
    height = PANEL_HEIGHT + 0.13 * (2 * len(dss) + 2)
    zooms = FIG6_INVERSE_T_MINS if x == "inverse_t" else (None,)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, len(zooms), height)
        refs = [_fig6_references(ax) for ax in axes[0]]  # the legend takes the first's
        for ax, t_min in zip(axes[0], zooms, strict=True):
            for ds, label, style in zip(dss, curve_labels(dss), curve_styles(dss), strict=True):
                _fig6_curve(ax, ds, label, style, t_min, plateau)
            if t_min is not None:
                ax.set_xlim(0.0, 1.02 * FIG6_INVERSE_SCALE / t_min)
                label = time_label(dss, symbol=f"{FIG6_INVERSE_SCALE:g}/t")
                ax.set_xlabel(label.replace("[", "[1/", 1))
            else:
                ax.set_xscale("log")
                log_tick_labels(ax)
                ax.set_xlabel(time_label(dss))
            ax.set_ylabel(r"$\beta_{eff}$")
        handles, labels = axes[0, 0].get_legend_handles_labels()  # errorbars after the band
        at = [handles.index(r) for r in refs[0]]
        order = [*(i for i in range(len(handles)) if i not in at), *at]  # references last
        fig.legend(
            [handles[i] for i in order],
            [labels[i] for i in order],
            loc="outside lower center",
            fontsize=6,
        )
    return fig


def _fig6_references(ax: Any) -> tuple[Any, Any]:
    """kelling2017's asymptotic beta as a band with a line, and its sec. 2.1 value dashed;
    their legend handles (line, band)."""
    value, err = FIG6_BETA.value, FIG6_BETA.error
    band = ax.axhspan(value - err, value + err, color=_REF_COLOR, alpha=0.3, linewidth=0,
                      label=rf"$\beta = {FIG6_BETA.text}$ (kelling2017)", zorder=1)  # fmt: skip
    ax.axhline(value, **guide_style(color=_REF_COLOR, linestyle="-"))  # above the data
    precise = ax.axhline(FIG6_BETA_PRECISE.value, **guide_style(),
                         label=rf"$\beta = {FIG6_BETA_PRECISE.text}$ "
                         "(kelling2017 sec. 2.1)")  # fmt: skip
    return precise, band


# ----------------------------------------------------------------------------- drawing


def load_paper_analyses(paths: Sequence[str | os.PathLike[str]]) -> list[xr.Dataset]:
    """:func:`analysis.kpz_figures.load_analyses`, plus the attributes these figures need (the
    scheme, and a valid ``tc`` of a two-layer scheme).

    Every error is a ``ValueError`` whose message starts with the offending file.
    """
    if not paths:
        raise ValueError("no analysis datasets given")
    datasets = load_analyses(paths)
    for ds in datasets:
        if "scheme" not in ds.attrs:
            raise ValueError(f"{source_of(ds)}: attribute scheme is missing")
        tc_of(ds)  # a two-layer scheme needs a valid tc
    return datasets


def fig3b(inputs: Sequence[str], s: float | None = None) -> Drawn:
    """Fig. 3(b) (:func:`plot_fig3b`) from the analysis files ``inputs`` of the points, at
    waiting time ``s`` (default: the largest common one); with their provenance."""
    datasets = load_paper_analyses(inputs)
    return plot_fig3b(datasets, s=s), provenance(datasets)


def fig4(inputs: Sequence[str], s: float | None = None, exponent: Literal["h", "s"] = "h") -> Drawn:
    """Figs. 4/5 (:func:`plot_fig4`) from the analysis files ``inputs`` of the points, at
    waiting time ``s``: C_h and lambda_h/z (``exponent="h"``: Figs. 4a, 5a) or C_s and
    lambda_s/z (``"s"``: Fig. 4b)."""
    datasets = load_paper_analyses(inputs)
    return plot_fig4(datasets, s=s, exponent=exponent), provenance(datasets)


def fig5b(inputs: Sequence[str]) -> Drawn:
    """Fig. 5(b) (:func:`plot_fig5b`) from the analysis files ``inputs`` of the points."""
    datasets = load_paper_analyses(inputs)
    return plot_fig5b(datasets), provenance(datasets)


def fig6(inputs: Sequence[str], x: str = "t", plateau: bool = False) -> Drawn:
    """Fig. 6 (:func:`plot_fig6`) from the analysis files ``inputs`` of 2D points: against
    t or (``x = "inverse_t"``) 1/t, with each point's plateau where ``plateau``."""
    datasets = load_paper_analyses(inputs)
    return plot_fig6(datasets, x=x, plateau=plateau), provenance(datasets)


def performance(inputs: Sequence[str]) -> Drawn:
    """Fig. 7 (:func:`plot_performance`) from the one table of ``simcore bench dd --csv``."""
    (path,) = inputs
    table = load_bench_table(path)
    return plot_performance(table), bench_provenance(path, table)
