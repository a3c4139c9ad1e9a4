"""EA3D lattice layouts and initial state (conventions in :mod:`simcore.models.ea3d`).

The index maps are plain numba functions of (L, x, y, z), so the CPU kernels, the tests
and the GPU kernel generator use one definition of each layout.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_EA_COUPLINGS, STREAM_EA_SPINS

#: The memory layouts (simcore.models.ea3d) and their codes in the kernels.
LAYOUTS = ("standard", "sliced", "bitwise")
LAYOUT_ID = {name: i for i, name in enumerate(LAYOUTS)}
N_REPLICAS = 4


def check_layout(layout: str, L: int) -> str | None:
    """Why ``layout`` cannot run at size ``L`` (None if it can)."""
    if layout not in LAYOUTS:
        return f"must be one of {', '.join(LAYOUTS)}"
    if L < 2 or L % 2:
        return "L must be even and >= 2"
    if layout == "bitwise" and L & (L - 1):
        return "the bitwise layout needs L = 2^l"
    return None


@numba.njit(inline="always", cache=True)
def layout_index(layout: int, L: int, x: int, y: int, z: int) -> tuple[int, int]:
    """(colour, index j) of site (x, y, z) in ``layout`` (0 standard, 1 sliced, 2 bitwise)."""
    c = (x + y + z) & 1
    if layout == 1:
        yp = (y - x) % L
        zp = (x - y + z) % L
        return c, x + L * (yp + L * (zp >> 1))
    return c, (x + L * (y + L * z)) >> 1


@numba.njit(inline="always", cache=True)
def layout_site(layout: int, L: int, c: int, j: int) -> tuple[int, int, int]:
    """(x, y, z) of the site with colour ``c`` and index ``j`` in ``layout``."""
    if layout == 1:
        x = j % L
        yp = (j // L) % L
        zp = 2 * (j // (L * L)) + c
        y = (yp + x) % L
        z = (zp + yp) % L
        return x, y, z
    half = L >> 1
    xh = j % half
    y = (j // half) % L
    z = j // (half * L)
    x = 2 * xh + ((c + y + z) & 1)
    return x, y, z


@numba.njit(cache=True)
def neighbour_table(layout: int, L: int) -> np.ndarray:
    """``nbr[c, d, j]``: index (in the other colour) of the neighbour in direction d."""
    half = L * L * L // 2
    nbr = np.empty((2, 6, half), dtype=np.int64)
    for c in range(2):
        for j in range(half):
            x, y, z = layout_site(layout, L, c, j)
            for d in range(6):
                axis = d >> 1
                step = 1 - 2 * (d & 1)
                xn, yn, zn = x, y, z
                if axis == 0:
                    xn = (x + step) % L
                elif axis == 1:
                    yn = (y + step) % L
                else:
                    zn = (z + step) % L
                _, jn = layout_index(layout, L, xn, yn, zn)
                nbr[c, d, j] = jn
    return nbr


@numba.njit(cache=True)
def physical_table(layout: int, L: int) -> np.ndarray:
    """``phys[c, j]``: physical index p of the site (c, j) (keys its random numbers)."""
    half = L * L * L // 2
    phys = np.empty((2, half), dtype=np.int64)
    for c in range(2):
        for j in range(half):
            x, y, z = layout_site(layout, L, c, j)
            phys[c, j] = x + L * (y + L * z)
    return phys


@numba.njit(inline="always", cache=True)
def philox_word(p: int, w: int, c2: int, c3: int, k0: int, k1: int) -> np.uint64:
    """A 64-bit word from Philox counter (p, w, c2, c3): outputs 0 (low) and 1 (high)."""
    r0, r1, _, _ = philox4x32(p, w, c2, c3, k0, k1)
    return np.uint64(r0) | (np.uint64(r1) << np.uint64(32))


@numba.njit(cache=True)
def bond_word(L: int, x: int, y: int, z: int, axis: int, w: int, k0: int, k1: int) -> np.uint64:
    """Coupling word (64 samples) of the bond from (x, y, z) to its + neighbour along axis."""
    p = x + L * (y + L * z)
    return philox_word(p, w, axis, STREAM_EA_COUPLINGS << 24, k0, k1)


@numba.njit(parallel=True, cache=True)
def init_couplings(
    layout: int, L: int, k: int, k0: int, k1: int, j0: int = 0, j1: int = -1
) -> np.ndarray:
    """``J[c, d, w, j]``: the coupling words of every site (or of the sites j0 <= j < j1,
    e.g. a GPU's planes) in every direction."""
    j1 = L * L * L // 2 if j1 < 0 else j1
    J = np.empty((2, 6, k, j1 - j0), dtype=np.uint64)
    for c in range(2):
        for jj in numba.prange(j1 - j0):
            x, y, z = layout_site(layout, L, c, j0 + jj)
            for w in range(k):
                J[c, 0, w, jj] = bond_word(L, x, y, z, 0, w, k0, k1)
                J[c, 1, w, jj] = bond_word(L, (x - 1) % L, y, z, 0, w, k0, k1)
                J[c, 2, w, jj] = bond_word(L, x, y, z, 1, w, k0, k1)
                J[c, 3, w, jj] = bond_word(L, x, (y - 1) % L, z, 1, w, k0, k1)
                J[c, 4, w, jj] = bond_word(L, x, y, z, 2, w, k0, k1)
                J[c, 5, w, jj] = bond_word(L, x, y, (z - 1) % L, 2, w, k0, k1)
    return J


@numba.njit(parallel=True, cache=True)
def init_spins(
    layout: int,
    L: int,
    k: int,
    k0: int,
    k1: int,
    j0: int = 0,
    j1: int = -1,
    n_rep: int = N_REPLICAS,
    stream: int = STREAM_EA_SPINS,
) -> np.ndarray:
    """``S[a, c, w, j]``: random start of ``n_rep`` replicas (a quench from T = infinity),
    of every site or of the sites j0 <= j < j1; replica a of site p, word w is Philox
    counter (p, w, a, ``stream`` << 24)."""
    j1 = L * L * L // 2 if j1 < 0 else j1
    S = np.empty((n_rep, 2, k, j1 - j0), dtype=np.uint64)
    tag = stream << 24
    for c in range(2):
        for jj in numba.prange(j1 - j0):
            x, y, z = layout_site(layout, L, c, j0 + jj)
            p = x + L * (y + L * z)
            for w in range(k):
                for a in range(n_rep):
                    S[a, c, w, jj] = philox_word(p, w, a, tag, k0, k1)
    return S


@numba.njit(cache=True)
def to_physical(S: np.ndarray, layout: int, L: int) -> np.ndarray:
    """Spins in physical order, ``P[a, w, p]``, for comparing layouts and devices."""
    n_rep, _, k, half = S.shape
    P = np.empty((n_rep, k, 2 * half), dtype=np.uint64)
    for c in range(2):
        for j in range(half):
            x, y, z = layout_site(layout, L, c, j)
            p = x + L * (y + L * z)
            for a in range(n_rep):
                for w in range(k):
                    P[a, w, p] = S[a, c, w, j]
    return P
