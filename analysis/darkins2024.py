"""darkins2024 (Darkins, Duffy, Ford: exact kinetic Monte Carlo in two dimensions on a
GPU): its figures of the exact 2D KMC engine, from ``simcore bench`` tables.

Draw functions (the kmc2d spec's paper figures; ``python -m analysis.papers FIGURE``), each
``draw(inputs, **options) -> (Figure, provenance)``:

* Fig. 2 (:func:`fig2`), from the table of ``simcore bench kmc2d-timestep --csv``: the
  adaptive time step dt over a run of the tile algorithm (by default a 64 x 64 SOS
  lattice, phi = 1, tiles of 8), with the *error zone*: at every step the largest dt that
  the checksums would accept from that state, found by bisection on the CPU twin without
  changing the run.  dt grows by alpha = 1.03 until it crosses the edge of the zone, is
  rejected and halved (after a first phase with alpha = 10).
* Fig. 3 (:func:`fig3`), from the tables of ``simcore bench kmc2d --csv`` and ``simcore
  bench kmc2d-surfaces --csv``, in that order: real events per second of the tile
  algorithm and of serial BKL, and their ratio (the speedup), vs the lattice side n, one
  line per phi; with snapshots of relaxed surfaces for each phi (each layer one colour,
  as in the paper), grown by the serial waiting-time integrator.

The columns each figure needs are named here and read by header (:mod:`analysis.tables`).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import matplotlib.ticker
import numpy as np
from matplotlib.figure import Figure

from analysis.plotting import COLUMN_WIDTH, Drawn, log_tick_labels, new_figure
from analysis.tables import Row, read_table, table_provenance

__all__ = [
    "fig2",
    "fig3",
    "load_kmc2d_bench",
    "load_surfaces",
    "load_timestep_history",
    "plot_fig2",
    "plot_fig3",
]

#: Columns of a ``simcore bench kmc2d --csv`` table that Fig. 3 needs.
BENCH_COLUMNS: dict[str, Callable[[str], Any]] = {
    "n": int, "phi": float, "backend": str, "device": str, "events_per_s": float,
    "cpu": str, "bkl_events_per_s": float, "speedup": float, "commit": str,
}  # fmt: skip
#: Columns of a ``simcore bench kmc2d-timestep --csv`` table (one row per step), Fig. 2.
TIMESTEP_COLUMNS: dict[str, Callable[[str], Any]] = {
    "step": int, "dt": float, "accepted": int, "edge": float, "n": int, "phi": float,
    "tile": int, "seed": int, "commit": str,
}  # fmt: skip
#: Columns of a ``simcore bench kmc2d-surfaces --csv`` table (one row per cell), Fig. 3.
SURFACE_COLUMNS: dict[str, Callable[[str], Any]] = {
    "phi": float, "n": int, "row": int, "col": int, "height": int, "commit": str,
}  # fmt: skip


def load_kmc2d_bench(path: str | os.PathLike[str]) -> list[Row]:
    """Rows of a kmc2d benchmark CSV; ValueError naming the file for a bad table."""
    return read_table(path, BENCH_COLUMNS, "a kmc2d benchmark table")


# -- Fig. 2 ------------------------------------------------------------------------------


def load_timestep_history(path: str | os.PathLike[str]) -> tuple[dict[str, np.ndarray], Row]:
    """The run of a ``simcore bench kmc2d-timestep --csv`` table: ``dt``, ``accepted`` and
    ``edge`` per step (in step order), and the run's settings (its first row: n, phi,
    tile, seed, commit).  ValueError naming the file for a bad table or several runs."""
    rows = read_table(path, TIMESTEP_COLUMNS, "a kmc2d-timestep table")
    runs = sum(r["step"] == 0 for r in rows)
    if runs != 1:
        raise ValueError(
            f"{os.fspath(path)}: holds {runs} runs (rows of step 0), Fig. 2 draws one run"
        )
    rows = sorted(rows, key=lambda r: r["step"])
    data = {
        "dt": np.array([r["dt"] for r in rows]),
        "accepted": np.array([bool(r["accepted"]) for r in rows]),
        "edge": np.array([r["edge"] for r in rows]),
    }
    return data, rows[0]


def plot_fig2(data: dict[str, np.ndarray], n: int = 64, phi: float = 1.0, tile: int = 8) -> Figure:
    """dt per step (line; rejected steps marked) over the shaded error zone, for a run on
    an n x n SOS lattice at ``phi`` with tiles of side ``tile`` (the title)."""
    fig, axes = new_figure(1, 1)
    ax = axes[0, 0]
    step = np.arange(data["dt"].size)
    edge = data["edge"]
    top = max(float(np.max(data["dt"])), float(np.max(edge))) * 3
    ax.fill_between(step, edge, top, color="0.85", step="mid", label="error zone", lw=0)
    ax.plot(step, data["dt"], color="C0", lw=1.0, label=r"$\Delta t$")
    rej = ~data["accepted"]
    ax.plot(step[rej], data["dt"][rej], "x", color="C3", ms=4, label="rejected")
    ax.set_yscale("log")
    ax.set_ylim(float(np.min(data["dt"])) / 2, top)
    ax.set_xlabel("time step")
    ax.set_ylabel(r"$\Delta t$ (units of $1/k_2$)")
    ax.set_title(f"{n} x {n} SOS, $\\phi$ = {phi:g}, tiles of {tile}", fontsize="small")
    ax.legend(loc="lower right", fontsize="small")
    return fig


# -- Fig. 3 ------------------------------------------------------------------------------


def load_surfaces(path: str | os.PathLike[str]) -> tuple[dict[float, np.ndarray], list[Row]]:
    """The relaxed surfaces of a ``simcore bench kmc2d-surfaces --csv`` table: an n x n
    height array per phi, and the rows.  ValueError naming the file where a phi's cells
    do not fill its n x n lattice exactly once (several runs of one phi, a cut table)."""
    rows = read_table(path, SURFACE_COLUMNS, "a kmc2d-surfaces table")
    cells: dict[float, list[Row]] = defaultdict(list)
    for r in rows:
        cells[r["phi"]].append(r)
    surfaces = {}
    for phi, rs in sorted(cells.items()):
        n = rs[0]["n"]
        x = np.full((n, n), -1, dtype=np.int64)
        for r in rs:
            x[r["row"], r["col"]] = r["height"]
        if len(rs) != n * n or (x < 0).any():
            raise ValueError(
                f"{os.fspath(path)}: the {len(rs)} cells of phi = {phi:g} are not one "
                f"{n} x {n} surface"
            )
        surfaces[phi] = x
    return surfaces, rows


def _series(rows: Sequence[Row], key: str) -> dict[float, list[tuple[int, float]]]:
    out: dict[float, list[tuple[int, float]]] = defaultdict(list)
    for r in rows:
        out[r["phi"]].append((r["n"], r[key]))
    return {phi: sorted(v) for phi, v in sorted(out.items())}


def plot_fig3(rows: Sequence[Row], snapshots: dict[float, np.ndarray] | None = None) -> Figure:
    """(a) real events/s of the tile algorithm (solid) and of serial BKL (dashed) vs n;
    (b) their ratio; (c) snapshots per phi (height modulo 20: one colour per layer)."""
    import matplotlib.gridspec as gridspec
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(COLUMN_WIDTH, 6.2), layout="constrained")
    FigureCanvasAgg(fig)
    phis = sorted({r["phi"] for r in rows})
    ncol = max(len(phis), 1)
    gs = gridspec.GridSpec(3, ncol, figure=fig, height_ratios=[2.2, 2.2, 1.3])
    ax_rate = fig.add_subplot(gs[0, :])
    ax_speed = fig.add_subplot(gs[1, :], sharex=ax_rate)
    device = rows[0]["device"] if rows else "?"
    cpu = rows[0]["cpu"] if rows else "?"
    for i, (phi, pts) in enumerate(_series(rows, "events_per_s").items()):
        n = [p[0] for p in pts]
        ax_rate.plot(n, [p[1] for p in pts], "o-", color=f"C{i}", label=rf"$\phi$ = {phi:g}")
        bkl = [p[1] for p in _series(rows, "bkl_events_per_s")[phi]]
        ax_rate.plot(n, bkl, "s--", color=f"C{i}", ms=3, lw=0.8)
        sp = [p[1] for p in _series(rows, "speedup")[phi]]
        ax_speed.plot(n, sp, "o-", color=f"C{i}")
    for ax in (ax_rate, ax_speed):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        log_tick_labels(ax)
    ax_rate.set_ylabel("real events / s")
    ax_rate.set_title(
        f"solid: tile algorithm, {device}\ndashed: serial BKL, {cpu}", fontsize="x-small"
    )
    ax_speed.legend(
        *ax_rate.get_legend_handles_labels(), fontsize="small", ncol=2, loc="lower right"
    )  # the speedup panel has room there
    sizes = sorted({r["n"] for r in rows})
    ax_speed.set_xticks(sizes, [str(n) for n in sizes])
    ax_speed.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax_speed.set_ylabel("speedup over BKL")
    ax_speed.set_xlabel("lattice side n")
    if snapshots:
        for j, phi in enumerate(phis):
            if phi not in snapshots:
                continue
            ax = fig.add_subplot(gs[2, j])
            x = snapshots[phi]
            ax.imshow(x % 20, cmap="tab20", interpolation="nearest", vmin=0, vmax=19)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(rf"$\phi$ = {phi:g}", fontsize="small")
    return fig


def fig2(inputs: Sequence[str]) -> Drawn:
    """darkins2024 Fig. 2 (:func:`plot_fig2`) from the table of ``simcore bench
    kmc2d-timestep --csv`` (one run), with its provenance."""
    (path,) = inputs
    data, run = load_timestep_history(path)
    fig = plot_fig2(data, n=run["n"], phi=run["phi"], tile=run["tile"])
    points = (
        f"{run['n']}x{run['n']} sos phi={run['phi']:g} tile {run['tile']} seed {run['seed']} "
        f"(CPU twin), {data['dt'].size} time steps"
    )
    prov = table_provenance([path], [run], points, "1")
    return fig, {**prov, "backend": "cpu", "device": "cpu"}


def fig3(inputs: Sequence[str]) -> Drawn:
    """darkins2024 Fig. 3 (:func:`plot_fig3`) from the tables of ``simcore bench kmc2d
    --csv`` (the speeds) and ``simcore bench kmc2d-surfaces --csv`` (the pictures), in
    that order, with their provenance."""
    bench_path, surfaces_path = inputs
    rows = load_kmc2d_bench(bench_path)
    snapshots, cells = load_surfaces(surfaces_path)
    points = f"{len(rows)} (n, phi) benchmark rows; surfaces of phi = " + ", ".join(
        f"{phi:g}" for phi in snapshots
    )
    prov = table_provenance([bench_path, surfaces_path], [*rows, *cells], points, "1")
    return plot_fig3(rows, snapshots), prov
