"""The packed KPZ lattice and its update rule, checked against plain height-field physics."""

import itertools

import numpy as np
import pytest

from simcore.models.kpz.kernels import sequential_sweeps
from simcore.models.kpz.lattice import flat_lattice, heights, n_words, site_coords
from simcore.models.kpz.observables import (
    height_autocorrelation,
    measure_heights,
    slope_autocorrelation,
    width_and_mean,
)
from simcore.models.kpz.rule import neighbours_2d, octahedron_rule
from simcore.rng import philox4x32, uniform_threshold
from simcore.rng.streams import STREAM_SEQUENTIAL
from simcore.seeding import philox_key


def _heights(lat, dim, L, h0):
    out = np.empty(L**dim, dtype=np.int64)
    heights(lat, dim, L, h0, out)
    return out if dim == 1 else out.reshape(L, L).T  # index [x, y]


@pytest.mark.parametrize("dim,L", [(1, 32), (1, 64), (2, 4), (2, 16)])
def test_flat_initial_condition(dim, L):
    """The checkerboard h = (x + y) mod 2: W^2 = 1/4 and mean height 1/2 exactly."""
    h = _heights(flat_lattice(dim, L), dim, L, 0)
    if dim == 1:
        assert np.array_equal(h, np.arange(L) % 2)
    else:
        x, y = np.meshgrid(np.arange(L), np.arange(L), indexing="ij")
        assert np.array_equal(h, (x + y) % 2)
    w2, mean = width_and_mean(h.ravel())
    assert w2 == 0.25 and mean == 0.5
    assert n_words(dim, L) == flat_lattice(dim, L).size


def test_site_numbering_is_a_bijection_and_neighbours_match():
    """Site numbers map one-to-one onto (x, y); the rule's neighbour words are those of
    (x+1, y) and (x, y+1)."""
    L = 16
    seen = set()
    for s in range(L * L):
        x, y = site_coords(2, L, s)
        seen.add((x, y))
        w, b, wx, bx, wy, by = (int(v) for v in neighbours_2d(L, s))

        # word/bit of a site from the layout in lattice.py
        def loc(xx, yy):
            return (yy >> 2) * (L >> 2) + (xx >> 2), 2 * (4 * (yy & 3) + (xx & 3))

        assert (w, b) == loc(x, y)
        assert (wx, bx) == loc((x + 1) % L, y)
        assert (wy, by - 1) == loc(x, (y + 1) % L)
    assert len(seen) == L * L


def test_rule_exhaustive():
    """All 2^(2d) local configurations: only minima grow (prob p), only maxima shrink (prob q)."""
    p_thr, q_thr = np.uint64(100), np.uint64(50)
    for dim in (1, 2):
        full = (1 << dim) - 1
        for own, nbr in itertools.product(range(full + 1), repeat=2):
            for u, want_p, want_q in [(10, True, True), (70, True, False), (200, False, False)]:
                d = int(
                    octahedron_rule(
                        np.uint32(own), np.uint32(nbr), np.uint32(full), np.uint32(u), p_thr, q_thr
                    )
                )
                if own == 0 and nbr == full:
                    assert d == (1 if want_p else 0)
                elif own == full and nbr == 0:
                    assert d == (-1 if want_q else 0)
                else:
                    assert d == 0


def _reference_run(dim, L, n_mcs, seed, p, q, sample=0):
    """Plain height-field random-sequential dynamics with the same random numbers.

    Independent of the bit packing: a site grows by 2 if all its 2d neighbours are
    one higher (probability p) and shrinks by 2 if all are one lower (probability q).
    """
    k0, k1 = philox_key(seed)
    N = L**dim
    if dim == 1:
        h = {(x, 0): x % 2 for x in range(L)}
    else:
        h = {(x, y): (x + y) % 2 for x in range(L) for y in range(L)}
    p_thr, q_thr = uniform_threshold(p), uniform_threshold(q)
    tag = STREAM_SEQUENTIAL << 24
    for t in range(n_mcs):
        for j in range(N // 2):
            r = [int(v) for v in philox4x32(j, t, sample, tag, k0, k1)]
            for site, u in ((r[0] & (N - 1), r[1]), (r[2] & (N - 1), r[3])):
                x, y = site_coords(dim, L, site)
                if dim == 1:
                    nbrs = [((x + 1) % L, 0), ((x - 1) % L, 0)]
                else:
                    nbrs = [((x + 1) % L, y), ((x - 1) % L, y), (x, (y + 1) % L), (x, (y - 1) % L)]
                diffs = {h[n] - h[(x, y)] for n in nbrs}
                if diffs == {1} and u < p_thr:
                    h[(x, y)] += 2
                elif diffs == {-1} and u < q_thr:
                    h[(x, y)] -= 2
    if dim == 1:
        return np.array([h[(x, 0)] for x in range(L)])
    return np.array([[h[(x, y)] for y in range(L)] for x in range(L)])


@pytest.mark.parametrize(
    "dim,L,p,q",
    [(1, 32, 1.0, 0.0), (1, 32, 0.6, 0.3), (2, 8, 1.0, 0.0), (2, 8, 0.6, 0.3), (2, 4, 0.0, 1.0)],
)
def test_packed_kernel_equals_height_reference(dim, L, p, q):
    """Bit-packed slopes + sequential schedule == plain heights, for the same random numbers."""
    seed, n_mcs = 0x1234_5678_9ABC_DEF0, 6
    lat = flat_lattice(dim, L)
    params = (np.uint64(uniform_threshold(p)), np.uint64(uniform_threshold(q)))
    net = sequential_sweeps(lat, dim, L, 0, n_mcs, *philox_key(seed), 0, params)
    got = measure_heights(lat, dim, L, net, np.empty(L**dim, dtype=np.int64))
    got = got if dim == 1 else got.reshape(L, L).T
    want = _reference_run(dim, L, n_mcs, seed, p, q)
    assert np.array_equal(got, want)
    # the net height change tracks the mean height exactly
    assert got.sum() - want.size * 0.5 == 2 * net
    if p > 0 and q == 0:
        assert net > 0


def test_autocorrelations_at_equal_times():
    """C_h(s, s) = W^2(s) and C_s(s, s) = 1/4 (half of all slopes point up)."""
    dim, L = 2, 16
    lat = flat_lattice(dim, L)
    params = (np.uint64(uniform_threshold(1.0)), np.uint64(0))
    net = sequential_sweeps(lat, dim, L, 0, 20, 1, 2, 0, params)
    h = measure_heights(lat, dim, L, net, np.empty(L * L, dtype=np.int64))
    w2, _ = width_and_mean(h)
    assert height_autocorrelation(h, h.astype(np.int32)) == pytest.approx(w2, abs=1e-12)
    assert slope_autocorrelation(lat, lat.copy()) == 0.25
