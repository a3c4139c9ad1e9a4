"""The two-layer double tiling of the fcc alloy on the CPU (the GPU kernel's twin and the
cache-blocked CPU DD): the window layout against the periodic lattice, order and thread
independence, exact conservation, and the equilibrium it samples."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from simcore.models.fcc.decomposed import HITS, check_block, dt_sweeps, set_order
from simcore.models.fcc.kernels import sequential_sweeps
from simcore.models.fcc.lattice import bb_bonds, count_b, random_mixture
from simcore.models.fcc.rule import attempt, thresholds
from simcore.models.fcc.window import (
    MARGIN,
    load_window,
    store_window,
    window_decide,
    window_propose,
)

K0, K1 = 0x5EED, 0x77


@numba.njit(cache=True)
def _both_layouts(lat, L, w, x0, y0, z0, n, thr, both, seed):
    """n random attempts inside a window at (x0, y0, z0), applied to the periodic lattice
    and to the window (its two halves, as the CPU DD calls them); returns the two results
    (per-attempt outcomes must agree too)."""
    np.random.seed(seed)
    win = np.empty((w, w), dtype=np.uint64)
    load_window(lat, L, x0, y0, z0, w, win)
    old = win.copy()
    ref = lat.copy()
    agree = True
    for _ in range(n):
        zl = np.random.randint(MARGIN, w - MARGIN)
        yl = np.random.randint(MARGIN, w - MARGIN)
        xl = 2 * np.random.randint(1, w // 2 - 1) + ((yl + zl) & 1)
        d = np.random.randint(12)
        u = np.random.randint(0, 2**32)
        a = attempt(ref, L, (x0 + xl) % L, (y0 + yl) % L, (z0 + zl) % L, d, u, thr, both)
        fx, fy, fz, si, prop = window_propose(win, xl, yl, zl, d, both)
        b = window_decide(win, xl, yl, zl, fx, fy, fz, si, u, thr) if prop else (0, 0)
        agree &= a[0] == b[0] and a[1] == b[1]
    store_window(lat, L, x0, y0, z0, w, win, old)
    return ref, agree


@pytest.mark.parametrize(("L", "w", "origin"), [(16, 12, (-2, -2, -2)), (136, 20, (126, 62, -2))])
@pytest.mark.parametrize("both", [False, True])
def test_window_attempts_equal_lattice_attempts(L, w, origin, both: bool) -> None:
    """2000 attempts in a window (wrapping the periodic boundary; at L = 136 a row of 68
    sites spans two words and the window crosses the word boundary) give the same outcome
    each, and storing the window gives the lattice the periodic-layout rule produced."""
    lat = random_mixture(L, 0.4, K0, K1, 0)
    ref, agree = _both_layouts(lat, L, w, *origin, 2000, thresholds(0.8), both, 3)
    assert agree
    assert np.array_equal(lat, ref)
    assert not np.array_equal(ref, random_mixture(L, 0.4, K0, K1, 0))  # something moved


def test_set_order_is_a_permutation_and_varies() -> None:
    """p_t is a permutation of the eight sets, different among MCS and samples, and each
    set comes first about 1/8 of the time (800 draws: within 5 sigma)."""
    orders = [tuple(set_order(t, s, K0, K1)) for t in range(100) for s in range(8)]
    assert all(sorted(o) == list(range(8)) for o in orders)
    assert len(set(orders)) > 700
    first = np.bincount([o[0] for o in orders], minlength=8)
    assert np.all(np.abs(first - 100) < 5 * np.sqrt(100 * 7 / 8))


def test_block_side_is_checked() -> None:
    """b must be a power of two in [8, 64] and L a multiple of 2 b."""
    check_block(64, 32)
    for L, b in [(64, 12), (64, 4), (256, 128), (48, 16)]:
        with pytest.raises(ValueError, match=str(b) if L != 48 else "48"):
            check_block(L, b)


@pytest.mark.parametrize("both", [False, True])
def test_dt_is_exact_and_independent_of_threads(both: bool) -> None:
    """Two MCS at L = 32 (blocks of 8 and 16): 1 and 2 numba threads give the same
    lattice and counters; composition is kept and the bonds updated incrementally equal a
    recount; b^3/2 attempts per block per MCS moved a plausible number of particles."""
    L, thr = 32, thresholds(1.5)
    for b in (8, 16):
        out = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            lat = random_mixture(L, 0.325, K0, K1, 1)
            n0, b0 = count_b(lat), bb_bonds(lat, L)
            dbb, moves = dt_sweeps(lat, L, b, 0, 2, 1, K0, K1, thr, both)
            assert count_b(lat) == n0 and bb_bonds(lat, L) == b0 + dbb
            out.append((lat, dbb, moves))
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        assert np.array_equal(out[0][0], out[1][0]) and out[0][1:] == out[1][1:]
        assert 0 < out[0][2] < 2 * L**3 // 2
    assert HITS * (8**3 // 512) == 8**3 // 2


@pytest.mark.slow
def test_dt_samples_the_same_equilibrium_as_sequential() -> None:
    """Above the critical temperature (epsilon = 0.25 < epsilon_c ~ 0.408) at c = 0.5, L = 16,
    the mean B-B bonds per B after 200 MCS of relaxation, averaged over 400 MCS and 4
    samples, agree between dt (blocks of 8, the smallest, where the most sites lie near
    block borders) and the sequential reference within 5 standard errors (errors from the
    spread of the 4 independent sample means)."""
    L, thr, c = 16, thresholds(0.25), 0.5

    def mean_bonds(sweep) -> tuple[float, float]:
        means = []
        for s in range(4):
            lat = random_mixture(L, c, K0, K1, s)
            sweep(lat, 0, 200, s)
            vals = []
            for t in range(200, 600, 4):
                sweep(lat, t, 4, s)
                vals.append(bb_bonds(lat, L) / count_b(lat))
            means.append(np.mean(vals))
        return float(np.mean(means)), float(np.std(means, ddof=1) / 2)

    m_dt, e_dt = mean_bonds(lambda lat, t, n, s: dt_sweeps(lat, L, 8, t, n, s, K0, K1, thr, True))
    m_sq, e_sq = mean_bonds(
        lambda lat, t, n, s: sequential_sweeps(lat, L, t, n, s, K0, K1, thr, False)
    )
    assert abs(m_dt - m_sq) < 5 * np.hypot(e_dt, e_sq), (m_dt, e_dt, m_sq, e_sq)
    assert m_sq > 3.2  # correlated above the random value 12 c / 2 = 3 bonds per B
