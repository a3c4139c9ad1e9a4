"""Observables of a batch of d = 2 KPZ lattices held on the GPU (the twin of :mod:`.observables`).

A batch is S samples in lockstep: ``lat`` is a cupy uint32 array (S, L*L/16) packed
as in :mod:`.lattice`, heights are a cupy int32 array (S, L*L) with index x + L*y.
Everything big stays on the GPU: the reductions run there in integer arithmetic
and only per-sample sums (a few int64 per sample) come back to the host.

Same numbers as the CPU: every integer sum is the one the numba functions of
:mod:`.observables` form (integer addition is exact, so the order of the GPU
reduction does not matter), and the final float formula is evaluated on the
host in float64 with the same operations in the same order as there
(``a / n`` of int64 values is float64(a) / float64(n) in numba and numpy alike).
So a GPU run reproduces its CPU twin bit for bit.

CuPy is imported here at module level; nothing else in simcore imports this
module unless the GPU backend is used.  Only d = 2 is covered.

Memory: :func:`heights` writes its (S, L*L) int32 output (4 L^2 bytes per sample,
1 GiB at L = 2^14) and needs only O(S L) scratch besides; the reductions need none.
"""

from __future__ import annotations

from functools import lru_cache

import cupy as cp
import numpy as np

_SOURCE = r"""
// Sum of a long long over the warp, added by lane 0 to *dst (two's complement
// wraps, so signed sums come out right through the unsigned atomic).
__device__ __forceinline__ void warp_add(long long v, unsigned long long* dst)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0 && v != 0) atomicAdd(dst, (unsigned long long)v);
}

// Heights of column x of sample s (grid: (ceil(L / blockDim.x), S)).  h(x, 0) is
// row0[s, x] (+ offset[s]); down the column h(x, y) = h(x, y-1) + 2 n_y(x, y) - 1
// (lattice.heights).  WRITE = false: only add the column sums to sums[s];
// WRITE = true: write the heights (offset included) to h.
template <bool WRITE>
__global__ void kpz_columns(const unsigned int* __restrict__ lat, const int* __restrict__ row0,
                            const long long* __restrict__ offset, const int L,
                            int* __restrict__ h, unsigned long long* __restrict__ sums)
{
    const size_t s = blockIdx.y;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    long long acc = 0;
    if (x < L) {
        const size_t WL = (size_t)(L >> 2);
        const size_t N = (size_t)L * (size_t)L;
        const unsigned int* col = lat + s * (N >> 4) + (size_t)(x >> 2);
        int* hc = WRITE ? h + s * N + (size_t)x : nullptr;
        const unsigned int sh = 2u * (unsigned int)(x & 3) + 1u;  // y-slope bit of row y & 3 == 0
        int v = row0[s * (size_t)L + (size_t)x];
        if (WRITE) {
            v += (int)offset[s];
            hc[0] = v;
        } else {
            acc = v;
        }
        for (int yb = 0; yb < (L >> 2); ++yb) {
            const unsigned int w = col[(size_t)yb * WL];
            #pragma unroll
            for (int r = 0; r < 4; ++r) {
                if (yb == 0 && r == 0) continue;
                v += 2 * (int)((w >> (sh + 8u * (unsigned int)r)) & 1u) - 1;
                if (WRITE) hc[(size_t)(4 * yb + r) * (size_t)L] = v;
                else acc += v;
            }
        }
    }
    if (!WRITE) warp_add(acc, sums + s);
}

// Three integer sums per row of n entries (grid: (blocks, rows)), added to out[3*row + k]:
// MODE 0: sum a, sum a*a; MODE 1: sum a, sum b, sum a*b; MODE 2: popcounts of a, b, a & b.
template <int MODE, typename TA, typename TB>
__global__ void row_sums(const TA* __restrict__ a, const TB* __restrict__ b, const long long n,
                         unsigned long long* __restrict__ out)
{
    const size_t row = blockIdx.y;
    a += row * (size_t)n;
    b += row * (size_t)n;
    long long s0 = 0, s1 = 0, s2 = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if constexpr (MODE == 0) {
            const long long v = a[i];
            s0 += v;
            s1 += v * v;
        } else if constexpr (MODE == 1) {
            const long long u = a[i], v = b[i];
            s0 += u;
            s1 += v;
            s2 += u * v;
        } else {
            const unsigned int u = a[i], v = b[i];
            s0 += __popc(u);
            s1 += __popc(v);
            s2 += __popc(u & v);
        }
    }
    warp_add(s0, out + 3 * row);
    warp_add(s1, out + 3 * row + 1);
    if (MODE != 0) warp_add(s2, out + 3 * row + 2);
}
"""

_CTYPE = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_BLOCK = 128


def _row_sums_name(mode: int, ta: str, tb: str) -> str:
    return f"row_sums<{mode}, {ta}, {tb}>"


_NAMES = (
    "kpz_columns<true>",
    "kpz_columns<false>",
    *(_row_sums_name(0, t, t) for t in _CTYPE.values()),
    *(_row_sums_name(1, ta, tb) for ta in _CTYPE.values() for tb in _CTYPE.values()),
    _row_sums_name(2, "unsigned int", "unsigned int"),
)


@lru_cache(maxsize=1)
def _module() -> cp.RawModule:
    return cp.RawModule(code=_SOURCE, options=("-std=c++17",), name_expressions=_NAMES)


def _kernel(name: str):
    return _module().get_function(name)


def _batch(a, dtypes, what: str):
    """``a`` as a C-contiguous 2-d cupy array (rows = samples) of one of ``dtypes``."""
    if not isinstance(a, cp.ndarray):
        raise TypeError(f"{what} must be a cupy array, got {type(a).__name__}")
    if a.ndim != 2:
        raise ValueError(f"{what} must have shape (samples, n), got {a.shape}")
    if a.dtype not in dtypes:
        raise TypeError(f"{what} has dtype {a.dtype}, expected one of {[str(d) for d in dtypes]}")
    return cp.ascontiguousarray(a)


def _grid_x(n: int, rows: int) -> int:
    """Blocks per row for the reductions: enough to fill the GPU, no more than needed."""
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    return max(1, min(-(-n // (4 * _BLOCK)), -(-8 * sms // max(rows, 1))))


def _sums3(mode: int, a, b) -> np.ndarray:
    """Per-row int64 sums (rows, 3) of :data:`_SOURCE`'s ``row_sums``, on the host."""
    rows, n = a.shape
    out = cp.zeros((rows, 3), dtype=cp.uint64)
    if rows and n:
        name = _row_sums_name(mode, *(_CTYPE.get(x.dtype, "unsigned int") for x in (a, b)))
        grid = (_grid_x(n, rows), rows)
        _kernel(name)(grid, (_BLOCK,), (a, b, np.int64(n), out))
    return out.view(cp.int64).get()


def heights(lat, L: int, net):
    """Heights of S d = 2 lattices: cupy int32 (S, L*L), index x + L*y.

    ``lat`` is a cupy uint32 array (S, L*L/16), ``net`` the int64 depositions minus
    removals since the flat start of each sample (host numpy or cupy, shape (S,)).
    The values are those of ``lattice.heights`` followed by
    ``observables.measure_heights``, bit for bit: the slopes give the heights with
    h(0, 0) = 0, and the constant is fixed by the height sum N/2 + 2 net.
    Raises RuntimeError, as measure_heights does, if slopes and ``net`` disagree
    (checked on the GPU; one small transfer).  Scratch memory is O(S L).
    """
    lat = _batch(lat, (np.dtype(np.uint32),), "lat")
    L = int(L)
    S = lat.shape[0]
    if L < 4 or L % 4 or lat.shape[1] != L * L // 16:
        raise ValueError(f"lat of shape {lat.shape} is no batch of d = 2 lattices of L = {L}")
    net = cp.asarray(net, dtype=cp.int64).reshape(-1)
    if net.size != S:
        raise ValueError(f"net has {net.size} entries for {S} samples")
    n = L * L
    h = cp.empty((S, n), dtype=cp.int32)
    if S == 0:
        return h
    # row y = 0: h(x, 0) = sum_{x' = 1..x} (2 n_x(x', 0) - 1), with h(0, 0) = 0
    xs = cp.arange(L, dtype=cp.int32)
    bits = (lat[:, xs >> 2] >> (2 * (xs & 3)).astype(cp.uint32)) & cp.uint32(1)
    steps = 2 * bits.astype(cp.int32) - 1
    steps[:, 0] = 0
    row0 = cp.ascontiguousarray(cp.cumsum(steps, axis=1, dtype=cp.int32))
    del bits, steps
    # pass 1: the height sum of each sample with h(0, 0) = 0
    grid = (-(-L // _BLOCK), S)
    sums = cp.zeros(S, dtype=cp.uint64)
    _kernel("kpz_columns<false>")(grid, (_BLOCK,), (lat, row0, net, np.int32(L), h, sums))
    # the constant, as in measure_heights: divmod(n // 2 + 2 net - sum, n), rest must be 0
    num = n // 2 + 2 * net - sums.view(cp.int64)
    offset = num // n
    rest = num - offset * n
    # raw heights lie in [-2L, 2L]; the offset must keep them inside int32
    limit = 2**31 - 1 - 2 * L
    flags = cp.stack(
        (cp.count_nonzero(rest), cp.count_nonzero(cp.abs(offset) > limit))
    ).get()  # the one device-to-host transfer
    if flags[0]:
        raise RuntimeError("height bookkeeping broken: slopes and event count disagree")
    if flags[1]:
        raise OverflowError("heights do not fit in int32")
    # pass 2: write the heights, constant included
    _kernel("kpz_columns<true>")(grid, (_BLOCK,), (lat, row0, offset, np.int32(L), h, sums))
    return h


def width_and_mean(h) -> tuple[np.ndarray, np.ndarray]:
    """(W^2, mean height) of each sample, host float64 arrays (S,).

    ``h``: cupy int32 or int64 (S, N).  The sums of h and h^2 are exact int64 sums
    on the GPU; then, as ``observables.width_and_mean``: mean = s1 / N,
    W^2 = s2 / N - mean * mean, so the results equal the CPU's exactly.
    """
    h = _batch(h, tuple(_CTYPE), "h")
    sums = _sums3(0, h, h)
    n = h.shape[1]
    mean = sums[:, 0] / n
    return sums[:, 1] / n - mean * mean, mean


def height_autocorrelation(h_t, h_s) -> np.ndarray:
    """C_h(t, s) of each sample from the height fields at t and s, host float64 (S,).

    ``h_t``, ``h_s``: cupy int32 or int64 (S, N).  Exact int64 sums of h_t, h_s and
    h_t h_s on the GPU, then ``sts / N - (st / N) * (ss / N)`` as in
    ``observables.height_autocorrelation``: equal to the CPU's exactly.
    """
    h_t = _batch(h_t, tuple(_CTYPE), "h_t")
    h_s = _batch(h_s, tuple(_CTYPE), "h_s")
    if h_t.shape != h_s.shape:
        raise ValueError(f"h_t {h_t.shape} and h_s {h_s.shape} differ in shape")
    sums = _sums3(1, h_t, h_s)
    n = h_t.shape[1]
    return sums[:, 2] / n - (sums[:, 0] / n) * (sums[:, 1] / n)


def slope_autocorrelation(lat_t, lat_s) -> np.ndarray:
    """C_s(t, s) of each sample from the packed lattices at t and s, host float64 (S,).

    ``lat_t``, ``lat_s``: cupy uint32 (S, words).  Popcounts of lat_t, lat_s and
    lat_t & lat_s summed exactly on the GPU, then ``cts / n - (ct / n) * (cs / n)``
    with n = 32 words, as in ``observables.slope_autocorrelation``: equal to the
    CPU's exactly.
    """
    lat_t = _batch(lat_t, (np.dtype(np.uint32),), "lat_t")
    lat_s = _batch(lat_s, (np.dtype(np.uint32),), "lat_s")
    if lat_t.shape != lat_s.shape:
        raise ValueError(f"lat_t {lat_t.shape} and lat_s {lat_s.shape} differ in shape")
    sums = _sums3(2, lat_t, lat_s)
    n = 32 * lat_t.shape[1]
    return sums[:, 2] / n - (sums[:, 0] / n) * (sums[:, 1] / n)
