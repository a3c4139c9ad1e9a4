"""Observables of the KPZ lattice: W^2, mean height and the two-time autocorrelations.

Per sample, with spatial means over the N = L^d sites:

* W^2(t) = mean(h^2) - mean(h)^2                       (kelling2012 eq. 6)
* C_h(t, s) = mean(h(t) h(s)) - mean(h(t)) mean(h(s))    (kelling2017 eq. 6; C_h(s, s) = W^2(s))
* C_s(t, s) = mean(n(t) n(s)) - mean(n(t)) mean(n(s))    (slopes n in {0, 1}, averaged over
  sites and directions; C_s(s, s) = 1/4 since half of the slopes are up)

Integer sums keep W^2 and C_h exact up to the final division.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.backends.cpu import popcount32
from simcore.models.kpz.lattice import heights


@numba.njit(cache=True)
def width_and_mean(h):
    """(W^2, mean height) of a height field."""
    s1 = np.int64(0)
    s2 = np.int64(0)
    for v in h:
        s1 += v
        s2 += v * v
    n = h.size
    mean = s1 / n
    return s2 / n - mean * mean, mean


@numba.njit(cache=True)
def height_autocorrelation(h_t, h_s):
    """C_h(t, s) of one sample from the height fields at t and s."""
    st = np.int64(0)
    ss = np.int64(0)
    sts = np.int64(0)
    for i in range(h_t.size):
        st += h_t[i]
        ss += np.int64(h_s[i])
        sts += h_t[i] * np.int64(h_s[i])
    n = h_t.size
    return sts / n - (st / n) * (ss / n)


@numba.njit(cache=True)
def slope_autocorrelation(lat_t, lat_s):
    """C_s(t, s) of one sample from the packed slope lattices at t and s."""
    ct = np.int64(0)
    cs = np.int64(0)
    cts = np.int64(0)
    for i in range(lat_t.size):
        ct += popcount32(lat_t[i])
        cs += popcount32(lat_s[i])
        cts += popcount32(lat_t[i] & lat_s[i])
    n = 32 * lat_t.size
    return cts / n - (ct / n) * (cs / n)


def measure_heights(lat: np.ndarray, dim: int, L: int, net: int, out: np.ndarray) -> np.ndarray:
    """Fill ``out`` with the heights of the lattice and return it.

    The slopes fix the heights up to a constant; ``net`` (depositions minus
    removals since the flat start, whose height sum is N/2) fixes the constant,
    since every event changes the height sum by +-2.
    """
    heights(lat, dim, L, 0, out)
    n = out.size
    offset, rest = divmod(n // 2 + 2 * int(net) - int(out.sum()), n)
    if rest:
        raise RuntimeError("height bookkeeping broken: slopes and event count disagree")
    out += offset
    return out
