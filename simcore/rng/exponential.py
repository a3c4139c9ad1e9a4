"""Exponential variates that are the same double on the CPU and on the GPU.

``-ln(u)`` through the math library is not reproducible across devices (CUDA's ``log``
and the host's may differ in the last bit).  Here the logarithm is evaluated with IEEE
additions, multiplications and one division only (correctly rounded everywhere), and
``frexp`` (exact), in a fixed order; the CUDA twin (``cuda/exponential.cuh``) uses the
same constants and the same operations with rounding intrinsics, so that nothing is
contracted into fused multiply-adds.  Accuracy: a few ulp of ``-ln(u)``.

u = (v + 1) / 2^53 in (0, 1] from the 53 top bits v of two uint32 words, and
-ln(u) = (53 - e) ln 2 - ln f with v + 1 = f 2^e, f in [sqrt(1/2), sqrt(2)),
ln f = 2 atanh(s), s = (f - 1) / (f + 1), as the odd series 2 (s + s^3/3 + ... + s^21/21)
(|s| <= 0.1716: the first omitted term is below 1e-17 relative).
"""

from __future__ import annotations

import math

import numba
import numpy as np

LN2 = 0.6931471805599453
SQRT2 = 1.4142135623730951
#: 1 / (2k + 3), k = 9 .. 0: the Horner coefficients of (atanh(s)/s - 1) / s^2 in s^2.
SERIES = tuple(1.0 / (2 * k + 3) for k in range(9, -1, -1))
_C = SERIES


@numba.njit(inline="always", cache=True)
def exp_variate(r0, r1):
    """Exp(1) variate -ln(u), u = (top 53 bits of (r0, r1) + 1) / 2^53, in [0, 36.8]."""
    v = ((np.uint64(r0) << np.uint64(21)) | (np.uint64(r1) >> np.uint64(11))) + np.uint64(1)
    mant, e = math.frexp(float(v))
    f = mant * 2.0
    e -= 1
    if f > SQRT2:
        f = f * 0.5
        e += 1
    s = (f - 1.0) / (f + 1.0)
    z = s * s
    p = _C[0]
    p = p * z + _C[1]
    p = p * z + _C[2]
    p = p * z + _C[3]
    p = p * z + _C[4]
    p = p * z + _C[5]
    p = p * z + _C[6]
    p = p * z + _C[7]
    p = p * z + _C[8]
    p = p * z + _C[9]
    s2 = s + s
    lnf = s2 + s2 * (z * p)
    return float(53 - e) * LN2 - lnf
