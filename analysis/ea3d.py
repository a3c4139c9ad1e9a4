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

Campaign figures (:func:`make_figures`; names and captions are the ea3d spec's
``campaign_figures``): ``energy``, ``q2`` and ``binder`` vs sweeps, one line per point.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from analysis.estimates import analysis_attrs
from analysis.plotting import (
    STYLE,
    log_tick_labels,
    new_figure,
    require_variables,
    save_campaign_figures,
)
from analysis.stats import jackknife
from simcore.io.dataset import unit_attributes

__all__ = ["analyze", "make_figures", "plot_observable", "word_groups"]

#: The model whose spec names the campaign figures drawn here.
MODEL = "ea3d"
#: Variables of the run file the analysis needs.
REQUIRED = ("energy", "q")
#: Samples per coded word: they share their random numbers.
WORD = 64

#: Each campaign figure: the variable drawn and its axis label.
_FIGURES = {
    "energy": ("energy_mean", "e [|J|]"),
    "q2": ("q2_mean", r"$\langle q^2 \rangle$ [1]"),
    "binder": ("binder", "g [1]"),
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


def plot_observable(datasets: Sequence[xr.Dataset], var: str, ylabel: str) -> Figure:
    """``var`` vs sweeps (log t) with jackknife error bars, one line per point."""
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(1, 1)
        ax = axes[0, 0]
        for ds in datasets:
            t = np.asarray(ds["t"].values, dtype=float)
            ok = t > 0
            ax.errorbar(
                t[ok], ds[var].values[ok], yerr=ds[_error_of(var)].values[ok],
                marker="o", ms=3, capsize=1.5, label=_label(ds),
            )  # fmt: skip
        ax.set_xscale("log")
        log_tick_labels(ax)
        ax.set_xlabel("t [sweeps]")
        ax.set_ylabel(ylabel)
        ax.legend(loc="best")
    return fig


def make_figures(analyses: Sequence[xr.Dataset], out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write the campaign figures of ea3d analyses into ``out_dir``, PNG and PDF each: those
    the ea3d spec's ``campaign_figures`` names, in its order.  Returns the written paths."""
    needed = [v for var, _ in _FIGURES.values() for v in (var, _error_of(var))]
    require_variables(analyses, needed, "an ea3d analysis dataset")
    drawings = {
        name: partial(plot_observable, var=var, ylabel=ylabel)
        for name, (var, ylabel) in _FIGURES.items()
    }
    return save_campaign_figures(MODEL, analyses, out_dir, drawings)
