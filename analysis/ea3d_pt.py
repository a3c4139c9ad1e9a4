"""Edwards-Anderson spin glass in equilibrium by parallel tempering (ea3d_pt): energy,
overlap moments, Binder ratio, spin-glass susceptibility, the crossings of the Binder
ratios of successive sizes, and the evidence of equilibrium.

Analysis (:func:`analyze`) of one aggregated dataset (one size L, one temperature ladder).
``<.>`` is the thermal average of one disorder sample (its bin mean), ``[.]`` the average
over the samples.  The equilibrium values come from the last logarithmic bin, the second
half of the run:

* ``energy_mean/err(T)``: the energy per spin e (both replicas);
* ``q2_mean/err(T)``, ``q4_mean/err(T)``: [<q^2>] and [<q^4>] of the overlap q of the two
  replicas at T;
* ``binder/binder_err(T)``: g = (3 - [<q^4>]/[<q^2>]^2) / 2 (0 for a Gaussian q, 1 for
  q = +-c);
* ``chi_sg/chi_sg_err(T)``: chi_SG = L^3 [<q^2>];
* ``binder_jk(jk_group, T)``: the jackknife replicas of g (g of the samples without group
  k), with the coordinate ``jk_group_size`` (the samples left out): what
  :func:`crossings` needs to give a crossing of two sizes its error without the run files.

The evidence of equilibrium:

* ``energy_bin_mean/err(T, t)``, ``q2_bin_mean/err(T, t)``: every logarithmic bin
  (coordinates ``t``, the last sweep of each bin, ``t_first`` and ``measurements`` of the
  file): the last bins agree within errors in equilibrium; ``energy_drift`` and
  ``q2_drift`` (T, t) are each bin minus the last bin per sample, averaged, with the
  errors of that paired difference (the same samples are in every bin, so the
  difference has much smaller errors than either bin);
* ``exchange_acceptance_mean/err(T_pair)``: the accepted fraction of the exchanges of
  each pair of neighbouring temperatures (coordinates ``T_lower``, ``T_upper``);
* ``round_trips_mean/err(walker)``: round trips T_min -> T_max -> T_min of each
  configuration of the ladder (labelled by the temperature it started at), averaged over
  the samples and both replicas; ``round_trips_per_config_mean/err``: averaged over the
  configurations too; ``round_trips_min``: the fewest round trips of any configuration of
  any sample and replica (0: one never travelled the whole ladder and back).

Errors are jackknife errors over groups of whole coded words (:func:`analysis.ea3d.
word_groups`): the 64 samples of a word share their random numbers, so words, not samples,
are independent.  With a single word the groups split it, and the errors ignore that
correlation (the attribute ``jackknife_groups_note`` says so).

Crossings (:func:`crossings`; ``python -m analysis.ea3d_pt crossings ANALYSIS.nc ...``
prints them as a Markdown table): for successive sizes L1 < L2 on the same temperature
ladder, the temperature where g_L1(T) - g_L2(T) changes sign, by linear interpolation
between the two ladder temperatures around the sign change.  Its error: the jackknife
over the groups of L1 (g_L2 at its estimate), and over those of L2 (g_L1 at its estimate),
the two variances added (the sizes have independent disorder); each replica interpolates
on the same two temperatures.  Where g_L1 - g_L2 keeps its sign over the ladder the row
says so (T_cross NaN): no crossing is extrapolated.  Several sign changes (noise, or
curves that touch) give one row each, marked as such.

Campaign figures (:func:`draw_figures`; names and captions are the ea3d_pt spec's
``campaign_figures``), one curve per L, every mean with its jackknife error bar:
``binder`` (g vs T, the crossings and the literature T_c marked), ``chi_sg`` (log y),
``energy``, ``equilibration`` (e and [<q^2>] at the lowest temperature per bin vs the bin's
last sweep) and ``exchange`` (acceptance vs the pair's mid temperature, round trips per
configuration vs L).
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Collection, Sequence
from functools import partial
from typing import Any

import matplotlib
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from analysis.dispatch import fail
from analysis.ea3d import word_groups
from analysis.estimates import analysis_attrs
from analysis.kpz import LiteratureValue
from analysis.plotting import (
    PANEL_HEIGHT,
    STYLE,
    Drawn,
    axis_label,
    draw_campaign_figures,
    fmt_number,
    guide_style,
    load_datasets,
    log_tick_labels,
    n_samples_of,
    new_figure,
    require_variables,
    source_of,
    styles_by,
    unit_text,
    value_error_text,
)
from analysis.stats import JACKKNIFE_DIM, jackknife_replicas, replica_error
from simcore.interrupt import run_main
from simcore.io.dataset import unit_attributes

__all__ = [
    "CROSSING_VARIABLES",
    "FIGURE_VARIABLES",
    "MODEL",
    "REQUIRED",
    "T_C",
    "analyze",
    "crossing_table",
    "crossings",
    "draw_figures",
    "main",
]

#: The model whose spec names the campaign figures drawn here.
MODEL = "ea3d_pt"
#: Variables of the run file the analysis needs.
REQUIRED = ("energy", "q2", "q4", "exchange_acceptance", "round_trips")
#: Coordinates of the run file the analysis needs.
_COORDINATES = ("T", "T_pair", "t", "t_first")
#: The jackknife dimension of ``binder_jk``.
JK_DIM = "jk_group"

#: Published critical temperatures of the 3D +-J spin glass, drawn on the binder figure.
T_C: tuple[LiteratureValue, ...] = (
    LiteratureValue(
        1.1019, 0.0029, "1.1019(29)",
        "Janus Collaboration (Baity-Jesi et al.), 'Critical parameters of the "
        "three-dimensional Ising spin glass', Phys. Rev. B 88, 224416 (2013)",
    ),
    LiteratureValue(
        1.120, 0.004, "1.120(4)",
        "Katzgraber, Koerner, Young, 'Universality in three-dimensional Ising spin "
        "glasses: a Monte Carlo study', Phys. Rev. B 73, 224432 (2006)",
    ),
)  # fmt: skip
_T_C_LABELS = ("Janus 2013", "Katzgraber, Koerner, Young 2006")

#: Variables of an analysis that :func:`crossings` reads.
CROSSING_VARIABLES = ("binder", "binder_jk", "jk_group_size")
#: Variables of an analysis that :func:`draw_figures` reads.
FIGURE_VARIABLES = (
    *CROSSING_VARIABLES,
    "binder_err",
    "chi_sg",
    "chi_sg_err",
    "energy_mean",
    "energy_err",
    "energy_bin_mean",
    "energy_bin_err",
    "q2_bin_mean",
    "q2_bin_err",
    "exchange_acceptance_mean",
    "exchange_acceptance_err",
    "round_trips_per_config_mean",
    "round_trips_per_config_err",
    "round_trips_min",
)
#: The acceptance below which the exchange figure's dashed line says the ladder is thin.
LOW_ACCEPTANCE = 0.2


# ----------------------------------------------------------------------------- analysis


def _derived(m: xr.Dataset, volume: float) -> xr.Dataset:
    """The sample means with the Binder ratio and chi_SG of the last bin added."""
    q2, q4 = m["q2"], m["q4"]
    return m.assign(binder=0.5 * (3.0 - q4 / q2**2), chi_sg=volume * q2)


def _set(out: xr.Dataset, name: str, value: Any, long_name: str, units: dict, **extra: Any) -> None:
    """``out[name] = value`` with its CF attributes."""
    out[name] = value.variable if isinstance(value, xr.DataArray) else value
    out[name].attrs = {"long_name": long_name, **units, **extra}


def analyze(ds: xr.Dataset, n_groups: int | None = None) -> xr.Dataset:
    """Means and jackknife errors of the equilibrium observables, the per-bin means and the
    exchange diagnostics of one ea3d_pt dataset (see the module doc); ``n_groups``
    overrides the groups of whole coded words.  Raises ``ValueError`` naming what is
    missing for a dataset that is not ea3d_pt's."""
    missing = [v for v in (*REQUIRED, *_COORDINATES) if v not in ds.variables]
    if "L" not in ds.attrs:
        missing.append("attribute L")
    if missing:
        raise ValueError(f"not an ea3d_pt dataset: missing {', '.join(missing)}")
    ds = ds.sortby("sample")
    L = int(ds.attrs["L"])
    n = int(ds.sizes["sample"])
    if n_groups is None:
        groups, note = word_groups(n)
    else:
        groups, note = int(n_groups), "groups set by the caller"
    if not 2 <= groups <= n:
        raise ValueError(f"the jackknife needs 2 to {n} groups (the samples), got {groups}")
    last = ds.isel(t=-1, drop=True)
    per_sample = xr.Dataset(
        {
            "energy_bin": ds["energy"],
            "q2_bin": ds["q2"],
            "energy_drift": ds["energy"] - last["energy"],
            "q2_drift": ds["q2"] - last["q2"],
            "energy": last["energy"],
            "q2": last["q2"],
            "q4": last["q4"],
            "exchange_acceptance": ds["exchange_acceptance"],
            "round_trips": ds["round_trips"].mean("replica"),
            "round_trips_per_config": ds["round_trips"].mean(("replica", "walker")),
        }
    ).astype(np.float64)
    per_sample = per_sample.drop_vars([c for c in per_sample.coords if c != "sample"])
    derived = partial(_derived, volume=float(L) ** 3)
    est, reps, sizes = jackknife_replicas(
        per_sample, derived, dim="sample", n_groups=groups, vectorized=True
    )
    err = replica_error(est, reps, sizes)
    binder_jk = reps["binder"].rename({JACKKNIFE_DIM: JK_DIM})

    T = ds["T"]
    coords: dict[str, Any] = {
        "T": ("T", T.values, dict(T.attrs)),
        "T_pair": ("T_pair", ds["T_pair"].values, dict(ds["T_pair"].attrs)),
        "T_lower": ("T_pair", T.values[:-1], {**unit_attributes(T.attrs),
                    "long_name": "lower temperature T_i of the exchange pair"}),
        "T_upper": ("T_pair", T.values[1:], {**unit_attributes(T.attrs),
                    "long_name": "upper temperature T_(i+1) of the exchange pair"}),
        JK_DIM: (JK_DIM, np.arange(groups), {"long_name": "jackknife group left out",
                                             "units": "1"}),
        "jk_group_size": (JK_DIM, sizes.astype(np.int64),
                          {"long_name": "disorder samples in the group left out",
                           "units": "1"}),
    }  # fmt: skip
    for c in ("t", "t_first", "measurements", "walker"):
        if c in ds.variables:
            coords[c] = (ds[c].dims, ds[c].values, dict(ds[c].attrs))
    out = xr.Dataset(coords=coords)

    first, final = (int(ds[c].values[-1]) for c in ("t_first", "t"))
    eq = {"comment": f"last logarithmic bin, sweeps {first} to {final} (the second half of "
                     "the run)"}  # fmt: skip
    e_units = unit_attributes(ds["energy"].attrs)
    one = {"units": "1"}
    quantities = {  # name in est: (output name, long name, units, extra attributes)
        "energy": ("energy", "energy per spin e, [<e>]", e_units, eq),
        "q2": ("q2", "[<q^2>] of the overlap of the two replicas", one, eq),
        "q4": ("q4", "[<q^4>] of the overlap of the two replicas", one, eq),
        "binder": ("binder", "Binder ratio g = (3 - [<q^4>]/[<q^2>]^2) / 2", one, eq),
        "chi_sg": ("chi_sg", "spin-glass susceptibility chi_SG = L^3 [<q^2>]", one, eq),
        "energy_bin": ("energy_bin", "energy per spin e, [<e>], per logarithmic bin",
                       e_units, {}),
        "q2_bin": ("q2_bin", "[<q^2>] per logarithmic bin", one, {}),
        "energy_drift": ("energy_drift", "e of the bin minus e of the last bin, per "
                         "sample, averaged (paired: the errors of the difference)", e_units,
                         {}),
        "q2_drift": ("q2_drift", "<q^2> of the bin minus <q^2> of the last bin, per sample, "
                     "averaged (paired: the errors of the difference)", one, {}),
        "exchange_acceptance": ("exchange_acceptance", "accepted fraction of the exchanges "
                                "between T_i and T_(i+1), mean over samples", one, {}),
        "round_trips": ("round_trips", "round trips T_min -> T_max -> T_min of each "
                        "configuration, mean over samples and replicas", one, {}),
        "round_trips_per_config": ("round_trips_per_config", "round trips T_min -> T_max "
                                   "-> T_min per configuration, mean over configurations, "
                                   "samples and replicas", one, {}),
    }  # fmt: skip
    for var, (name, long_name, units, extra) in quantities.items():
        mean = name if name in ("binder", "chi_sg") else f"{name}_mean"
        _set(out, mean, est[var], long_name, units, **extra)
        _set(out, f"{name}_err", err[var], f"jackknife standard error of {long_name}",
             units, **extra)  # fmt: skip
    _set(out, "round_trips_min", np.int64(ds["round_trips"].min()),
         "fewest round trips of any configuration of any sample and replica", one)  # fmt: skip
    _set(out, "binder_jk", binder_jk.transpose(JK_DIM, "T"),
         "jackknife replicas of the Binder ratio g: the samples without group jk_group", one,
         **eq)  # fmt: skip
    out.attrs = analysis_attrs(
        ds,
        "spin-glass equilibrium observables by parallel tempering",
        "jackknife over groups of coded words (analysis.ea3d_pt)",
        groups,
        jackknife_groups_note=note,
        equilibrium_bin_first=first,
        equilibrium_bin_last=final,
    )
    return out


# ----------------------------------------------------------------------------- crossings


def _size(ds: xr.Dataset) -> int:
    return int(ds.attrs["L"])


def _ladders(analyses: Sequence[xr.Dataset]) -> list[list[xr.Dataset]]:
    """The analyses grouped by temperature ladder (equal T within 1e-9), each group sorted
    by L; ``ValueError`` for two analyses of one size on one ladder."""
    groups: list[list[xr.Dataset]] = []
    for ds in analyses:
        T = np.asarray(ds["T"].values, dtype=float)
        for group in groups:
            T0 = np.asarray(group[0]["T"].values, dtype=float)
            if T0.shape == T.shape and np.allclose(T0, T, rtol=1e-9, atol=0.0):
                group.append(ds)
                break
        else:
            groups.append([ds])
    for group in groups:
        group.sort(key=_size)
        for a, b in zip(group[:-1], group[1:], strict=True):
            if _size(a) == _size(b):
                raise ValueError(
                    f"{source_of(a)} and {source_of(b)}: two analyses of L={_size(a)} on one "
                    "temperature ladder: pass one per size"
                )
    return groups


def _interpolate(T: np.ndarray, d: np.ndarray, i: int) -> np.ndarray:
    """Where the straight line through (T_i, d_i) and (T_(i+1), d_(i+1)) is zero (``d``:
    last axis the temperatures, leading axes replicas)."""
    di, dj = d[..., i], d[..., i + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return T[i] + (T[i + 1] - T[i]) * di / (di - dj)


def _pair_rows(a: xr.Dataset, b: xr.Dataset) -> list[dict[str, Any]]:
    """The crossing rows of the sizes ``a`` < ``b`` on one ladder."""
    T = np.asarray(a["T"].values, dtype=float)
    g1, g2 = (np.asarray(x["binder"].values, dtype=float) for x in (a, b))
    d = g1 - g2
    L1, L2 = _size(a), _size(b)
    base = {"L1": L1, "L2": L2, "T_min": float(T[0]), "T_max": float(T[-1]),
            "T_cross": math.nan, "T_cross_err": math.nan, "T_lower": math.nan,
            "T_upper": math.nan, "sources": (source_of(a), source_of(b))}  # fmt: skip
    span = f"[{T[0]:g}, {T[-1]:g}]"
    if not np.all(np.isfinite(d)):
        bad = ", ".join(f"{t:g}" for t in T[~np.isfinite(d)])
        return [{**base, "note": f"not determined: g is not finite at T = {bad}"}]
    # a sign change in [T_i, T_(i+1)]: d_i on one side of 0, d_(i+1) on the other or at 0
    at = [i for i in range(T.size - 1)
          if (d[i] < 0 <= d[i + 1]) or (d[i] > 0 >= d[i + 1])]  # fmt: skip
    if not at:
        side = ">" if d[0] > 0 else "<" if d[0] < 0 else "="
        return [{**base, "note": f"no crossing in {span}: g_{L1} - g_{L2} {side} 0 at every "
                                 "ladder temperature"}]  # fmt: skip
    rows = []
    jk1 = np.asarray(a["binder_jk"].transpose(JK_DIM, "T").values, dtype=float)
    jk2 = np.asarray(b["binder_jk"].transpose(JK_DIM, "T").values, dtype=float)
    for k, i in enumerate(at):
        t = float(_interpolate(T, d, i))
        var1 = replica_error(t, _interpolate(T, jk1 - g2, i), a["jk_group_size"].values) ** 2
        var2 = replica_error(t, _interpolate(T, g1 - jk2, i), b["jk_group_size"].values) ** 2
        note = "" if len(at) == 1 else (
            f"sign change {k + 1} of {len(at)} in {span}: no single crossing (noise, or "
            "curves that touch)")  # fmt: skip
        rows.append({**base, "T_cross": t, "T_cross_err": float(np.sqrt(var1 + var2)),
                     "T_lower": float(T[i]), "T_upper": float(T[i + 1]), "note": note})  # fmt: skip
    return rows


def crossings(analyses: Sequence[xr.Dataset]) -> list[dict[str, Any]]:
    """The crossings of the Binder ratios of successive sizes (sorted by L) on the same
    temperature ladder (analyses on another ladder are paired among themselves): one dict
    per crossing with ``L1``, ``L2``, ``T_cross``, ``T_cross_err`` (jackknife, both sizes'
    variances added), ``T_lower``, ``T_upper`` (the ladder temperatures around it),
    ``T_min``, ``T_max``, ``note`` ("" for a single crossing) and ``sources``; a pair whose
    g curves do not cross gives one dict with ``T_cross`` NaN and the reason in ``note``.
    See the module doc.  ``ValueError`` for an analysis without ``binder_jk`` or two of one
    size on one ladder."""
    require_variables(analyses, CROSSING_VARIABLES, "an ea3d_pt analysis")
    rows: list[dict[str, Any]] = []
    for ladder in _ladders(analyses):
        for a, b in zip(ladder[:-1], ladder[1:], strict=True):
            rows += _pair_rows(a, b)
    return rows


def _require_analyses(datasets: Sequence[xr.Dataset]) -> None:
    """``ValueError`` naming the first dataset that is not an ea3d_pt analysis."""
    for ds in datasets:
        model = ds.attrs.get("model")
        if model != MODEL:
            raise ValueError(f"{source_of(ds)}: not an {MODEL} analysis (model {model!r})")
    require_variables(datasets, CROSSING_VARIABLES, f"an {MODEL} analysis")


def crossing_table(paths: Sequence[str | os.PathLike[str]]) -> str:
    """The Markdown table of :func:`crossings` of the ea3d_pt analysis files ``paths``: L1,
    L2, T_cross(err) or why there is none, the ladder, the samples, a note.  ``ValueError``
    naming the file for one that cannot be read or is not an ea3d_pt analysis, and for
    files with no two sizes on one ladder."""
    if not paths:
        raise ValueError("no analysis files given")
    datasets = load_datasets(paths)
    _require_analyses(datasets)
    rows = crossings(datasets)
    if not rows:
        sizes = ", ".join(sorted({str(_size(d)) for d in datasets}))
        raise ValueError(f"no two sizes on one temperature ladder (L = {sizes}): no crossing")
    samples = {(source_of(d)): n_samples_of(d) for d in datasets}
    head = ["L1", "L2", "T_cross", "ladder", "samples", "note"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if math.isfinite(r["T_cross"]):
            cell, note = value_error_text(r["T_cross"], r["T_cross_err"]), r["note"]
        else:
            cell, note = r["note"], ""
        ladder = f"[{r['T_min']:g}, {r['T_max']:g}]"
        n = "/".join(str(samples[s]) for s in r["sources"])
        lines.append("| " + " | ".join([str(r["L1"]), str(r["L2"]), cell, ladder, n, note])
                     + " |")  # fmt: skip
    return "\n".join(lines)


# ----------------------------------------------------------------------------- figures


def _label(ds: xr.Dataset) -> str:
    return f"L={ds.attrs.get('L', '?')}, n={n_samples_of(ds)}"


def _styles(datasets: Sequence[xr.Dataset]) -> list[dict[str, Any]]:
    """Colour by L (fixed per size, as in every figure:
    :func:`analysis.plotting.size_color`), marker and line style by layout (the same for
    one layout)."""
    return [{**s, "ms": 3} for s in styles_by(datasets, "L", "layout")]


def _legend(fig: Figure, ax: Any, ncols: int = 2) -> None:
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=ncols,
               fontsize=6)  # fmt: skip


def _height(entries: int, base: float = PANEL_HEIGHT, ncols: int = 2) -> float:
    """A figure's height with a legend of ``entries`` in ``ncols`` columns below."""
    return base + 0.12 * math.ceil(entries / ncols)


def _vs_temperature(
    datasets: Sequence[xr.Dataset],
    var: str,
    ylabel: str,
    logy: bool = False,
    decorate: Callable[[Any, Sequence[xr.Dataset], Sequence[dict]], int] | None = None,
) -> Figure:
    """``var`` (error ``var_err``, or ``<name>_err`` of ``<name>_mean``) against T, one
    curve per L; ``decorate(ax, datasets, styles)`` draws more and returns its legend
    entries."""
    error = var.removesuffix("_mean") + "_err"
    styles = _styles(datasets)
    with matplotlib.rc_context(STYLE):
        extra = len(T_C) + len(datasets) if decorate else 0
        ncols = 1 if decorate else 2  # the long labels of crossings and literature
        fig, axes = new_figure(1, 1, _height(len(datasets) + extra, ncols=ncols))
        ax = axes[0, 0]
        for ds, style in zip(datasets, styles, strict=True):
            y = np.asarray(ds[var].values, dtype=float)
            e = np.nan_to_num(np.asarray(ds[error].values, dtype=float))
            ok = np.isfinite(y) & ((y > 0) if logy else True)
            T = np.asarray(ds["T"].values, dtype=float)
            ax.errorbar(T[ok], y[ok], yerr=e[ok], label=_label(ds), **style)
        if decorate:
            decorate(ax, datasets, styles)
        if logy:
            ax.set_yscale("log")
            log_tick_labels(ax)
        ax.set_xlabel(axis_label("T", datasets[0]["T"].attrs))
        ax.set_ylabel(axis_label(ylabel, datasets[0][var].attrs))
        _legend(fig, ax, ncols)
    return fig


def _mark_crossings(ax: Any, datasets: Sequence[xr.Dataset], styles: Sequence[dict]) -> int:
    """The literature T_c (grey bands) and the crossings of successive sizes (the colour of
    the larger L, a band of one error), each labelled; returns the legend entries."""
    for ref, who, ls in zip(T_C, _T_C_LABELS, ("--", ":"), strict=True):
        ax.axvspan(ref.value - ref.error, ref.value + ref.error, color="0.6", alpha=0.35,
                   linewidth=0)  # fmt: skip
        ax.axvline(ref.value, **guide_style(color="0.35", linestyle=ls),
                   label=f"$T_c$ = {ref.text}, {who} (literature)")  # fmt: skip
    color = {_size(d): s["color"] for d, s in zip(datasets, styles, strict=True)}
    rows = crossings(datasets)
    for r in rows:
        pair = f"L={r['L1']}/{r['L2']}"
        if math.isfinite(r["T_cross"]):
            t, e = r["T_cross"], r["T_cross_err"]
            if math.isfinite(e):
                ax.axvspan(t - e, t + e, color=color[r["L2"]], alpha=0.15, linewidth=0)
            ax.axvline(t, **guide_style(color=color[r["L2"]], linestyle="-.", linewidth=0.9),
                       label=f"crossing {pair}: T = {value_error_text(t, e)}"
                       + (" (one of several)" if r["note"] else ""))  # fmt: skip
        else:
            ax.plot([], [], linestyle="none", label=f"{pair}: no crossing in "
                    f"[{r['T_min']:g}, {r['T_max']:g}]")  # fmt: skip
    return len(T_C) + len(rows)


def plot_binder(datasets: Sequence[xr.Dataset]) -> Figure:
    """The Binder ratio g against T, one curve per L, with the crossings of successive
    sizes and the literature T_c marked (above the data)."""
    return _vs_temperature(datasets, "binder", "Binder ratio g", decorate=_mark_crossings)


def plot_chi_sg(datasets: Sequence[xr.Dataset]) -> Figure:
    """chi_SG against T (log y), one curve per L."""
    return _vs_temperature(datasets, "chi_sg", r"spin-glass susceptibility $\chi_{SG}$", logy=True)


def plot_energy(datasets: Sequence[xr.Dataset]) -> Figure:
    """e against T, one curve per L."""
    return _vs_temperature(datasets, "energy_mean", "energy per spin e")


def plot_equilibration(datasets: Sequence[xr.Dataset]) -> Figure:
    """e and [<q^2>] at the lowest temperature of each ladder per logarithmic bin against
    the bin's last sweep (log x), one curve per L."""
    styles = _styles(datasets)
    lowest = {float(d["T"].values[0]) for d in datasets}
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(2, 1, _height(len(datasets), 3.6), sharex=True)
        for ax, var, symbol in ((axes[0, 0], "energy_bin", "energy per spin e"),
                                (axes[1, 0], "q2_bin", r"$[\langle q^2 \rangle]$")):  # fmt: skip
            for ds, style in zip(datasets, styles, strict=True):
                t = np.asarray(ds["t"].values, dtype=float)
                y = np.asarray(ds[f"{var}_mean"].isel(T=0).values, dtype=float)
                e = np.nan_to_num(np.asarray(ds[f"{var}_err"].isel(T=0).values, dtype=float))
                label = _label(ds)
                if len(lowest) > 1:
                    label += f", T={fmt_number(ds['T'].values[0])}"
                ax.errorbar(t, y, yerr=e, label=label, **style)
            ax.set_ylabel(axis_label(symbol, datasets[0][f"{var}_mean"].attrs))
            ax.set_xscale("log")
            log_tick_labels(ax)
        if len(lowest) == 1:
            unit = unit_text(datasets[0]["T"].attrs)
            axes[0, 0].set_title(f"lowest temperature T = {fmt_number(lowest.pop())} {unit}")
        axes[1, 0].set_xlabel(axis_label("last sweep of the bin", datasets[0]["t"].attrs))
        _legend(fig, axes[0, 0])
    return fig


def plot_exchange(datasets: Sequence[xr.Dataset]) -> Figure:
    """Exchange acceptance against the pair's mid temperature (a dashed line at
    :data:`LOW_ACCEPTANCE`), and the round trips per configuration against L (the fewest
    of any configuration written by each point)."""
    styles = _styles(datasets)
    with matplotlib.rc_context(STYLE):
        fig, axes = new_figure(2, 1, _height(len(datasets) + 1, 4.2))
        ax, bx = axes[0, 0], axes[1, 0]
        for ds, style in zip(datasets, styles, strict=True):
            mid = 0.5 * (np.asarray(ds["T_lower"].values) + np.asarray(ds["T_upper"].values))
            y = np.asarray(ds["exchange_acceptance_mean"].values, dtype=float)
            e = np.nan_to_num(np.asarray(ds["exchange_acceptance_err"].values, dtype=float))
            ax.errorbar(mid, y, yerr=e, label=_label(ds), **style)
            L = _size(ds)
            r = float(ds["round_trips_per_config_mean"])
            re = float(np.nan_to_num(ds["round_trips_per_config_err"].values))
            bx.errorbar([L], [r], yerr=[re], **{**style, "linestyle": "none"})
            bx.annotate(f"min {int(ds['round_trips_min'])}", (L, r), textcoords="offset points",
                        xytext=(4, 2), fontsize=6)  # fmt: skip
        ax.axhline(LOW_ACCEPTANCE, **guide_style(color="0.4"),
                   label=f"acceptance {LOW_ACCEPTANCE:g}")  # fmt: skip
        ax.set_ylim(0.0, 1.0)
        ax.set_xlabel(axis_label(r"$(T_i + T_{i+1})/2$", datasets[0]["T"].attrs))
        ax.set_ylabel("exchange acceptance")
        sizes = sorted({_size(d) for d in datasets})
        bx.set_xticks(sizes)
        bx.set_xlim(min(sizes) - 1, max(sizes) + 1)
        bx.set_xlabel("L")
        bx.set_ylabel("round trips per configuration")
        _legend(fig, ax)
    return fig


def draw_figures(
    analyses: Sequence[xr.Dataset], names: Collection[str] | None = None
) -> dict[str, Drawn]:
    """The campaign figures of ea3d_pt analyses with their provenance: those the ea3d_pt
    spec's ``campaign_figures`` names, in its order (only ``names``, if given); the
    analyses are drawn in order of L."""
    require_variables(analyses, FIGURE_VARIABLES, f"an {MODEL} analysis dataset")
    ordered = sorted(analyses, key=lambda d: (_size(d), str(d.attrs.get("layout", ""))))
    drawings = {
        "binder": plot_binder,
        "chi_sg": plot_chi_sg,
        "energy": plot_energy,
        "equilibration": plot_equilibration,
        "exchange": plot_exchange,
    }
    return draw_campaign_figures(MODEL, ordered, drawings, names=names)


# ----------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    parser = argparse.ArgumentParser(
        prog="python -m analysis.ea3d_pt",
        description="Campaign-level results of ea3d_pt analyses.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    cross = sub.add_parser(
        "crossings",
        description=(
            "Print a Markdown table of the temperatures where the Binder ratios of "
            "successive sizes on one temperature ladder cross (linear interpolation between "
            "ladder temperatures, jackknife errors of both sizes added), or why they do not."
        ),
    )
    cross.add_argument("inputs", nargs="+", metavar="ANALYSIS.nc", help="ea3d_pt analyses")
    args = parser.parse_args(argv)
    prog = f"{parser.prog} {args.command}"
    try:
        table = crossing_table(args.inputs)
    except (OSError, ValueError, KeyError) as exc:
        return fail(prog, exc)
    print(table)
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.ea3d_pt")
