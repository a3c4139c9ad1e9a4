"""The timed jobs of ``simcore bench kmc2d-cpu`` (:mod:`simcore.models.kmc2d.bench_cpu`):
one CPU job of a run config timed over its advances on some of numba's threads, a run
config under another scheme, and the pool of one-core worker processes that run a job's
samples side by side."""

from __future__ import annotations

import time

import numpy as np

from simcore.checks import ConfigError


def job_speed(cfg: dict, threads: int) -> tuple[int, float, float]:
    """(real events, wall seconds, CPU seconds of all threads) of one CPU job run from
    t = 0 to t_max on ``threads`` of numba's threads: the job's own integrator
    (``KMC2DSimulation``, as ``simcore run`` runs it), timed over its advances only (no
    start, no measurements; the wall seconds are the ``wall`` of its state)."""
    import numba

    from simcore.models.kmc2d.simulation import KMC2DSimulation

    numba.set_num_threads(threads)
    try:
        sim = KMC2DSimulation(cfg)
        advance, used = sim._advance, [0.0]

        def timed(st: dict, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            start = time.process_time()
            out = advance(st, targets)
            used[0] += time.process_time() - start
            return out

        sim._advance = timed
        st = sim.initial_state()
        while not sim.done(st):
            sim.step(st)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return int(st["events"].sum()), float(st["wall"][-1]), used[0]


#: A job that compiles (or loads from the cache) every CPU integrator of a scheme.
WARM = {"model": "kmc2d", "rates": "sos", "L": 24, "phi": 1.0, "samples": 2, "t_max": 2,
         "seed": 1}  # fmt: skip
_BARRIER = None


def _pool_start(barrier) -> None:
    """A worker process of the one-core runs: compile BKL, keep the start barrier."""
    global _BARRIER
    _BARRIER = barrier
    job_speed(with_scheme(WARM, "bkl"), 1)


def _pool_run(cfg: dict) -> tuple[int, float, float]:
    """One one-core job in a worker process, started with the other workers' jobs."""
    _BARRIER.wait()
    return job_speed(cfg, 1)


def one_core_pool(processes: int):
    """A pool of ``processes`` spawned worker processes for :func:`run_side_by_side`
    (each compiles BKL first); the caller closes and joins it."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    return ctx.Pool(processes, _pool_start, (ctx.Barrier(processes),))


def run_side_by_side(pool, cfg: dict, n: int) -> tuple[int, float, float] | None:
    """``cfg``'s samples split among ``n`` one-core processes of ``pool``
    (:func:`one_core_pool` of ``n``), all started together: (real events, wall seconds of
    the last to finish, CPU seconds of all); None where the job has fewer than ``n``
    samples."""
    parts = split_job(cfg, n)
    if len(parts) < n:
        return None
    done = pool.map(_pool_run, parts, chunksize=1)
    return sum(d[0] for d in done), max(d[1] for d in done), sum(d[2] for d in done)


def split_job(cfg: dict, n: int) -> list[dict]:
    """``cfg``'s samples as n jobs of one core each (other seeds: other samples)."""
    S = int(cfg["samples"])
    shares = [S // n + (i < S % n) for i in range(n)]
    return [{**cfg, "samples": k, "seed": int(cfg["seed"]) + i}
            for i, k in enumerate(shares) if k > 0]  # fmt: skip


def with_scheme(cfg: dict, scheme: str) -> dict | None:
    """The run config ``cfg`` under another scheme (tiles of 8), or None where that
    scheme cannot run it (tiles: L not a multiple of 8 >= 24)."""
    from simcore.models.runconfig import validate_run_config

    raw = {k: v for k, v in cfg.items() if k not in ("scheme", "tile")}
    try:
        return validate_run_config({**raw, "scheme": scheme})
    except ConfigError:
        return None
