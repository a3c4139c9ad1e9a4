"""Sampling times: t = 0, log-spaced integer times, every waiting time and t_max."""

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
