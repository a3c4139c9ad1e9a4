"""How the kelling2017 figures name and style the points of kpz analyses: the scheme with
its thread-cell configuration (TC) in kelling2017's notation (:func:`scheme_label`), the
legend text that tells the curves of a figure apart (:func:`curve_labels`), and the line
styles, the sequential reference in black first (:func:`curve_styles`,
:func:`reference_first`).  Shared by :mod:`analysis.kelling2017`,
:mod:`analysis.kelling2017_corr`, :mod:`analysis.kelling2017_bench` and the table of
:mod:`analysis.kpz_betafit`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import matplotlib
import numpy as np
import xarray as xr

from analysis.plotting import fmt_number, n_samples_of, source_of

__all__ = [
    "PALETTE",
    "curve_labels",
    "curve_styles",
    "has_block_layer",
    "is_sequential",
    "parse_tc",
    "reference_first",
    "scheme_label",
    "tc_of",
]

# Device-layer part followed by a block-layer part (kelling2017 sec. 3 naming): DTrDT,
# DTrDB, cDBDT, DBDT, DTrDBs, ... ; DTr alone, DB alone or "sequential" have no block layer.
_TWO_LAYER = re.compile(r"^(?:c?DB|DTr?)(?:DTr?|DBs?)$")

#: Colours of the non-reference curves: tab10 without orange (kept for the reference
#: value, as in kelling2017 Fig. 6) and grey; black is the sequential reference.
PALETTE = [c for i, c in enumerate(matplotlib.colormaps["tab10"].colors) if i not in (1, 7)]
_SEQ_MARKERS = ("o", "s", "^", "v", "D")


def has_block_layer(scheme: str) -> bool:
    """True for two-layer schemes (a device part followed by DT or DB, e.g. ``DTrDT``).

    Only those have a thread-cell configuration (TC) worth printing.
    """
    return bool(_TWO_LAYER.match(str(scheme)))


def is_sequential(ds: xr.Dataset) -> bool:
    """True for a point of the sequential reference (scheme ``sequential``)."""
    return str(ds.attrs.get("scheme", "")) == "sequential"


def tc_of(ds: xr.Dataset) -> tuple[int, int] | None:
    """Thread-cell configuration ``(log2 x, log2 y)`` of a two-layer point, else None.

    Accepts the attribute as a pair of integers (netCDF reads a list back as an array)
    or as text such as ``"1,1"``.  Raises ``ValueError`` naming the file when a two-layer
    scheme has no valid ``tc``: its curves could not be told apart.
    """
    scheme = str(ds.attrs.get("scheme", ""))
    if not has_block_layer(scheme):
        return None
    raw = ds.attrs.get("tc")
    if raw is None:
        raise ValueError(f"{source_of(ds)}: scheme {scheme} has a block layer but no attribute tc")
    return parse_tc(raw, f"{source_of(ds)}: attribute tc")


def parse_tc(raw: Any, where: str) -> tuple[int, int]:
    """A thread-cell configuration ``raw`` (text such as ``"1,1"`` or a pair of numbers) as
    two non-negative integers; ``ValueError`` starting with ``where`` otherwise."""
    if isinstance(raw, str):
        vals: list[Any] = re.findall(r"-?\d+(?:\.\d*)?", raw)
    else:
        vals = list(np.ravel(np.asarray(raw)))
    try:
        nums = [float(v) for v in vals]
    except (TypeError, ValueError):
        nums = []
    if len(nums) != 2 or not all(math.isfinite(x) and x == int(x) and x >= 0 for x in nums):
        raise ValueError(f"{where} must be two non-negative integers (TC=x,y), got {raw!r}")
    return int(nums[0]), int(nums[1])


def scheme_label(ds: xr.Dataset) -> str:
    """Scheme, plus ``TC=x,y`` for two-layer schemes (kelling2017 notation)."""
    scheme = str(ds.attrs.get("scheme", "?"))
    tc = tc_of(ds)
    return scheme if tc is None else f"{scheme}, TC={tc[0]},{tc[1]}"


def _fmt_L(L: Any) -> str:
    """``L=2^k`` (as the paper writes system sizes) for powers of two, else ``L=value``."""
    try:
        n = int(L)
    except (TypeError, ValueError):
        return f"L={L}"
    if n > 0 and n & (n - 1) == 0:
        return rf"L=$2^{{{n.bit_length() - 1}}}$"
    return f"L={n}"


def _varies(datasets: Sequence[xr.Dataset], key: str) -> bool:
    return len({str(d.attrs.get(key, "?")) for d in datasets}) > 1


def curve_labels(datasets: Sequence[xr.Dataset], size: bool = True) -> list[str]:
    """Legend text per dataset: scheme (+TC), then whatever tells the curves apart.

    ``t_async`` is added (for parallel points) when it differs between the parallel points,
    p and q and the backend when they differ; ``size`` adds L and the number of samples
    (the paper quotes both, they set the noise level being compared).
    """
    parallel = [d for d in datasets if not is_sequential(d)]
    add_async = _varies(parallel, "t_async")
    add_pq = _varies(datasets, "p") or _varies(datasets, "q")
    add_backend = _varies(datasets, "backend")
    out = []
    for ds in datasets:
        parts = [scheme_label(ds)]
        if add_async and not is_sequential(ds):
            parts.append(rf"$t_{{async}}$={fmt_number(ds.attrs.get('t_async', '?'))}")
        if add_pq:
            p, q = ds.attrs.get("p", "?"), ds.attrs.get("q", "?")
            parts.append(f"p={fmt_number(p)}, q={fmt_number(q)}")
        if add_backend:
            parts.append(str(ds.attrs.get("backend", "?")))
        if size:
            parts += [_fmt_L(ds.attrs.get("L", "?")), f"n={n_samples_of(ds)}"]
        out.append(", ".join(parts))
    return out


def curve_styles(datasets: Sequence[xr.Dataset]) -> list[dict[str, Any]]:
    """Line style per dataset: sequential points black (the reference), others coloured."""
    out = []
    n_seq = n_par = 0
    for ds in datasets:
        if is_sequential(ds):
            out.append(
                {
                    "color": "k",
                    "marker": _SEQ_MARKERS[n_seq % len(_SEQ_MARKERS)],
                    "zorder": 3,
                }
            )
            n_seq += 1
        else:
            out.append({"color": PALETTE[n_par % len(PALETTE)], "marker": "o", "zorder": 2})
            n_par += 1
    return out


def reference_first(datasets: Sequence[xr.Dataset]) -> list[xr.Dataset]:
    """Sequential points first (stable order otherwise): the reference heads the legend."""
    if not datasets:
        raise ValueError("no analysis datasets given")
    return sorted(datasets, key=lambda d: not is_sequential(d))
