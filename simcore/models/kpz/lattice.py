"""Bit-packed slope lattice of the octahedron (d=2) and single-step (d=1) models.

d = 1: site x holds the slope n(x) = (h(x) - h(x-1) + 1) / 2 in bit (x & 31) of
       word x >> 5; L / 32 words.
d = 2: each uint32 word holds a 4 x 4 block of sites (the layout of the GPU
       codes of kelling2012/2017).  Site (x, y) is in word
       (y >> 2) * (L >> 2) + (x >> 2); its x-slope n_x = (h(x,y) - h(x-1,y) + 1)/2
       is bit 2*i and its y-slope n_y = (h(x,y) - h(x,y-1) + 1)/2 is bit 2*i + 1,
       with i = 4 * (y & 3) + (x & 3).  L^2 / 16 words.

Site numbers count words first: site s is position i = s & 15 (d=2) or
i = s & 31 (d=1) of word s >> 4 (d=2) or s >> 5 (d=1); in d=2, word w holds
x = 4 (w mod L/4) + (i & 3), y = 4 (w div L/4) + (i >> 2).  Any bijection keeps
uniform site selection uniform; this one makes the word the first thing a
random site number gives.  Site 0 is (0, 0).  The update at a site reads its own slopes and
the x-slope of (x+1, y) and the y-slope of (x, y+1): only one rim per direction
couples neighbouring domains, as kelling2017 sec. 3.0.1 notes.
"""

from __future__ import annotations

import numba
import numpy as np


def n_words(dim: int, L: int) -> int:
    """Number of uint32 words of one lattice."""
    return (L // 32) if dim == 1 else (L * L) // 16


def flat_lattice(dim: int, L: int) -> np.ndarray:
    """The flat initial condition: the two-height checkerboard h = (x + y) mod 2.

    Its slopes are n_x = n_y = (x + y) & 1, so W^2(t=0) = 1/4 in d = 1 and 2.
    """
    if dim == 1:
        # bit x set for odd x
        return np.full(L // 32, 0xAAAAAAAA, dtype=np.uint32)
    lat = np.zeros(n_words(2, L), dtype=np.uint32)
    word = 0
    for i in range(16):
        x, y = i & 3, i >> 2
        if (x + y) & 1:
            word |= 3 << (2 * i)
    lat[:] = word  # the 4x4 pattern is the same in every word because 4 is even
    return lat


@numba.njit(inline="always", cache=True)
def word_bit_2d(x, y, WL):
    """(word index, bit offset of the x-slope) of site (x, y) in d = 2."""
    return (y >> 2) * WL + (x >> 2), 2 * (((y & 3) << 2) | (x & 3))


@numba.njit(cache=True)
def heights(lat, dim, L, h0, out):
    """Reconstruct the heights from the slopes (kelling2012 eq. 5) into ``out``.

    ``h0`` is the height given to site (0, 0); ``out`` is an
    int64 array of L (d=1) or L*L (d=2, index x + L*y) entries.
    """
    if dim == 1:
        h = h0
        out[0] = h
        for x in range(1, L):
            h += 2 * np.int64((lat[x >> 5] >> np.uint32(x & 31)) & np.uint32(1)) - 1
            out[x] = h
        return
    WL = L >> 2
    h = h0
    out[0] = h
    for x in range(1, L):
        wi, b = word_bit_2d(x, 0, WL)
        h += 2 * np.int64((lat[wi] >> np.uint32(b)) & np.uint32(1)) - 1
        out[x] = h
    for y in range(1, L):
        for x in range(L):
            wi, b = word_bit_2d(x, y, WL)
            ny = np.int64((lat[wi] >> np.uint32(b + 1)) & np.uint32(1))
            out[x + L * y] = out[x + L * (y - 1)] + 2 * ny - 1


def site_coords(dim: int, L: int, site: int) -> tuple[int, int]:
    """(x, y) of site number ``site`` (y = 0 in d = 1), following the numbering above."""
    if dim == 1:
        return int(site), 0
    w, i = int(site) >> 4, int(site) & 15
    WL = L >> 2
    return 4 * (w % WL) + (i & 3), 4 * (w // WL) + (i >> 2)


def height_bound(dim: int, L: int, t_max: int) -> int:
    """Largest |h| any site can reach by ``t_max`` MCS from the flat start.

    The flat start has h in {0, 1}; one MCS is at most N = L^d attempts of any scheme (DB
    performs only a fraction of them), each changing one height by 2, so the mean height
    moves by at most 2 per MCS; neighbouring heights differ by 1, so no site is farther
    from the mean than the torus diameter, L / 2 (d = 1) or L (d = 2).
    """
    return 1 + 2 * int(t_max) + (int(L) if dim == 2 else int(L) // 2)


def snapshot_dtype(dim: int, L: int, t_max: int) -> np.dtype:
    """The smallest signed integer type that holds every height of a run to ``t_max``
    (:func:`height_bound`): the type of the stored height snapshots, so that a snapshot of
    L = 1024 to t = 1000 MCS takes 2 bytes per site, not 4, and all jobs of a point (same
    dim, L, t_max) store the same type."""
    bound = height_bound(dim, L, t_max)
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        if bound <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    raise ValueError(f"heights up to {bound} do not fit into int64")
