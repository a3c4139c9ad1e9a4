"""Rate models of the 2D KMC engine: which rate class a cell is in, and its next state.

A rate model is written once as two numba functions of a cell's 3 x 3 neighbourhood
(darkins2024 allows all 8 surrounding cells) and one host function of its parameters:

* ``rate_class(model, c, n, s, w, e, nw, ne, sw, se)``: the cell's class, a small
  integer, from its own state ``c`` and its neighbours (n = row above, w = column to the
  left, ...);
* ``new_state(model, c)``: the state after the cell's event;
* :func:`rate_table`: the total rate A of every class for given parameters.

Rates are looked up, never evaluated in a kernel: ``exp`` of the CPU and of the GPU may
differ in the last bit, a table computed once on the host cannot, so the serial
integrator, the tile algorithm and its GPU kernel (``cuda/kmc2d_rates.cuh``, the same
two functions in CUDA C) give the same waiting times bit for bit.

Models (``MODELS`` name -> code):

* ``sos`` (0), darkins2024 sec. 4.1: solid-on-solid crystal growth by irreversible
  attachment.  The state is the column height; class n_b = number of the 4 nearest
  columns at least as high as the new atom (height + 1), rate k2 exp((2 n_b - 4) phi).
  params = (k2, phi).
* ``ising`` (1): Glauber spin flips on the square lattice, spin s = +-1, rate
  w0 / (1 + exp(dE / T)) with dE = 2 s (J f + h), f the sum of the 4 nearest spins, and
  the Glauber rate constant w0 = 1 (time counts in units of 1/w0).
  Class 5 (s > 0) + (f + 4) / 2.  params = (J, h, T).
"""

from __future__ import annotations

import math

import numba
import numpy as np

SOS = 0
ISING = 1
MODELS = {"sos": SOS, "ising": ISING}
#: Names of each model's parameters, in the order of the ``params`` tuple.
PARAMS = {"sos": ("k2", "phi"), "ising": ("J", "h", "T")}
#: ``model_units`` of the Ising energy: the unit of J, h and T (k_B = 1).
ENERGY_UNIT = "J"
#: Number of rate classes per model code.
N_CLASSES = {SOS: 5, ISING: 10}
#: Whether a model's rates depend on the diagonal neighbours (False: a 5-point stencil,
#: so an event changes the class of its 4 nearest neighbours only).
DIAGONALS = {SOS: False, ISING: False}


@numba.njit(inline="always", cache=True)
def rate_class(model, c, n, s, w, e, nw, ne, sw, se):
    """The rate class of a cell in state ``c`` with neighbours n, s, w, e, nw, ne, sw, se."""
    if model == SOS:
        level = c + 1
        return (n >= level) + (s >= level) + (w >= level) + (e >= level)
    return 5 * (c > 0) + (n + s + w + e + 4) // 2


@numba.njit(inline="always", cache=True)
def new_state(model, c):
    """The state of a cell in state ``c`` after its event."""
    if model == SOS:
        return c + 1
    return -c


def rate_table(model: int, params) -> np.ndarray:
    """Total rate A of each class (float64, one entry per class)."""
    p = [float(v) for v in params]
    if model == SOS:
        k2, phi = p
        return np.array([k2 * math.exp((2 * nb - 4) * phi) for nb in range(5)])
    if model == ISING:
        J, h, T = p
        out = np.empty(10)
        for cls in range(10):
            spin = 1 if cls >= 5 else -1
            f = 2 * (cls % 5) - 4
            de = 2.0 * spin * (J * f + h)
            x = de / T
            out[cls] = 0.0 if x > 700.0 else 1.0 / (1.0 + math.exp(x))
        return out
    raise ValueError(f"unknown rate model code {model}")


def rate_tables(model: int, params) -> tuple[np.ndarray, np.ndarray]:
    """``(inv, ratio)``: 1 / A per class (inf where A = 0) and A_old / A_new per pair of
    classes (the factor that rescales a residual waiting time when a class changes)."""
    rates = rate_table(model, params)
    if np.any(rates < 0) or not np.all(np.isfinite(rates)):
        raise ValueError(f"rates must be finite and >= 0, got {rates}")
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(rates > 0, 1.0 / np.where(rates > 0, rates, 1.0), np.inf)
        ratio = np.where(
            (rates[:, None] > 0) & (rates[None, :] > 0),
            rates[:, None] / np.where(rates[None, :] > 0, rates[None, :], 1.0),
            np.inf,
        )
    return inv, np.ascontiguousarray(ratio)
