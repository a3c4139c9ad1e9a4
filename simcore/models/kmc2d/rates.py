"""Rate models of the 2D KMC engine: the total rate of a cell and its next state.

Each model is a pair of numba functions selected by a model code, so that the serial
integrator, the tile algorithm and the GPU kernel share one definition.

* ``SOS`` (code 0), darkins2024 sec. 4.1: solid-on-solid crystal growth by irreversible
  attachment; the rate of adding one atom on column (i, j) is k2 exp((2 n_b - 4) phi),
  with n_b the in-plane bonds the new atom forms (the 4 nearest columns at least as high
  as the new atom).  params = (k2, phi).
* ``ISING`` (code 1): Glauber spin flips, rate 1 / (1 + exp(dE / T)), dE = 2 s (J sum of
  the 4 neighbours + h).  params = (J, h, T).
"""

from __future__ import annotations

import math

import numba

SOS = 0
ISING = 1
MODELS = {"sos": SOS, "ising": ISING}


@numba.njit(inline="always", cache=True)
def _nb_sum(x, i, j, n, m, level):
    """Number of the 4 nearest cells whose state is >= level."""
    up, down = x[(i - 1) % n, j], x[(i + 1) % n, j]
    left, right = x[i, (j - 1) % m], x[i, (j + 1) % m]
    return (up >= level) + (down >= level) + (left >= level) + (right >= level)


@numba.njit(inline="always", cache=True)
def propensity(model, x, i, j, params):
    """Total rate A(i, j) of the cell's events (its neighbourhood is its 3 x 3 block)."""
    n, m = x.shape
    if model == SOS:
        nb = _nb_sum(x, i, j, n, m, x[i, j] + 1)
        return params[0] * math.exp((2.0 * nb - 4.0) * params[1])
    s = x[i, j]
    field = x[(i - 1) % n, j] + x[(i + 1) % n, j] + x[i, (j - 1) % m] + x[i, (j + 1) % m]
    de = 2.0 * s * (params[0] * field + params[1])
    return 1.0 / (1.0 + math.exp(de / params[2]))


@numba.njit(inline="always", cache=True)
def new_state(model, x, i, j):
    """The state of cell (i, j) after its event."""
    if model == SOS:
        return x[i, j] + 1
    return -x[i, j]
