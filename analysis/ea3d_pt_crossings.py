"""The crossings of the Binder ratios (or of xi_L / L) of ea3d_pt analyses of successive
sizes, where the spin-glass transition is (:func:`crossings`; ``python -m analysis.ea3d_pt
crossings [--of xi_over_L] ANALYSIS.nc ...`` prints them as a Markdown table,
:func:`crossing_table`), and the published critical temperatures they estimate
(:data:`T_C`).

For successive sizes L1 < L2 on the same temperature ladder, the temperature where
y_L1(T) - y_L2(T) changes sign (y: g, or xi_L / L; :data:`QUANTITIES`), by linear
interpolation between the two ladder temperatures around the sign change.  Its error: the
jackknife over the groups of L1 (y_L2 at its estimate), and over those of L2 (y_L1 at its
estimate), the two variances added (the sizes have independent disorder); each replica
interpolates on the same two temperatures, from the jackknife replicas ``binder_jk`` (or
``xi_over_L_jk``) that :func:`analysis.ea3d_pt.analyze` stores.  Where y_L1 - y_L2 keeps
its sign over the ladder the row says so (T_cross NaN): no crossing is extrapolated.
Several sign changes (noise, or curves that touch) give one row each, marked as such.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from analysis.literature import LiteratureValue
from analysis.plotting import (
    load_datasets,
    n_samples_of,
    require_variables,
    source_of,
    value_error_text,
)
from analysis.stats import replica_error
from analysis.tables import markdown_table

__all__ = [
    "CROSSING_VARIABLES",
    "JK_DIM",
    "MODEL",
    "QUANTITIES",
    "T_C",
    "crossing_variables",
    "crossing_table",
    "crossings",
    "size_of",
]

#: The model whose analyses these are (and whose spec names the campaign figures).
MODEL = "ea3d_pt"
#: The jackknife dimension of ``binder_jk`` and ``xi_over_L_jk``.
JK_DIM = "jk_group"

#: Published critical temperatures of the 3D +-J spin glass, drawn on the binder and
#: xi_over_L figures.
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

#: The quantities whose crossings :func:`crossings` finds, with their symbol in the notes
#: and the title of :func:`crossing_table` (None: the Binder table has none, as published).
QUANTITIES: dict[str, tuple[str, str | None]] = {
    "binder": ("g", None),
    "xi_over_L": ("(xi/L)", "Crossings of xi_L/L (second-moment correlation length over L)"),
}
#: Variables of an analysis that :func:`crossings` reads for the Binder ratio.
CROSSING_VARIABLES = ("binder", "binder_jk", "jk_group_size")


def crossing_variables(quantity: str) -> tuple[str, str, str]:
    """The variables :func:`crossings` reads for ``quantity`` (``ValueError`` for one not in
    :data:`QUANTITIES`)."""
    if quantity not in QUANTITIES:
        raise ValueError(f"no crossings of {quantity!r}: one of {', '.join(QUANTITIES)}")
    return quantity, f"{quantity}_jk", "jk_group_size"


def _what(quantity: str) -> str:
    """What an analysis lacking the variables of ``quantity`` is not, for the error."""
    if quantity == "binder":
        return f"an {MODEL} analysis"
    return f"an {MODEL} analysis with {quantity} (its runs have no qk2)"


def size_of(ds: xr.Dataset) -> int:
    """The size L of an ea3d_pt analysis (its attribute ``L``)."""
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
        group.sort(key=size_of)
        for a, b in zip(group[:-1], group[1:], strict=True):
            if size_of(a) == size_of(b):
                raise ValueError(
                    f"{source_of(a)} and {source_of(b)}: two analyses of L={size_of(a)} on one "
                    "temperature ladder: pass one per size"
                )
    return groups


def _interpolate(T: np.ndarray, d: np.ndarray, i: int) -> np.ndarray:
    """Where the straight line through (T_i, d_i) and (T_(i+1), d_(i+1)) is zero (``d``:
    last axis the temperatures, leading axes replicas)."""
    di, dj = d[..., i], d[..., i + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return T[i] + (T[i + 1] - T[i]) * di / (di - dj)


def _pair_rows(a: xr.Dataset, b: xr.Dataset, quantity: str) -> list[dict[str, Any]]:
    """The crossing rows of ``quantity`` of the sizes ``a`` < ``b`` on one ladder."""
    T = np.asarray(a["T"].values, dtype=float)
    g1, g2 = (np.asarray(x[quantity].values, dtype=float) for x in (a, b))
    y = QUANTITIES[quantity][0]
    d = g1 - g2
    L1, L2 = size_of(a), size_of(b)
    base = {"L1": L1, "L2": L2, "T_min": float(T[0]), "T_max": float(T[-1]),
            "T_cross": math.nan, "T_cross_err": math.nan, "T_lower": math.nan,
            "T_upper": math.nan, "sources": (source_of(a), source_of(b))}  # fmt: skip
    span = f"[{T[0]:g}, {T[-1]:g}]"
    if not np.all(np.isfinite(d)):
        bad = ", ".join(f"{t:g}" for t in T[~np.isfinite(d)])
        return [{**base, "note": f"not determined: {y} is not finite at T = {bad}"}]
    # a sign change in [T_i, T_(i+1)]: d_i on one side of 0, d_(i+1) on the other or at 0
    at = [i for i in range(T.size - 1)
          if (d[i] < 0 <= d[i + 1]) or (d[i] > 0 >= d[i + 1])]  # fmt: skip
    if not at:
        side = ">" if d[0] > 0 else "<" if d[0] < 0 else "="
        return [{**base, "note": f"no crossing in {span}: {y}_{L1} - {y}_{L2} {side} 0 at "
                                 "every ladder temperature"}]  # fmt: skip
    rows = []
    jk1, jk2 = (np.asarray(x[f"{quantity}_jk"].transpose(JK_DIM, "T").values, dtype=float)
                for x in (a, b))  # fmt: skip
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


def crossings(analyses: Sequence[xr.Dataset], quantity: str = "binder") -> list[dict[str, Any]]:
    """The crossings of ``quantity`` ("binder": g, or "xi_over_L": xi_L / L) of successive
    sizes (sorted by L) on the same temperature ladder (analyses on another ladder are
    paired among themselves): one dict per crossing with ``L1``, ``L2``, ``T_cross``,
    ``T_cross_err`` (jackknife, both sizes' variances added), ``T_lower``, ``T_upper`` (the
    ladder temperatures around it), ``T_min``, ``T_max``, ``note`` ("" for a single
    crossing) and ``sources``; a pair whose curves do not cross gives one dict with
    ``T_cross`` NaN and the reason in ``note``.  See the module doc.  ``ValueError`` naming
    the missing variables for an analysis without ``quantity`` or its replicas
    ``<quantity>_jk``, and for two analyses of one size on one ladder."""
    require_variables(analyses, crossing_variables(quantity), _what(quantity))
    rows: list[dict[str, Any]] = []
    for ladder in _ladders(analyses):
        for a, b in zip(ladder[:-1], ladder[1:], strict=True):
            rows += _pair_rows(a, b, quantity)
    return rows


def _require_analyses(datasets: Sequence[xr.Dataset], quantity: str) -> None:
    """``ValueError`` naming the first dataset that is not an ea3d_pt analysis (with
    ``quantity``)."""
    for ds in datasets:
        model = ds.attrs.get("model")
        if model != MODEL:
            raise ValueError(f"{source_of(ds)}: not an {MODEL} analysis (model {model!r})")
    require_variables(datasets, crossing_variables(quantity), _what(quantity))


def crossing_table(paths: Sequence[str | os.PathLike[str]], quantity: str = "binder") -> str:
    """The Markdown table of :func:`crossings` of ``quantity`` of the ea3d_pt analysis
    files ``paths``: L1, L2, T_cross(err) or why there is none, the ladder, the samples, a
    note; for xi_over_L a title line above it (:data:`QUANTITIES`).  ``ValueError`` naming
    the file for one that cannot be read or is not an ea3d_pt analysis (with
    ``quantity``), and for files with no two sizes on one ladder."""
    if not paths:
        raise ValueError("no analysis files given")
    crossing_variables(quantity)
    datasets = load_datasets(paths)
    _require_analyses(datasets, quantity)
    rows = crossings(datasets, quantity)
    if not rows:
        sizes = ", ".join(sorted({str(size_of(d)) for d in datasets}))
        raise ValueError(f"no two sizes on one temperature ladder (L = {sizes}): no crossing")
    samples = {(source_of(d)): n_samples_of(d) for d in datasets}
    head = ["L1", "L2", "T_cross", "ladder", "samples", "note"]
    title = QUANTITIES[quantity][1]
    lines = [] if title is None else [f"{title}:", ""]
    cells = []
    for r in rows:
        if math.isfinite(r["T_cross"]):
            cell, note = value_error_text(r["T_cross"], r["T_cross_err"]), r["note"]
        else:
            cell, note = r["note"], ""
        ladder = f"[{r['T_min']:g}, {r['T_max']:g}]"
        n = "/".join(str(samples[s]) for s in r["sources"])
        cells.append([str(r["L1"]), str(r["L2"]), cell, ladder, n, note])
    return "\n".join(lines + markdown_table(head, cells))
