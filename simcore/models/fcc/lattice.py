"""The bit-packed fcc lattice: site numbering, neighbours, occupation bits, random mixtures
and the bond counts (conventions: :mod:`simcore.models.fcc`)."""

from __future__ import annotations

import numba
import numpy as np

from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_FCC_INIT

#: The 12 nearest-neighbour displacements of the fcc lattice, direction d = 0 .. 11.
DX = np.array([1, 1, -1, -1, 1, 1, -1, -1, 0, 0, 0, 0])
DY = np.array([1, -1, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1])
DZ = np.array([0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1])


def words_per_row(L: int) -> int:
    """uint64 words of one row of L/2 sites."""
    return (L // 2 + 63) // 64


def empty_lattice(L: int) -> np.ndarray:
    """All species A: (L, L, W) uint64 words indexed [z, y, w]."""
    if L < 4 or L % 2:
        raise ValueError(f"L = {L} must be even and >= 4")
    return np.zeros((L, L, words_per_row(L)), dtype=np.uint64)


@numba.njit(inline="always", cache=True)
def site_xyz(s, L):
    """(x, y, z) of site s."""
    h = L // 2
    k = s % h
    y = (s // h) % L
    z = s // (h * L)
    return 2 * k + ((y + z) & 1), y, z


@numba.njit(inline="always", cache=True)
def get(lat, x, y, z):
    """Occupation bit (0 = A, 1 = B) of the site at (x, y, z) (periodic coordinates)."""
    k = x >> 1
    return (lat[z, y, k >> 6] >> np.uint64(k & 63)) & np.uint64(1)


@numba.njit(inline="always", cache=True)
def flip(lat, x, y, z):
    """Exchange the species of the site at (x, y, z)."""
    k = x >> 1
    lat[z, y, k >> 6] ^= np.uint64(1) << np.uint64(k & 63)


@numba.njit(inline="always", cache=True)
def _bit(lat, z, y, k):
    return (lat[z, y, k >> 6] >> np.uint64(k & 63)) & np.uint64(1)


@numba.njit(inline="always", cache=True)
def b_neighbours(lat, x, y, z, L):
    """Number of B particles among the 12 neighbours of (x, y, z).  The in-plane and
    out-of-plane neighbours (+-1, +-1, 0) and (+-1, 0, +-1) are the sites k - 1 + p and
    k + p (p = (y + z) & 1) of rows (y +- 1, z) and (y, z +- 1); the four (0, +-1, +-1) are
    site k of the diagonal rows."""
    h = L // 2
    k = x >> 1
    p = (y + z) & 1
    ka, kb = k - 1 + p, k + p
    if ka < 0:
        ka += h
    if kb >= h:
        kb -= h
    ym = y - 1 if y > 0 else L - 1
    yp = y + 1 if y < L - 1 else 0
    zm = z - 1 if z > 0 else L - 1
    zp = z + 1 if z < L - 1 else 0
    n = _bit(lat, z, ym, ka) + _bit(lat, z, ym, kb) + _bit(lat, z, yp, ka) + _bit(lat, z, yp, kb)
    n += _bit(lat, zm, y, ka) + _bit(lat, zm, y, kb) + _bit(lat, zp, y, ka) + _bit(lat, zp, y, kb)
    n += _bit(lat, zm, ym, k) + _bit(lat, zm, yp, k) + _bit(lat, zp, ym, k) + _bit(lat, zp, yp, k)
    return np.int64(n)


@numba.njit(cache=True)
def random_mixture(L, c, k0, k1, sample):
    """A homogeneous random mixture: each site B with probability c (Philox of the site)."""
    lat = np.zeros((L, L, (L // 2 + 63) // 64), dtype=np.uint64)
    thr = np.uint64(min(int(c * 4294967296.0 + 0.5), 4294967296))
    n = L * L * L // 2
    for s in range(n):
        r0, _, _, _ = philox4x32(s, 0, sample, STREAM_FCC_INIT << 24, k0, k1)
        if np.uint64(r0) < thr:
            x, y, z = site_xyz(s, L)
            flip(lat, x, y, z)
    return lat


@numba.njit(cache=True)
def count_b(lat):
    """Number of B particles."""
    n = 0
    for v in lat.ravel():
        w = v
        while w:
            w &= w - np.uint64(1)
            n += 1
    return n


@numba.njit(cache=True)
def bb_bonds(lat, L):
    """Number of B-B nearest-neighbour bonds (each bond once)."""
    total = 0
    for s in range(L * L * L // 2):
        x, y, z = site_xyz(s, L)
        if get(lat, x, y, z):
            total += b_neighbours(lat, x, y, z, L)
    return total // 2


def occupation(lat: np.ndarray, L: int) -> np.ndarray:
    """The (L, L, L) simple cubic array [z, y, x]: 1 for B, 0 for A or a non-fcc site."""
    out = np.zeros((L, L, L), dtype=np.uint8)
    h = L // 2
    k = np.arange(h)
    bits = (lat[:, :, k >> 6] >> (k & 63).astype(np.uint64)) & np.uint64(1)  # [z, y, k]
    for z in range(L):
        for y in range(L):
            out[z, y, 2 * k + ((y + z) & 1)] = bits[z, y]
    return out
