"""kelling2017 Fig. 7 (and kelling2012 Figs. 4, 5): the performance of the DD schemes from
the table of ``simcore bench dd --csv`` (:func:`load_bench_table`), drawn by
:func:`plot_performance` with the provenance of :func:`bench_provenance`; the paper's draw
function is :func:`analysis.kelling2017.performance`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analysis.kelling2017_labels import PALETTE, has_block_layer, parse_tc
from analysis.plotting import COLUMN_WIDTH, PANEL_HEIGHT, STYLE
from analysis.tables import read_table, table_provenance

__all__ = [
    "BENCH_COLUMNS",
    "BenchRow",
    "bench_provenance",
    "load_bench_table",
    "plot_performance",
]


@dataclass(frozen=True)
class BenchRow:
    """One benchmark measurement (a row of the CSV table)."""

    scheme: str
    tc: tuple[int, int] | None  # None unless the scheme has a block layer
    p: float
    q: float
    L: int
    backend: str
    device: str
    attempts_per_ns: float
    seconds_per_mcs: float
    simcore_version: str = ""
    git_commit: str = ""

    def config(self) -> tuple[str, tuple[int, int] | None, float, float, str, str]:
        """What one performance curve is drawn for: scheme, TC, p, q, backend, device."""
        return (self.scheme, self.tc, self.p, self.q, self.backend, self.device)


def _number(col: str, integer: bool = False) -> Callable[[str], float]:
    """The converter of a numeric column: probabilities may be 0, sizes, rates and times
    must be positive; every value finite (and an integer where ``integer``)."""
    zero_ok = col in ("p", "q")

    def convert(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise ValueError(f"column {col}: {text!r} is not a number") from None
        if not math.isfinite(x) or x < 0 or (x == 0 and not zero_ok):
            raise ValueError(f"column {col}: {text!r} is out of range")
        if integer and x != int(x):
            raise ValueError(f"column {col}: {text!r} is not an integer")
        return x

    return convert


#: The columns of a ``simcore bench dd --csv`` table that the performance figure needs,
#: with their converters (other columns are ignored, except the optional provenance
#: columns ``simcore_version`` and ``commit``).
_BENCH_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "scheme": str,
    "tc": str,
    "p": _number("p"),
    "q": _number("q"),
    "L": _number("L", integer=True),
    "backend": str,
    "device": str,
    "attempts_per_ns": _number("attempts_per_ns"),
    "seconds_per_mcs": _number("seconds_per_mcs"),
}
BENCH_COLUMNS = tuple(_BENCH_CONVERTERS)


def load_bench_table(path: str | os.PathLike[str]) -> list[BenchRow]:
    """Read a benchmark CSV of ``simcore bench dd`` (columns ``BENCH_COLUMNS`` by header;
    one row per measurement).

    ``tc`` may be written as ``"1,1"`` (quoted), ``1;1``, ``[1, 1]`` or left empty; it is
    kept only for two-layer schemes (elsewhere it means nothing and would split curves).
    Raises ``ValueError`` naming the file (and row) for a missing column, a bad value or
    an empty table (:func:`analysis.tables.read_table`).
    """
    p = os.fspath(path)
    rows: list[BenchRow] = []
    for i, rec in enumerate(read_table(p, _BENCH_CONVERTERS, "a benchmark table"), start=1):
        where = f"{p}, data row {i}"
        scheme = rec["scheme"]
        if not scheme:
            raise ValueError(f"{where}: column scheme is empty")
        tc: tuple[int, int] | None = None
        if has_block_layer(scheme):
            if rec["tc"].lower() in ("", "-", "none", "nan"):
                raise ValueError(f"{where}: scheme {scheme} has a block layer but tc is empty")
            tc = parse_tc(rec["tc"], f"{where}: column tc")
        rows.append(
            BenchRow(
                scheme=scheme,
                tc=tc,
                p=rec["p"],
                q=rec["q"],
                L=int(rec["L"]),
                backend=rec["backend"],
                device=rec["device"],
                attempts_per_ns=rec["attempts_per_ns"],
                seconds_per_mcs=rec["seconds_per_mcs"],
                simcore_version=rec.get("simcore_version", ""),
                git_commit=rec.get("git_commit") or rec.get("commit", ""),
            )
        )
    return rows


def _bench_label(cfg: tuple[str, tuple[int, int] | None, float, float, str, str]) -> str:
    scheme, tc, p, q, backend, device = cfg
    head = scheme if tc is None else f"{scheme}, TC={tc[0]},{tc[1]}"
    return f"{head}, p={p:g}, q={q:g}, {device or backend}"


def _bench_groups(
    table: Sequence[BenchRow],
) -> dict[tuple[str, tuple[int, int] | None, float, float, str, str], list[BenchRow]]:
    groups: dict[tuple[str, tuple[int, int] | None, float, float, str, str], list[BenchRow]] = {}
    for row in table:
        groups.setdefault(row.config(), []).append(row)
    return groups


def _median_min_max(
    rows: Sequence[BenchRow], field: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per L (ascending): L, median of ``field``, and the (below, above) min-max bar."""
    sizes = sorted({r.L for r in rows})
    med, bars = [], []
    for L in sizes:
        vals = np.array([getattr(r, field) for r in rows if r.L == L], dtype=float)
        m = float(np.median(vals))
        med.append(m)
        bars.append((m - vals.min(), vals.max() - m))
    return np.array(sizes, dtype=float), np.array(med), np.array(bars).T


def plot_performance(table: Sequence[BenchRow]) -> Figure:
    """kelling2017 Fig. 7 / kelling2012 Figs. 4, 5: throughput and run time vs L.

    Left: update attempts per ns vs L (log2 x; log y when the values span more than a
    decade, e.g. CPU and GPU together).  Right: seconds per MCS vs L, log-log.  One line
    per (scheme, TC, p, q, device): the median over repeated measurements, bars from the
    minimum to the maximum (shared machines scatter; the spread is shown, not hidden).
    """
    if not table:
        raise ValueError("empty benchmark table")
    groups = _bench_groups(table)
    height = PANEL_HEIGHT + 0.14 * len(groups)
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(COLUMN_WIDTH, height), layout="constrained")
        FigureCanvasAgg(fig)
        left, right = fig.subplots(1, 2, squeeze=True)
        for n, (cfg, rows) in enumerate(groups.items()):
            style = {"color": PALETTE[n % len(PALETTE)], "marker": "o"}
            label = _bench_label(cfg)
            for ax, field in ((left, "attempts_per_ns"), (right, "seconds_per_mcs")):
                x, med, bars = _median_min_max(rows, field)
                ax.errorbar(x, med, yerr=bars, label=label, **style)
        rates = np.array([r.attempts_per_ns for r in table])
        for ax in (left, right):
            ax.set_xscale("log", base=2)
            ax.set_xlabel("L [sites]")
        if rates.max() / rates.min() > 10:
            left.set_yscale("log")
        right.set_yscale("log")
        left.set_ylabel("update attempts / ns")
        right.set_ylabel("run time / MCS [s]")
        handles, labels = left.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=1, fontsize=6)
    return fig


def bench_provenance(path: str | os.PathLike[str], table: Sequence[BenchRow]) -> dict[str, str]:
    """Provenance of a performance figure, in the keys of
    :func:`analysis.plotting.save_figure` (:func:`analysis.tables.table_provenance`).

    Commits, backends and devices come from the table; the version from its optional
    column ``simcore_version`` (else the commit names the code); 'points' lists the
    configurations after the source file, 'samples' the measurements per configuration.
    """
    groups = _bench_groups(table)
    rows = [{"commit": r.git_commit, "backend": r.backend, "device": r.device} for r in table]
    points = "; ".join(_bench_label(c) for c in groups)
    samples = ", ".join(str(len(members)) for members in groups.values())
    prov = table_provenance([path], rows, points, samples)
    versions = ", ".join(sorted({r.simcore_version for r in table if r.simcore_version}))
    return {**prov, "simcore_version": versions or prov["simcore_version"]}
