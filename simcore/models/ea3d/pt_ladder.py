"""The temperature ladder of a parallel-tempering run: geometric, with a documented rule
for the number of temperatures.

Two neighbouring temperatures exchange configurations with probability about
erfc(sqrt(C) ln(rho) / 2) for a geometric ladder of ratio rho = T_{i+1} / T_i and a heat
capacity C = c V (k_B = 1) that changes slowly along the ladder.  Keeping the argument at
most :data:`LADDER_Z` gives the rule of :func:`auto_n_temperatures`:

    n_T = 1 + ceil(ln(T_max / T_min) sqrt(c V) / (2 LADDER_Z))

with c = :data:`HEAT_CAPACITY`, an upper bound of the specific heat per spin of the 3D
+-J spin glass near and above T_c (about 0.55 at T ~ 1.1, lower above).  LADDER_Z = 0.55
aims at acceptances near erfc(0.55) ~ 0.44 and keeps them above ~0.2 where c is larger
than assumed; each run records the acceptance of every pair
(``exchange_acceptance``), so a ladder that falls short shows in its results.
"""

from __future__ import annotations

import math

import numpy as np

#: Specific heat per spin assumed by the rule (an upper bound near T_c, k_B = 1).
HEAT_CAPACITY = 0.6
#: sqrt(C) ln(rho) / 2 aimed at between neighbouring temperatures.
LADDER_Z = 0.55


def auto_n_temperatures(L: int, T_min: float, T_max: float) -> int:
    """The number of temperatures of the geometric ladder for L^3 spins (module rule)."""
    V = L**3
    x = math.log(T_max / T_min) * math.sqrt(HEAT_CAPACITY * V) / (2.0 * LADDER_Z)
    return max(2, 1 + math.ceil(x))


def temperatures(T_min: float, T_max: float, n_T: int) -> np.ndarray:
    """The ladder T_0 = T_min < ... < T_{n-1} = T_max, geometric (ascending)."""
    if n_T == 1:
        return np.array([float(T_min)])
    return float(T_min) * (float(T_max) / float(T_min)) ** (np.arange(n_T) / (n_T - 1))
