"""Sampling times: t = 0, log-spaced integer times, every waiting time and t_max; and how
far one bounded step goes toward the next of them."""

from __future__ import annotations

import math

import numpy as np


def sampling_times(t_max: int, points_per_decade: int, waiting_times: list[int]) -> np.ndarray:
    """Sorted unique int64 times in MCS at which observables are recorded.

    Log-spaced so that effective exponents (local slopes in log-log) have evenly
    spaced support; the waiting times are included so C(t, s) starts at t = s.
    """
    n = int(np.ceil(np.log10(t_max) * points_per_decade)) + 1 if t_max > 1 else 1
    grid = np.unique(np.rint(np.logspace(0.0, np.log10(t_max), max(n, 1))).astype(np.int64))
    extra = np.array([0, t_max, *waiting_times], dtype=np.int64)
    return np.unique(np.concatenate([grid, extra]))


def n_times_estimate(t_max: int, points_per_decade: int, n_waiting: int) -> int:
    """Upper estimate of the number of sampling times (log grid + waiting times + 0, t_max),
    for a job's memory estimate."""
    return int(points_per_decade * math.log10(max(t_max, 1))) + n_waiting + 3


def bounded_step_end(t: int, t_to: int, attempts_per_unit: int, budget: int) -> int:
    """Where a step from time ``t`` toward the sampling time ``t_to`` ends: after at most
    ``budget`` update attempts (whole time units of ``attempts_per_unit`` each), and at
    least one unit.  Log-spaced sampling times lie far apart at late times (the last
    interval of a grid to 10^5 at 4 points per decade is 44 % of the run, minutes of a
    GPU); a bounded step lets the runner stop at its wall limit, checkpoint or Ctrl-C
    within seconds."""
    return min(int(t_to), int(t) + max(1, int(budget) // max(1, int(attempts_per_unit))))


def time_reached(st: dict, times: np.ndarray) -> int:
    """The time a job's update has reached: the state's ``t_now`` where the job's steps
    stop between sampling times (:func:`bounded_step_end`), else (a job or checkpoint
    without it) the last sampling time done, ``times[ti - 1]``, or 0."""
    if "t_now" in st:
        return int(st["t_now"])
    ti = int(st["ti"])
    return int(times[ti - 1]) if ti > 0 else 0


def step_toward_sampling_time(
    st: dict, times: np.ndarray, attempts_per_unit: int, budget: int, sweeps
) -> int | None:
    """One bounded step of a job toward its next sampling time ``times[st["ti"]]``:
    ``sweeps(t, n)`` advances the lattice by time units t .. t + n, at most ``budget``
    update attempts (:func:`bounded_step_end`), and the state's ``t_now`` records where it
    ends.  Returns the sampling time once the lattice is there (to be measured), else
    None.  The jobs key their random numbers by the time unit (or carry a generator's
    state), so the lattice does not depend on where steps end."""
    t_to = int(times[int(st["ti"])])
    t = time_reached(st, times)
    if t < t_to:
        end = bounded_step_end(t, t_to, attempts_per_unit, budget)
        sweeps(t, end - t)
        st["t_now"] = end
        if end < t_to:
            return None
    return t_to
