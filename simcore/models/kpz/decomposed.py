"""The octahedron rule under the domain-decomposition schedules, as numba kernels.

This is the CPU implementation of every DD scheme of
:mod:`simcore.models.kpz.geometry` and the bit-identical twin of the GPU
kernels (``cuda/octahedron_dd.cu``): the same draws locate the same sites, and
within a phase the domains, and within a hit the threads, touch disjoint bits,
so running the domains of a phase in parallel on CPU cores (``prange``) or as
GPU blocks gives the same lattice.  The rule itself is :mod:`.rule`'s.
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.kpz.geometry import (
    G_BLK,
    G_BORDER,
    G_CX,
    G_CY,
    G_DEV,
    G_DX,
    G_DY,
    G_HITS,
    G_L,
    G_P,
    G_R,
    G_THR,
    G_TX,
    G_TY,
    round_origin_and_order,
)
from simcore.models.kpz.rule import apply_2d, decide_2d, flip_2d, neighbours_2d
from simcore.rng.philox import philox4x32
from simcore.rng.streams import STREAM_BLOCKSET, STREAM_DOMAIN, STREAM_THREAD

_TAG_BLOCKSET = np.uint32(STREAM_BLOCKSET << 24)
_TAG_THREAD = np.uint32(STREAM_THREAD << 24)
_TAG_DOMAIN = np.uint32(STREAM_DOMAIN << 24)
_U32 = np.uint32


@numba.njit(inline="always", cache=True)
def _log2(v):
    n = 0
    while (1 << n) < v:
        n += 1
    return n


@numba.njit(inline="always", cache=True)
def located(L, X, Y):
    """(word, bit) of site (X, Y) of the packed 2D lattice and of the slopes it couples to."""
    WL = np.uint64(L >> 2)
    X = np.uint64(X)
    Y = np.uint64(Y)
    site = (((Y >> np.uint64(2)) * WL + (X >> np.uint64(2))) << np.uint64(4)) | (
        ((Y & np.uint64(3)) << np.uint64(2)) | (X & np.uint64(3))
    )
    return neighbours_2d(L, site)


@numba.njit(inline="always", cache=True)
def attempt_at(lat, L, X, Y, u, params):
    """One update attempt at site (X, Y) of the packed 2D lattice; returns +1, -1 or 0."""
    w, b, wx, bx, wy, by = located(L, X, Y)
    return apply_2d(lat, w, b, wx, bx, wy, by, u, params)


@numba.njit(inline="always", cache=True)
def certain(params):
    """True if acceptance needs no random number (p = 1, q = 0 or p = 0, q = 1)."""
    one = np.uint64(1) << np.uint64(32)
    return (params[0] == one and params[1] == 0) or (params[0] == 0 and params[1] == one)


@numba.njit(inline="always", cache=True)
def draw_layout(n_positions, fast):
    """(bits per position, attempts per Philox call) of a thread (module docstring)."""
    bits = 8 if n_positions <= 256 else 16
    if fast:
        return bits, 128 // bits
    return bits, 4 if bits == 8 else 2


@numba.njit(inline="always", cache=True)
def _thread_draw(buf, k, j, fast, bits):
    """(24-bit uniform, position) of the j-th attempt of thread k's current Philox call."""
    if fast:
        if bits == 8:
            return _U32(0), (buf[k, j >> 2] >> _U32(8 * (j & 3))) & _U32(0xFF)
        return _U32(0), (buf[k, j >> 1] >> _U32(16 * (j & 1))) & _U32(0xFFFF)
    if bits == 8:
        w = buf[k, j]
        return w >> _U32(8), w & _U32(0xFF)
    return buf[k, 2 * j] >> _U32(8), buf[k, 2 * j + 1] & _U32(0xFFFF)


_BATCH = 32  # Philox calls drawn ahead of applying them (the draws vectorize)


@numba.njit(inline="always", cache=True)
def _one_worker(lat, L, Dx, Dy, ax, ay, H, X0, Y0, d, c1, sample, k0, k1, params):
    """H random-sequential attempts in a domain (DB: selections in the border are lost).

    Attempt a draws Philox call a >> 1: (u, position) from (r0, r1) or (r2, r3).  Calls
    are drawn in batches first, then applied in order: the same result as one at a time.
    """
    lgx = _log2(Dx)
    m = L - 1
    fast = certain(params)
    us = np.empty(2 * _BATCH, dtype=np.uint32)
    xs = np.empty(2 * _BATCH, dtype=np.int64)
    ys = np.empty(2 * _BATCH, dtype=np.int64)
    net = 0
    for a0 in range(0, H, 2 * _BATCH):
        n = min(2 * _BATCH, H - a0)
        for i in range(0, n, 2):
            r0, r1, r2, r3 = philox4x32(d, c1, sample, _TAG_DOMAIN | _U32((a0 + i) >> 1), k0, k1)
            us[i], us[i + 1] = r0, r2
            xs[i], ys[i] = np.int64(r1 & _U32(Dx - 1)), np.int64((r1 >> _U32(lgx)) & _U32(Dy - 1))
            xs[i + 1] = np.int64(r3 & _U32(Dx - 1))
            ys[i + 1] = np.int64((r3 >> _U32(lgx)) & _U32(Dy - 1))
        for i in range(n):
            if xs[i] < ax and ys[i] < ay:
                u = _U32(0) if fast else us[i]
                net += attempt_at(lat, L, (X0 + xs[i]) & m, (Y0 + ys[i]) & m, u, params)
    return net


@numba.njit(cache=True)
def domain_update(lat, geo, X0, Y0, d, c1, sample, k0, k1, params):
    """All attempts of one phase in the domain with origin (X0, Y0); returns the net events."""
    L, Dx, Dy = geo[G_L], geo[G_DX], geo[G_DY]
    cx, cy, thr, H, blk = geo[G_CX], geo[G_CY], geo[G_THR], geo[G_HITS], geo[G_BLK]
    ax, ay = Dx - geo[G_BORDER], Dy - geo[G_BORDER]  # active part (DB/cDB dead border)
    m = L - 1
    fast = certain(params)
    net = 0
    if blk == 0:  # one worker, random-sequential inside the domain
        return _one_worker(lat, L, Dx, Dy, ax, ay, H, X0, Y0, d, c1, sample, k0, k1, params)
    ncx = Dx // cx
    lgn = _log2(ncx)
    # block layers draw 24-bit uniforms: thresholds T / 2^8 (exact for p, q in {0, 1})
    p24 = (params[0] >> np.uint64(8), params[1] >> np.uint64(8))
    buf = np.empty((thr, 4), dtype=np.uint32)
    bsw = np.zeros(4, dtype=np.uint32)
    if blk == 1:  # DT: positions inside a sub-cell of (cx/2) x (cy/2)
        hx, hy = cx >> 1, cy >> 1
        lgh = _log2(hx)
        bits, per_call = draw_layout(hx * hy, fast)
        for h in range(H):
            if h & 63 == 0:
                bsw[0], bsw[1], bsw[2], bsw[3] = philox4x32(
                    d, c1, sample, _TAG_BLOCKSET | _U32(h >> 6), k0, k1
                )
            if h % per_call == 0:
                for k in range(thr):
                    buf[k, 0], buf[k, 1], buf[k, 2], buf[k, 3] = philox4x32(
                        d * thr + k, c1, sample, _TAG_THREAD | _U32(h // per_call), k0, k1
                    )
            bs = np.int64((bsw[(h >> 4) & 3] >> _U32(2 * (h & 15))) & _U32(3))
            offx = (bs & 1) * hx
            offy = (bs >> 1) * hy
            for k in range(thr):
                u, pos = _thread_draw(buf, k, h % per_call, fast, bits)
                lx = (k & (ncx - 1)) * cx + offx + np.int64(pos & _U32(hx - 1))
                ly = (k >> lgn) * cy + offy + np.int64((pos >> _U32(lgh)) & _U32(hy - 1))
                if lx < ax and ly < ay:
                    net += attempt_at(lat, L, (X0 + lx) & m, (Y0 + ly) & m, u, p24)
        return net
    # DB with delayed borders (bulk and corners first, then the edges), or (DBs) snapshot
    # hits: every attempt decides on the lattice before the hit, then the accepted flip
    lgc = _log2(cx)
    bits, per_call = draw_layout(cx * cy, fast)
    accepted = np.empty((thr if blk == 3 else 0, 6), dtype=np.uint64)  # DBs: located sites
    for h in range(H):
        if h % per_call == 0:
            for k in range(thr):
                buf[k, 0], buf[k, 1], buf[k, 2], buf[k, 3] = philox4x32(
                    d * thr + k, c1, sample, _TAG_THREAD | _U32(h // per_call), k0, k1
                )
        if blk == 3:
            n_acc = 0
            for k in range(thr):
                u, pos = _thread_draw(buf, k, h % per_call, fast, bits)
                px, py, lx, ly = _cell_site(pos, k, cx, cy, ncx, lgn, lgc)
                if lx < ax and ly < ay:
                    w, b, wx, bx, wy, by = located(L, (X0 + lx) & m, (Y0 + ly) & m)
                    dk = decide_2d(lat, w, b, wx, bx, wy, by, u, p24)
                    if dk != 0:
                        net += dk
                        a = accepted[n_acc]
                        a[0], a[1], a[2], a[3], a[4], a[5] = w, b, wx, bx, wy, by
                        n_acc += 1
            for i in range(n_acc):
                a = accepted[i]
                flip_2d(lat, a[0], a[1], a[2], a[3], a[4], a[5], _U32(1))
            continue
        for half in range(2):
            for k in range(thr):
                u, pos = _thread_draw(buf, k, h % per_call, fast, bits)
                px, py, lx, ly = _cell_site(pos, k, cx, cy, ncx, lgn, lgc)
                edge = (px == cx - 1) != (py == cy - 1)
                if edge != (half == 1):
                    continue
                if lx < ax and ly < ay:
                    net += attempt_at(lat, L, (X0 + lx) & m, (Y0 + ly) & m, u, p24)
    return net


@numba.njit(inline="always", cache=True)
def _cell_site(pos, k, cx, cy, ncx, lgn, lgc):
    """(px, py) in thread k's cell of a DB/DBs position draw, and (lx, ly) in the domain."""
    px = np.int64(pos & _U32(cx - 1))
    py = np.int64((pos >> _U32(lgc)) & _U32(cy - 1))
    return px, py, (k & (ncx - 1)) * cx + px, (k >> lgn) * cy + py


@numba.njit(inline="always", cache=True)
def domain_origin(geo, ox, oy, s, d):
    """Origin (X0, Y0) of domain d of set s (s ignored under DB/cDB)."""
    L, Dx, Dy, tx = geo[G_L], geo[G_DX], geo[G_DY], geo[G_TX]
    i, j = d % tx, d // tx
    if geo[G_DEV] <= 1:  # DT, DTr: tiles of 2D, set (sx, sy)
        X0 = ox + 2 * Dx * i + (s & 1) * Dx
        Y0 = oy + 2 * Dy * j + (s >> 1) * Dy
    else:
        X0 = ox + Dx * i
        Y0 = oy + Dy * j
    return X0 & (L - 1), Y0 & (L - 1)


@numba.njit(parallel=True, cache=True)
def dd_phase(lat, geo, ox, oy, s, c1, sample, k0, k1, params):
    """One phase: every domain of set s updated (in parallel); returns the net events."""
    n = geo[G_TX] * geo[G_TY]
    net = 0
    for d in numba.prange(n):
        X0, Y0 = domain_origin(geo, ox, oy, s, d)
        net += domain_update(lat, geo, X0, Y0, d, c1, sample, k0, k1, params)
    return net


@numba.njit(cache=True)
def dd_sweeps(lat, geo, t0, n_steps, sample, k0, k1, params):
    """MCS ``t0 .. t0 + n_steps`` of one sample under a DD scheme; returns the net events."""
    order = np.empty(4, dtype=np.int64)
    L, dev, R, P = geo[G_L], geo[G_DEV], geo[G_R], geo[G_P]
    net = 0
    for t in range(t0, t0 + n_steps):
        for r in range(R):
            ox, oy = round_origin_and_order(t, r, sample, k0, k1, L, dev, order)
            if dev <= 1:
                for k in range(4):
                    c1 = t * P + 4 * r + k
                    net += dd_phase(lat, geo, ox, oy, order[k], c1, sample, k0, k1, params)
            else:
                net += dd_phase(lat, geo, ox, oy, 0, t * P + r, sample, k0, k1, params)
    return net
