"""Spin-glass (ea3d) analysis and figures: energy, overlap moments and the Binder ratio.

Analysis of one aggregated dataset (called by ``python -m analysis.exponents``, which
dispatches on the dataset's ``model``):

* ``energy_mean/err(time)``: the energy per spin, averaged over replicas and samples;
* ``q2_mean/err``, ``q4_mean/err``: <q_ab^2> and <q_ab^4> over the six replica pairs and
  the samples;
* ``binder/binder_err``: g = (3 - <q^4>/<q^2>^2) / 2 (0 for a Gaussian q, 1 for q = +-c).

Errors are jackknife errors over groups of whole coded words: the 64 samples of a word
share their random numbers (simcore.models.ea3d), so words, not samples, are
independent.  With a single word the groups split it, and the errors ignore that
correlation (the attribute ``jackknife_groups_note`` says so).

Figures (``python -m analysis.figures`` dispatches here for ea3d analyses): ``energy``,
``q2`` and ``binder`` vs sweeps, one line per parameter point.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from analysis.figures import STYLE, log_tick_labels, new_figure, provenance, save_figure
from analysis.stats import jackknife

FIGURE_NAMES = ("energy", "q2", "binder")
REQUIRED = ("energy", "q")


def word_groups(n_samples: int, max_groups: int = 32) -> tuple[int, str]:
    """Jackknife groups made of whole 64-sample words, and a note when that is impossible."""
    words = n_samples // 64
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


def analyze_ea3d(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """Means and jackknife errors of the spin-glass observables of one dataset."""
    missing = [v for v in REQUIRED if v not in ds.variables]
    if missing:
        raise ValueError(f"not an ea3d dataset: missing {', '.join(missing)}")
    ds = ds.sortby("sample").sortby("time")
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
    out = xr.Dataset(coords={"time": ds["time"].values})
    out["time"].attrs = dict(ds["time"].attrs)
    names = {
        "energy": ("energy per spin e", "1"),
        "q2": ("<q_ab^2> over replica pairs and samples", "1"),
        "q4": ("<q_ab^4> over replica pairs and samples", "1"),
        "binder": ("Binder ratio g = (3 - <q^4>/<q^2>^2) / 2", "1"),
    }
    for var, (long_name, units) in names.items():
        key = "binder" if var == "binder" else f"{var}_mean"
        out[key] = est[var].variable
        out[key].attrs = {"long_name": long_name, "units": units}
        out[f"{key}_err" if var == "binder" else f"{var}_err"] = err[var].variable
        out[f"{key}_err" if var == "binder" else f"{var}_err"].attrs = {
            "long_name": f"jackknife standard error of {long_name}",
            "units": units,
        }
    attrs = dict(ds.attrs)
    attrs.setdefault("n_samples", n)
    attrs.update(
        {
            "title": f"simcore analysis: spin-glass observables of {attrs.get('point', '')}",
            "analysis_method": "jackknife over groups of coded words (analysis.spin_glass)",
            "analysis_created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "jackknife_groups": groups,
            "jackknife_groups_note": note,
            "n_samples_analyzed": n,
        }
    )
    out.attrs = attrs
    return out


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
            t = np.asarray(ds["time"].values, dtype=float)
            ok = t > 0
            ax.errorbar(
                t[ok], ds[var].values[ok], yerr=ds[var.removesuffix("_mean") + "_err"].values[ok],
                marker="o", ms=3, capsize=1.5, label=_label(ds),
            )  # fmt: skip
        ax.set_xscale("log")
        log_tick_labels(ax)
        ax.set_xlabel("t [sweeps]")
        ax.set_ylabel(ylabel)
        ax.legend(loc="best")
    return fig


def make_all_ea3d(datasets: Sequence[xr.Dataset], out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write the spin-glass figures (FIGURE_NAMES, PNG and PDF) of analysis datasets."""
    prov = provenance(datasets)
    figures = {
        "energy": ("energy_mean", "e [|J|]"),
        "q2": ("q2_mean", r"$\langle q^2 \rangle$ [1]"),
        "binder": ("binder", "g [1]"),
    }
    written: list[Path] = []
    for name in FIGURE_NAMES:
        var, ylabel = figures[name]
        written += save_figure(plot_observable(datasets, var, ylabel), out_dir, name, prov)
    return written
