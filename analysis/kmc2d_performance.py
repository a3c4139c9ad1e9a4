"""darkins2024 figures of the exact 2D KMC engine.

* Fig. 2 (:func:`make_fig2`): the adaptive time step dt over a run of the tile algorithm
  (64 x 64 SOS lattice, phi = 1, tiles of 8), with the *error zone*: at every step the
  largest dt that the checksums would accept from that state, found by bisection on
  the CPU twin without changing the run.  dt grows by alpha = 1.03 until it crosses the
  edge of the zone, is rejected and halved (after a first phase with alpha = 10).
* Fig. 3 (:func:`make_fig3`): from a ``simcore bench kmc2d --csv`` table, real events per
  second of the tile algorithm and of serial BKL, and their ratio (the speedup), vs the
  lattice side n, one line per phi; with 64 x 64 snapshots of relaxed surfaces for each
  phi (each layer one colour, as in the paper), computed here with the serial
  waiting-time integrator.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence

import matplotlib.ticker
import numpy as np
from matplotlib.figure import Figure

from analysis.ea3d_performance import _read_table
from analysis.figures import COLUMN_WIDTH, log_tick_labels, new_figure
from simcore.models.kmc2d.bench import BENCH_KMC2D_FIELDS

_NUMERIC = {
    "n": int,
    "phi": float,
    "tile": int,
    "events_per_s": float,
    "events_per_s_min": float,
    "events_per_s_max": float,
    "accepted": int,
    "rejected": int,
    "events_per_tile_step": float,
    "step_density": float,
    "bkl_events_per_s": float,
    "speedup": float,
}


def load_kmc2d_bench(path: str | os.PathLike[str]) -> list[dict]:
    """Rows of a kmc2d benchmark CSV; ValueError naming the file for a bad table."""
    return _read_table(path, BENCH_KMC2D_FIELDS, _NUMERIC, "a kmc2d benchmark table")


# -- Fig. 2 ------------------------------------------------------------------------------


def fig2_data(
    n: int = 64,
    phi: float = 1.0,
    tile: int = 8,
    steps: int = 160,
    seed: int = 1,
    bisections: int = 9,
) -> dict[str, np.ndarray]:
    """dt of each step of a tile-algorithm run from a flat start (``dt``, ``accepted``) and
    the edge of the error zone before each step (``edge``: the largest accepted dt, to
    a relative precision of 64^(2^-bisections), searched in [dt / 8, 8 dt])."""
    from simcore.models.kmc2d.rates import SOS, rate_tables
    from simcore.models.kmc2d.serial import initial_times
    from simcore.models.kmc2d.tiles import (
        StepControl,
        TileIntegrator,
        advance,
        checksums_agree,
        first_dt,
    )

    inv, ratio = rate_tables(SOS, (1.0, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    ctl = StepControl(t=0.0, dt=first_dt(tau, 0.0))
    run = TileIntegrator(x, tau, cnt, tile, SOS, inv, ratio, 0, seed, 0, ctl)
    scratch = (np.empty_like(x), np.empty_like(tau), np.empty_like(cnt))

    def accepted(dt: float) -> bool:
        advance(
            run.x,
            run.tau,
            run.cnt,
            *scratch,
            ctl.t,
            ctl.t + dt,
            tile,
            SOS,
            inv,
            ratio,
            0,
            seed,
            0,
            run.sums,
        )
        return bool(checksums_agree(run.sums, run.nt))

    dts, oks, edges = [], [], []
    for _ in range(steps):
        lo, hi = ctl.dt / 8, ctl.dt * 8
        if not accepted(lo):
            lo = 0.0
        elif accepted(hi):
            lo = hi
        else:
            for _ in range(bisections):  # geometric bisection: lo accepted, hi rejected
                mid = (lo * hi) ** 0.5
                lo, hi = (mid, hi) if accepted(mid) else (lo, mid)
        edges.append(lo)
        t_end, cut = ctl.end_of_step(np.inf)
        ok, events = run.try_step(t_end)
        ctl.settle(t_end, cut, ok)
        dts.append(ctl.history[-1][0])
        oks.append(ok)
    return {"dt": np.array(dts), "accepted": np.array(oks), "edge": np.array(edges)}


def plot_fig2(data: dict[str, np.ndarray], n: int = 64, phi: float = 1.0) -> Figure:
    """dt per step (line; rejected steps marked) over the shaded error zone."""
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
    ax.set_title(f"{n} x {n} SOS, $\\phi$ = {phi:g}, tiles of 8", fontsize="small")
    ax.legend(loc="lower right", fontsize="small")
    return fig


def make_fig2(out_base: str) -> list[str]:
    """Compute and draw Fig. 2; writes ``out_base`` .png and .pdf, returns the paths."""
    from analysis.figures import save_figure
    from simcore.io.provenance import git_commit, simcore_version

    data = fig2_data()
    fig = plot_fig2(data)
    prov = {
        "simcore_version": simcore_version(),
        "git_commit": git_commit() or "n/a",
        "points": "64x64 sos phi=1 tile 8 (CPU twin)",
        "samples": "1",
        "backend": "cpu",
        "device": "cpu",
    }
    out_dir, name = os.path.split(out_base)
    return [str(p) for p in save_figure(fig, out_dir or ".", name, prov)]


# -- Fig. 3 ------------------------------------------------------------------------------


def relaxed_surface(phi: float, n: int = 64, events_per_cell: float = 300.0, seed: int = 3):
    """An n x n SOS surface grown from flat by the serial integrator until it holds
    ``events_per_cell`` atoms per column on average."""
    from simcore.models.kmc2d.rates import SOS, rate_tables
    from simcore.models.kmc2d.serial import initial_times, serial_run

    inv, ratio = rate_tables(SOS, (1.0, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, seed, 0)
    t = 0.0
    while x.mean() < events_per_cell:
        t_to = max(2 * t, 1.0)
        serial_run(x, tau, cnt, t, t_to, SOS, inv, ratio, 0, seed, 0)
        t = t_to
    return x


def _series(rows: Sequence[dict], key: str) -> dict[float, list[tuple[int, float]]]:
    out: dict[float, list[tuple[int, float]]] = defaultdict(list)
    for r in rows:
        out[r["phi"]].append((r["n"], r[key]))
    return {phi: sorted(v) for phi, v in sorted(out.items())}


def plot_fig3(rows: Sequence[dict], snapshots: dict[float, np.ndarray] | None = None) -> Figure:
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
    ax_rate.legend(fontsize="small", ncol=2)
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


def make_fig3(csv_path: str, out_base: str) -> list[str]:
    """Draw Fig. 3 from a benchmark table; writes ``out_base`` .png and .pdf."""
    from analysis.figures import save_figure
    from simcore.io.provenance import simcore_version

    rows = load_kmc2d_bench(csv_path)
    snaps = {phi: relaxed_surface(phi) for phi in sorted({r["phi"] for r in rows})}
    fig = plot_fig3(rows, snaps)
    commits = sorted({r["commit"] for r in rows})
    prov = {
        "simcore_version": simcore_version(),
        "git_commit": ",".join(commits),
        "points": f"{len(rows)} (n, phi) benchmark rows from {os.path.basename(csv_path)}",
        "samples": "1",
        "backend": ",".join(sorted({r["backend"] for r in rows})),
        "device": ",".join(sorted({r["device"] for r in rows})),
    }
    out_dir, name = os.path.split(out_base)
    return [str(p) for p in save_figure(fig, out_dir or ".", name, prov)]
