"""kelling2012 (Kelling, Odor, Nagy, Schulz, Heinig, Eur. Phys. J. Spec. Top. 210, 175
(2012)): its figures of the fcc alloy KMC engine, from a ``simcore bench fcc --csv`` table.

Draw functions (the fcc spec's paper figures; ``python -m analysis.papers FIGURE``), each
``draw(inputs, **options) -> (Figure, provenance)`` with the one table as input:

* Fig. 6 (:func:`fig6`): attempts per second of every implementation relative to the
  fastest single-core CPU code, at the initial mixture and at the last stop of the quench.
* Fig. 7 (:func:`fig7`): run time of a fixed number of MCS at each stop of the quench
  relative to the run time from the initial mixture, against the open bonds per B
  particle (a measure of relaxation; about eight of twelve at the start for c = 0.325).

The columns the figures need are named here and read by header (:mod:`analysis.tables`).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from matplotlib.figure import Figure

from analysis.plotting import Drawn, guide_style, new_figure
from analysis.tables import Row, read_table, table_provenance

__all__ = ["fig6", "fig7", "load_fcc_bench", "plot_fig6", "plot_fig7"]

#: Columns of a ``simcore bench fcc --csv`` table the figures need.
FCC_COLUMNS: dict[str, Callable[[str], Any]] = {
    "implementation": str, "backend": str, "device": str, "threads": int, "L": int,
    "c": float, "epsilon": float, "t_quench": int, "open_bonds": float, "mcs": int,
    "seconds": float, "attempts_per_s": float, "commit": str,
}  # fmt: skip


def load_fcc_bench(path: str | os.PathLike[str]) -> list[Row]:
    """Rows of an fcc benchmark CSV; ValueError naming the file for a bad table."""
    return read_table(path, FCC_COLUMNS, "an fcc benchmark table")


def _stages(rows: Sequence[Row]) -> tuple[int, int]:
    """The first and last stop at which the CPU implementations were timed."""
    cpu = sorted({r["t_quench"] for r in rows if r["backend"] == "cpu"})
    if not cpu:
        raise ValueError("the benchmark table has no CPU rows: Fig. 6 needs a single-core one")
    return cpu[0], cpu[-1]


def _short(name: str) -> str:
    """An implementation's name short enough for a tick label of a one-column figure."""
    for long, short in (
        ("sequential", "seq."),
        (", both active", " (both)"),
        ("blocks ahead of time", "ahead"),
        (" samples per launch", " samples"),
    ):
        name = name.replace(long, short)  # fmt: skip
    return name


def plot_fig6(rows: Sequence[Row]) -> Figure:
    """Horizontal bars: speed relative to the fastest single-core implementation, early
    (initial mixture) and late (last stop), log scale, with the absolute rates written."""
    early, late = _stages(rows)
    names = list(dict.fromkeys(r["implementation"] for r in rows if r["t_quench"] in (early, late)))
    fig, axes = new_figure(1, 1, height=0.45 * len(names) + 1.2)
    ax = axes[0, 0]
    for k, (stage, label) in enumerate(((early, "early"), (late, "late"))):
        at = {r["implementation"]: r for r in rows if r["t_quench"] == stage}
        single = [r for r in at.values() if r["backend"] == "cpu" and r["threads"] == 1]
        ref = max(r["attempts_per_s"] for r in single)
        y = [i - 0.2 + 0.4 * k for i in range(len(names))]
        vals = [at[n]["attempts_per_s"] / ref if n in at else 0.0 for n in names]
        ob = next(iter(at.values()))["open_bonds"]
        lab = f"{label}: t = {stage} MCS, {ob:.2f} open bonds per B"
        ax.barh(y, vals, height=0.38, color=f"C{k}", label=lab)
        for yy, n in zip(y, names, strict=True):
            if n in at:
                ax.text(at[n]["attempts_per_s"] / ref * 1.1, yy, f"{at[n]['attempts_per_s']:.2g}/s",
                        va="center", fontsize="x-small")  # fmt: skip
    short = [_short(n) for n in names]
    ax.set_yticks(range(len(names)), short, fontsize="x-small")
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("speed / fastest single core")
    r0 = rows[0]
    ax.set_title(
        f"fcc alloy, L = {r0['L']},\n" rf"c = {r0['c']:g}, $\varepsilon$ = {r0['epsilon']:g}",
        fontsize="small",
    )
    ax.set_xlim(right=ax.get_xlim()[1] * 8)
    fig.legend(fontsize="x-small", loc="outside lower center")
    return fig


def plot_fig7(rows: Sequence[Row]) -> Figure:
    """Run time of each stop relative to the initial state vs open bonds per B, one line
    per implementation (those timed at two or more stops)."""
    series: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    for r in rows:
        series[r["implementation"]].append((r["open_bonds"], r["seconds"], r["t_quench"]))
    fig, axes = new_figure(1, 1)
    ax = axes[0, 0]
    for i, (name, pts) in enumerate(series.items()):
        pts.sort(key=lambda p: p[2])
        if len(pts) < 2:
            continue
        base = pts[0][1]
        ax.plot([p[0] for p in pts], [p[1] / base for p in pts], "o-", color=f"C{i}", label=name)
    ax.axhline(1.0, **guide_style(color="0.6", linestyle="-", linewidth=0.6))  # above the data
    ax.invert_xaxis()
    ax.set_xlabel("open bonds per B particle")
    ax.set_ylabel("run time / run time at t = 0")
    mcs = sorted({r["mcs"] for r in rows})
    ax.set_title(f"runs of {', '.join(map(str, mcs))} MCS along the quench", fontsize="small")
    ax.legend(fontsize="x-small")
    return fig


def _drawn(plot: Callable[[Sequence[Row]], Figure], inputs: Sequence[str]) -> Drawn:
    """A figure from the one table of ``simcore bench fcc --csv``, with its provenance."""
    (path,) = inputs
    rows = load_fcc_bench(path)
    points = f"{len(rows)} benchmark rows"
    return plot(rows), table_provenance([path], rows, points, f"{len(rows)} measurements")


def fig6(inputs: Sequence[str]) -> Drawn:
    """kelling2012 Fig. 6 (:func:`plot_fig6`) from a ``simcore bench fcc`` table."""
    return _drawn(plot_fig6, inputs)


def fig7(inputs: Sequence[str]) -> Drawn:
    """kelling2012 Fig. 7 (:func:`plot_fig7`) from a ``simcore bench fcc`` table."""
    return _drawn(plot_fig7, inputs)
