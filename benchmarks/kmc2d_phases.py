"""Where a step of the kmc2d tile kernel spends its time, per block and phase.

Builds the advance kernel with -DKMC2D_PHASES=1 (thread 0 of every block writes the global
timer at its start, after the plan, after the setup, after the event phase and at its
end; with --per-event, =2, the event threads also count their events and the SM cycles of
an event's parts, which costs registers and so changes the timing), relaxes an n x n SOS
surface as ``simcore bench kmc2d`` does, and then times ``steps`` production steps one by
one.

Per phi it prints: ms per step; per live block the mean time of each phase and of its
life; blocks resident per SM (the blocks' lives summed over the step's span and the
SMs); the events a live block fired; and what the step would take without its event
phases at the same residency.  Usage (on a GPU):

    python3 benchmarks/kmc2d_phases.py N STEPS PHI [PHI ...] [--per-event] [--dpb D] [--nt T]
        [--tile B] [--halo H]
"""

from __future__ import annotations

import argparse

import cupy as cp
import numpy as np

from simcore.backends.cuda import load_module
from simcore.models.kmc2d.bench import GpuTiles, relax_run
from simcore.models.kmc2d.gpu import (
    COMPILE_EXTRA,
    CUDA_SOURCE,
    DEFAULT_DPB,
    DEFAULT_NT,
    TileKernel,
    compile_defines,
)
from simcore.models.kmc2d.rates import SOS, rate_tables
from simcore.models.kmc2d.serial import initial_times


def instrumented(
    k: TileKernel, dpb: int, nt: int, level: int, extra: tuple[str, ...] = ()
) -> cp.ndarray:
    """Swap the kernel's advance for the instrumented build (``level`` 1 or 2, with
    ``extra`` -D options); the per-block record."""
    defs = compile_defines(k.B, k.model, dpb, nt, halo=k.halo)
    defs += (f"-DKMC2D_PHASES={level}", *extra)
    mod = load_module(CUDA_SOURCE, defs, COMPILE_EXTRA)
    k._advance = mod.get_function("kmc2d_advance")
    k._advance.max_dynamic_shared_size_bytes = k.smem
    blocks = (k.ntiles + dpb - 1) // dpb * k.samples
    rec = cp.zeros((blocks, 16), dtype=cp.uint64)
    ptr = mod.get_global("kmc2d_phases")
    cp.ndarray((1,), cp.uint64, memptr=ptr)[:] = rec.data.ptr
    return rec


def profile(
    n: int,
    phi: float,
    steps: int,
    dpb: int,
    nt: int,
    relax: float = 2.0,
    measure: float = 5.0,
    extra: tuple[str, ...] = (),
    level: int = 1,
    tile: int = 8,
    halo: int | None = None,
) -> dict:
    """Phase times of the first ``steps`` steps of a production run of ``measure`` events
    per cell after ``relax`` events per cell (the protocol of ``simcore bench kmc2d``)."""
    inv, ratio = rate_tables(SOS, (1.0, phi))
    x = np.zeros((n, n), dtype=np.int32)
    tau, cnt = initial_times(x, SOS, inv, 0, 1, 0)
    run = GpuTiles(x, tau, cnt, tile, inv, ratio, 1, dpb, nt, halo)
    t = relax_run(run, n * n, relax)
    k = run.kern
    rec = instrumented(k, dpb, nt, level, extra)
    nsm = cp.cuda.Device().attributes["MultiProcessorCount"]
    # production as in the bench: up to `measure` more events per cell, at most `steps` steps
    speed = int(k.events[0]) / (n * n * t)
    target = t + measure / speed
    k.active[:] = 1
    k._control_launch(0, target)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    rows = []
    while len(rows) < steps and int(k.active[0]):
        rec[:] = 0
        start.record()
        k._step()
        stop.record()
        stop.synchronize()
        ms = cp.cuda.get_elapsed_time(start, stop)
        k._control_launch(1, target)
        r = rec.get().astype(np.int64)
        live = r[:, 6] > 0
        life = r[:, 4] - r[:, 0]
        span = r[:, 4].max() - r[:, 0].min()
        ph = np.diff(r[:, :5], axis=1)[live]  # plan, setup, events, store
        rows.append(
            {
                "ms": ms,
                "live_blocks": live.mean(),
                "plan": ph[:, 0].mean(),
                "setup": ph[:, 1].mean(),
                "events": ph[:, 2].mean(),
                "store": ph[:, 3].mean(),
                "life_live": life[live].mean(),
                "life_dead": life[~live].mean() if (~live).any() else 0.0,
                "resident": life.sum() / (span * nsm),
                "ev_block": r[live, 7].mean(),
                "no_event_ms": (life.sum() - ph[:, 2].sum()) / life.sum() * span / 1e6,
                "span_ms": span / 1e6,
                # SM cycles per event: next-event search, firing, list or tree update
                **{
                    name: r[live, 8 + j].sum() / max(r[live, 7].sum(), 1)
                    for j, name in enumerate(("c_search", "c_fire", "c_update"))
                },
                "list_share": r[live, 11].sum() / max(r[live, 7].sum(), 1),
                "overflows": r[live, 12].sum(),
            }
        )
    return {key: float(np.median([row[key] for row in rows])) for key in rows[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("steps", type=int)
    ap.add_argument("phi", type=float, nargs="+")
    ap.add_argument("--dpb", type=int, default=DEFAULT_DPB)
    ap.add_argument("--nt", type=int, default=DEFAULT_NT)
    ap.add_argument("-D", dest="defines", action="append", default=[], help="extra -D option")
    ap.add_argument("--per-event", action="store_true", help="also count events and cycles")
    ap.add_argument("--tile", type=int, default=8, help="tile side B (default 8)")
    ap.add_argument("--halo", type=int, default=None, help="cells of halo (default B - 1)")
    args = ap.parse_args()
    cols = ("ms", "span_ms", "live_blocks", "plan", "setup", "events", "store", "life_live",
            "life_dead", "resident", "ev_block", "no_event_ms", "c_search", "c_fire", "c_update",
            "list_share", "overflows")  # fmt: skip
    print("phi " + " ".join(f"{c:>11}" for c in cols), flush=True)
    for phi in args.phi:
        extra = tuple(f"-D{d}" for d in args.defines)
        level = 2 if args.per_event else 1
        r = profile(args.n, phi, args.steps, args.dpb, args.nt, extra=extra, level=level,
                    tile=args.tile, halo=args.halo)  # fmt: skip
        print(f"{phi:3g} " + " ".join(f"{r[c]:11.4g}" for c in cols), flush=True)
    print(
        "(medians over the steps; phase and life times in ns per live block; c_*: SM cycles"
        " per event of its parts, summed over a warp's event lanes; list_share: of the events"
        " fired in list mode; overflows: lists that filled up in the step)"
    )


if __name__ == "__main__":
    main()
