"""|q(k_min)|^2 of the two replicas' overlap field from plane sums (model ``ea3d_pt``).

For the replicas a, b at one temperature, q_x = sigma^a_x sigma^b_x and q(k) = (1/V)
sum_x q_x exp(i k.x).  With P_d(c) = 2 A_d(c) - L^2 the overlap summed over the plane
c of axis d (A_d(c): sites of the plane where a and b agree) and the integer cyclic
autocorrelation C(r) = sum_d sum_c P_d(c) P_d(c + r mod L), which is even in r,

    qk2 = (1/3) sum_d |q(k_d)|^2 = (1/(3 V^2)) sum_{r=0}^{L/2} wgt[r] C(r),

wgt[0] = 1, wgt[r] = 2 cos(2 pi r / L) for 0 < r < L/2, wgt[L/2] = cos(pi) = -1 (L even),
k_d = 2 pi / L along axis d.  The counts and C(r) are exact integers; the float sum runs
r = 0, 1, ..., L/2 with one product and one sum per term (no FMA), so the GPU kernel
``ea3d_pt_qk2`` (``cuda/ea3d_pt.cu``), given the same ``wgt`` and ``norm``, returns the
same float64 bit for bit.  A_d(c) per sample bit is counted in bit-sliced counters, one
per plane (:mod:`simcore.models.ea3d.observables`).
"""

from __future__ import annotations

import numba
import numpy as np

from simcore.models.ea3d.lattice import layout_site


def count_bits(L: int) -> int:
    """Bit planes of a plane's counter: a plane holds L^2 sites."""
    return (int(L) ** 2).bit_length()


def qk2_weights(L: int) -> np.ndarray:
    """``wgt[r]``, r = 0..L/2: the weights of C(r) in the sum (module doc), float64."""
    L = int(L)
    r = np.arange(L // 2 + 1)
    wgt = 2.0 * np.cos(2.0 * np.pi * r / L)
    wgt[0], wgt[-1] = 1.0, np.cos(np.pi)
    return wgt


def qk2_norm(L: int) -> float:
    """3 V^2, the divisor of the weighted sum (a float64 both backends share)."""
    return float(3 * int(L) ** 6)


@numba.njit(cache=True)
def site_coordinates(layout: int, L: int) -> np.ndarray:
    """``xyz[c, d, j]``: coordinate d (x, y, z) of the site (c, j) in ``layout`` (int16:
    L <= 1024)."""
    half = L * L * L // 2
    xyz = np.empty((2, 3, half), dtype=np.int16)
    for c in range(2):
        for j in range(half):
            x, y, z = layout_site(layout, L, c, j)
            xyz[c, 0, j], xyz[c, 1, j], xyz[c, 2, j] = x, y, z
    return xyz


@numba.njit(inline="always", cache=True)
def _qk2_bits(planes, P, C, acc, out, L, wgt, norm):
    """``out[b]`` = qk2 of each sample bit b from the planes' counters (module doc);
    ``P`` (3 L, 64), ``C`` and ``acc`` (64,): scratch.  Each bit's float sum runs over r
    in order, one product and one sum per term."""
    n_bits = planes.shape[1]
    P[:] = 0
    for p in range(3 * L):
        for q in range(n_bits):
            word = planes[p, q]
            for b in range(64):
                P[p, b] += np.int64((word >> np.uint64(b)) & np.uint64(1)) << q
    for p in range(3 * L):
        for b in range(64):
            P[p, b] = 2 * P[p, b] - L * L
    acc[:] = 0.0
    for r in range(L // 2 + 1):
        C[:] = 0
        for p in range(3 * L):
            c = p % L
            p2 = p + r if c + r < L else p + r - L
            for b in range(64):
                C[b] += P[p, b] * P[p2, b]
        for b in range(64):
            acc[b] = acc[b] + wgt[r] * np.float64(C[b])
    for b in range(64):
        out[b] = acc[b] / norm


@numba.njit(parallel=True, cache=True)
def overlap_qk2(S, pa, pb, xyz, wgt, norm):
    """``qk2[i, w, b]`` (float64) of the replicas in slots ``pa[i]`` and ``pb[i]``, sample
    bit b of word w; ``xyz`` from :func:`site_coordinates`, ``wgt`` and ``norm`` from
    :func:`qk2_weights` and :func:`qk2_norm`."""
    _, _, k, half = S.shape
    n_pairs = pa.size
    L = (wgt.size - 1) * 2
    n_bits = 0
    while (L * L) >> n_bits:
        n_bits += 1
    out = np.empty((n_pairs, k, 64), dtype=np.float64)
    for iw in numba.prange(n_pairs * k):
        i, w = iw // k, iw % k
        a, b = pa[i], pb[i]
        planes = np.zeros((3 * L, n_bits), dtype=np.uint64)
        P = np.empty((3 * L, 64), dtype=np.int64)
        C = np.empty(64, dtype=np.int64)
        acc = np.empty(64)
        for c in range(2):
            for j in range(half):
                agree = ~(S[a, c, w, j] ^ S[b, c, w, j])
                for d in range(3):
                    p = d * L + xyz[c, d, j]
                    carry = agree
                    for q in range(n_bits):  # ripple carry (observables._add)
                        t = planes[p, q] & carry
                        planes[p, q] ^= carry
                        carry = t
        _qk2_bits(planes, P, C, acc, out[i, w], L, wgt, norm)
    return out
