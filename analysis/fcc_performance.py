"""kelling2012 figures of the fcc alloy KMC engine, from a ``simcore bench fcc --csv`` table.

* Fig. 6 (:func:`make_fig6`): attempts per second of every implementation relative to the
  fastest single-core CPU code, at the initial mixture and at the last stop of the quench.
* Fig. 7 (:func:`make_fig7`): run time of a fixed number of MCS at each stop of the quench
  relative to the run time from the initial mixture, against the open bonds per B
  particle (a measure of relaxation; about eight of twelve at the start for c = 0.325).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence

from matplotlib.figure import Figure

from analysis.ea3d_performance import _read_table
from analysis.figures import new_figure
from simcore.models.fcc.bench import BENCH_FCC_FIELDS

_NUMERIC = {
    "threads": int,
    "L": int,
    "c": float,
    "epsilon": float,
    "block_side": int,
    "t_quench": int,
    "open_bonds": float,
    "mcs": int,
    "seconds": float,
    "attempts_per_s": float,
    "attempts_per_s_min": float,
    "attempts_per_s_max": float,
    "moves_per_attempt": float,
}


def load_fcc_bench(path: str | os.PathLike[str]) -> list[dict]:
    """Rows of an fcc benchmark CSV; ValueError naming the file for a bad table."""
    return _read_table(path, BENCH_FCC_FIELDS, _NUMERIC, "an fcc benchmark table")


def _stages(rows: Sequence[dict]) -> tuple[int, int]:
    """The first and last stop at which the CPU implementations were timed."""
    cpu = sorted({r["t_quench"] for r in rows if r["backend"] == "cpu"})
    if not cpu:
        raise ValueError("the benchmark table has no CPU rows: Fig. 6 needs a single-core one")
    return cpu[0], cpu[-1]


def plot_fig6(rows: Sequence[dict]) -> Figure:
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
    short = [n.replace("sequential", "seq.").replace(", both active", " (both)") for n in names]
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


def plot_fig7(rows: Sequence[dict]) -> Figure:
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
    ax.axhline(1.0, color="0.6", lw=0.6)
    ax.invert_xaxis()
    ax.set_xlabel("open bonds per B particle")
    ax.set_ylabel("run time / run time at t = 0")
    mcs = sorted({r["mcs"] for r in rows})
    ax.set_title(f"runs of {', '.join(map(str, mcs))} MCS along the quench", fontsize="small")
    ax.legend(fontsize="x-small")
    return fig


def _save(fig: Figure, rows: Sequence[dict], csv_path: str, out_base: str) -> list[str]:
    from analysis.figures import save_figure
    from simcore.io.provenance import simcore_version

    prov = {
        "simcore_version": simcore_version(),
        "git_commit": ",".join(sorted({r["commit"] for r in rows})),
        "points": f"{len(rows)} benchmark rows from {os.path.basename(csv_path)}",
        "samples": "1",
        "backend": ",".join(sorted({r["backend"] for r in rows})),
        "device": ",".join(sorted({r["device"] for r in rows})),
    }
    out_dir, name = os.path.split(out_base)
    return [str(p) for p in save_figure(fig, out_dir or ".", name, prov)]


def make_fig6(csv_path: str, out_base: str) -> list[str]:
    """Draw Fig. 6 from a benchmark table; writes ``out_base`` .png and .pdf."""
    rows = load_fcc_bench(csv_path)
    return _save(plot_fig6(rows), rows, csv_path, out_base)


def make_fig7(csv_path: str, out_base: str) -> list[str]:
    """Draw Fig. 7 from a benchmark table; writes ``out_base`` .png and .pdf."""
    rows = load_fcc_bench(csv_path)
    return _save(plot_fig7(rows), rows, csv_path, out_base)
