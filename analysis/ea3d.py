"""Edwards-Anderson spin glass (ea3d, lulli2015): energy, overlap moments, Binder ratio.

Analysis (:func:`analyze`) of one aggregated dataset:

* ``energy_mean/err(time)``: the energy per spin, averaged over replicas and samples;
* ``q2_mean/err``, ``q4_mean/err``: <q_ab^2> and <q_ab^4> over the six replica pairs and
  the samples;
* ``binder/binder_err``: g = (3 - <q^4>/<q^2>^2) / 2 (0 for a Gaussian q, 1 for q = +-c).

Errors are jackknife errors over groups of whole coded words: the 64 samples of a word
share their random numbers, so words, not samples, are independent.  With a single word
the groups split it, and the errors ignore that correlation (the attribute
``jackknife_groups_note`` says so).

Campaign figures (:func:`draw_figures`; names and captions are the ea3d spec's
``campaign_figures``): ``energy``, ``q2`` and ``binder`` vs sweeps, one line per point.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import partial

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from analysis.estimates import analysis_attrs
from analysis.plotting import (
    PANEL_HEIGHT,
    STYLE,
    Drawn,
    axis_label,
    draw_campaign_figures,
    guide_style,
    log_tick_labels,
    new_figure,
    require_variables,
    styles_by,
    time_label,
)
from analysis.stats import jackknife
from simcore.io.dataset import unit_attributes

__all__ = ["analyze", "plot_observable", "word_groups"]

#: The model whose spec names the campaign figures drawn here.
MODEL = "ea3d"
#: Variables of the run file the analysis needs.
REQUIRED = ("energy", "q")
#: Samples per coded word: they share their random numbers.
WORD = 64

#: Each campaign figure: the variable drawn, its axis label (named, not only a symbol: the
#: unit comes from the file) and its symbol (in the label of the size differences).
_FIGURES = {
    "energy": ("energy_mean", "energy per spin e", "e"),
    "q2": ("q2_mean", r"squared overlap $\langle q^2 \rangle$", r"$\langle q^2 \rangle$"),
    "binder": ("binder", "Binder ratio g", "g"),
}


def word_groups(n_samples: int, max_groups: int = 32) -> tuple[int, str]:
    """Jackknife groups made of whole 64-sample words, and a note when that is impossible
    (words, not samples, are independent)."""
    words = n_samples // WORD
    if words >= 2:
        g = max(d for d in range(1, min(words, max_groups) + 1) if words % d == 0)
        if g >= 2:
            return g, f"{g} groups of {words // g} coded word(s)"
    return min(n_samples, max_groups), (
        "one coded word: groups split it, so the errors ignore the correlation of its "
        "64 samples (they share random numbers)"
    )


def _moments(m: xr.Dataset) -> xr.Dataset:
    """Derived quantities of the sample means: q2, q4 and the Binder ratio."""
    q2, q4 = m["q2"], m["q4"]
    return xr.Dataset(
        {"energy": m["energy"], "q2": q2, "q4": q4, "binder": 0.5 * (3.0 - q4 / q2**2)}
    )


def analyze(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """Means and jackknife errors of the spin-glass observables of one dataset (see the
    module doc); ``n_groups`` overrides the groups of whole coded words.  Raises
    ``ValueError`` naming what is missing for a dataset that is not ea3d's."""
    missing = [v for v in REQUIRED if v not in ds.variables]
    if missing:
        raise ValueError(f"not an ea3d dataset: missing {', '.join(missing)}")
    ds = ds.sortby("sample").sortby("t")
    per_sample = xr.Dataset(
        {
            "energy": ds["energy"].mean("replica"),
            "q2": (ds["q"] ** 2).mean("pair"),
            "q4": (ds["q"] ** 4).mean("pair"),
        }
    ).astype(np.float64)
    n = int(ds.sizes["sample"])
    if n_groups is None:
        groups, note = word_groups(n)
    else:
        groups, note = int(n_groups), "groups set by the caller"
    est, err = jackknife(per_sample, _moments, dim="sample", n_groups=groups, vectorized=True)
    out = xr.Dataset(coords={"t": ds["t"].values})
    out["t"].attrs = dict(ds["t"].attrs)
    names = {  # name: (long name, units: the run file's energy's, or dimensionless)
        "energy": ("energy per spin e", unit_attributes(ds["energy"].attrs)),
        "q2": ("<q_ab^2> over replica pairs and samples", {"units": "1"}),
        "q4": ("<q_ab^4> over replica pairs and samples", {"units": "1"}),
        "binder": ("Binder ratio g = (3 - <q^4>/<q^2>^2) / 2", {"units": "1"}),
    }
    for var, (long_name, units) in names.items():
        key = "binder" if var == "binder" else f"{var}_mean"
        out[key] = est[var].variable
        out[key].attrs = {"long_name": long_name, **units}
        out[f"{key}_err" if var == "binder" else f"{var}_err"] = err[var].variable
        out[f"{key}_err" if var == "binder" else f"{var}_err"].attrs = {
            "long_name": f"jackknife standard error of {long_name}",
            **units,
        }
    out.attrs = analysis_attrs(
        ds,
        "spin-glass observables",
        "jackknife over groups of coded words (analysis.ea3d)",
        groups,
        jackknife_groups_note=note,
    )
    return out


def _error_of(var: str) -> str:
    """The error variable of a drawn variable: ``energy_mean`` -> ``energy_err``."""
    return var.removesuffix("_mean") + "_err"


def _label(ds: xr.Dataset) -> str:
    a = ds.attrs
    n = a.get("n_samples", a.get("n_samples_analyzed", "?"))
    return f"L={a.get('L', '?')}, T={a.get('T', '?')}, {a.get('layout', '?')}, n={n}"


def _size_differences(datasets: Sequence[xr.Dataset], var: str) -> list[tuple[int, xr.Dataset]]:
    """(index, dataset) of every point that has a larger L at the same temperature, layout
    and times: those drawn as differences to the largest L."""
    out = []
    for i, ds in enumerate(datasets):
        same = [d for d in datasets if d.attrs.get("T") == ds.attrs.get("T")
                and d.attrs.get("layout") == ds.attrs.get("layout")
                and np.array_equal(d["t"].values, ds["t"].values)]  # fmt: skip
        ref = max(same, key=lambda d: float(d.attrs.get("L", 0)))
        if ref is not ds:
            out.append((i, ref))
    return out


def plot_observable(
    datasets: Sequence[xr.Dataset],
    var: str,
    ylabel: str,
    differences: bool = False,
    symbol: str | None = None,
) -> Figure:
    """``var`` vs sweeps (log t) with jackknife error bars, one line per point: colour by
    L (fixed per size, as in every figure: :func:`analysis.plotting.size_color`; smaller
    sizes drawn on top, so the sizes stay apart where their curves coincide), marker,
    line style and fill by temperature (the highest solid and filled).  ``ylabel``: what
    the axis names, to which the unit of the file's variable is added.  ``differences``:
    a lower panel of each smaller L minus the largest L at its temperature (errors in
    quadrature), which shows whether they agree, labelled with ``symbol`` (default
    ``ylabel``)."""
    styles = styles_by(datasets, "L", "T")
    diffs = _size_differences(datasets, var) if differences else []
    nrows = 2 if diffs else 1
    with matplotlib.rc_context(STYLE):
        height = (PANEL_HEIGHT if nrows == 1 else 3.6) + 0.15 * len(datasets)
        fig, axes = new_figure(nrows, 1, height, sharex=True,
                               gridspec_kw={"height_ratios": [2, 1][:nrows]})  # fmt: skip
        ax = axes[0, 0]
        for ds, style in zip(datasets, styles, strict=True):
            t = np.asarray(ds["t"].values, dtype=float)
            ok = t > 0
            ax.errorbar(t[ok], ds[var].values[ok], yerr=ds[_error_of(var)].values[ok],
                        ms=3, label=_label(ds), **style)  # fmt: skip
        ax.set_ylabel(axis_label(ylabel, datasets[0][var].attrs))
        if diffs:
            bx = axes[1, 0]
            for i, ref in diffs:
                ds = datasets[i]
                t = np.asarray(ds["t"].values, dtype=float)
                ok = t > 0
                d = ds[var].values - ref[var].values
                e = np.hypot(ds[_error_of(var)].values, ref[_error_of(var)].values)
                bx.errorbar(t[ok], d[ok], yerr=e[ok], ms=3, **styles[i])
            bx.axhline(0.0, **guide_style(linestyle="-", linewidth=0.6))
            sym = ylabel if symbol is None else symbol
            bx.set_ylabel(f"{sym}(L) - {sym}(largest L)", fontsize=7)
        for a in axes[:, 0]:
            a.set_xscale("log")
            log_tick_labels(a)
        axes[-1, 0].set_xlabel(time_label(datasets))
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2,
                   fontsize=6)  # fmt: skip
    return fig


def draw_figures(
    analyses: Sequence[xr.Dataset], names: Collection[str] | None = None
) -> dict[str, Drawn]:
    """The campaign figures of ea3d analyses with their provenance: those the ea3d spec's
    ``campaign_figures`` names, in its order (only ``names``, if given)."""
    needed = [v for var, _, _ in _FIGURES.values() for v in (var, _error_of(var))]
    require_variables(analyses, needed, "an ea3d analysis dataset")
    drawings = {
        name: partial(
            plot_observable, var=var, ylabel=ylabel, symbol=symbol, differences=name == "energy"
        )
        for name, (var, ylabel, symbol) in _FIGURES.items()
    }
    return draw_campaign_figures(MODEL, analyses, drawings, names=names)
