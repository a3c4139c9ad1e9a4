"""Exact 2D KMC (darkins2024), serial waiting-time integrator: exact statistics and
determinism.  (The tile algorithm, BKL and the GPU kernel are still to come.)"""

from __future__ import annotations

import numpy as np
import pytest

from simcore.models.kmc2d.rates import ISING, SOS
from simcore.models.kmc2d.serial import initial_times, serial_run, uniform01


def run(n: int, t_end: float, params, seed: int, model: int = SOS, x=None):
    x = np.zeros((n, n), dtype=np.int32) if x is None else x
    p = np.asarray(params, dtype=np.float64)
    tau, cnt = initial_times(x, model, p, seed, 7)
    t, events = serial_run(x, tau, cnt, 0.0, t_end, model, p, seed, 7)
    return x, tau, cnt, events


def test_random_deposition_is_exact() -> None:
    """phi = 0 is random deposition: every column is a Poisson process of rate k2, so the
    mean height is k2 t and W^2 (the variance over columns) k2 t (1 - 1/N) in
    expectation, at any size.  8 samples of 32 x 32 to t = 40 with k2 = 0.5: the mean
    height must be within 5 sigma (sigma = sqrt(k2 t / (8 N))), W^2 within 5 sigma of its
    estimator's spread (Var(s^2) = (2 lambda^2 + lambda) / N per sample, Poisson)."""
    k2, t, n, samples = 0.5, 40.0, 32, 8
    N, lam = n * n, k2 * t
    hs, w2s = [], []
    for s in range(samples):
        x, _, _, events = run(n, t, (k2, 0.0), seed=100 + s)
        assert events == x.sum()  # irreversible: every event adds one atom
        hs.append(x.mean())
        w2s.append(x.var())
    mean_h, mean_w2 = np.mean(hs), np.mean(w2s)
    assert abs(mean_h - lam) < 5 * np.sqrt(lam / (samples * N))
    assert abs(mean_w2 - lam * (1 - 1 / N)) < 5 * np.sqrt((2 * lam**2 + lam) / N / samples)


def test_stopping_and_resuming_is_bit_identical() -> None:
    """The state (x, tau, draw counters) is complete: running to t1 and then on to t2
    gives the same lattice, times and counters as running to t2 at once."""
    p = np.array([1.0, 1.0])
    x1, tau1, cnt1, e1 = run(24, 30.0, p, seed=5)
    x2 = np.zeros((24, 24), dtype=np.int32)
    tau2, cnt2 = initial_times(x2, SOS, p, 5, 7)
    t, ea = serial_run(x2, tau2, cnt2, 0.0, 11.0, SOS, p, 5, 7)
    _, eb = serial_run(x2, tau2, cnt2, t, 30.0, SOS, p, 5, 7)
    assert ea + eb == e1
    assert np.array_equal(x1, x2) and np.array_equal(tau1, tau2) and np.array_equal(cnt1, cnt2)
    x3, *_ = run(24, 30.0, p, seed=6)
    assert not np.array_equal(x1, x3)


def test_bonds_smooth_the_surface() -> None:
    """Larger phi favours attachment at steps: at the same mean height the surface is
    smoother (phi = 0, 1, 2 give strictly decreasing W^2, darkins2024 Fig. 3 snapshots)."""
    widths = []
    for phi, t_end in ((0.0, 20.0), (1.0, 200.0), (2.0, 2000.0)):
        x, *_ = run(32, t_end, (1.0, phi), seed=3)
        widths.append(x.var() / max(x.mean(), 1.0))
    assert widths[0] > widths[1] > widths[2]


def test_uniforms_are_in_the_open_closed_unit_interval() -> None:
    u = np.array([uniform01(c, k, 1, 2) for c in range(50) for k in range(40)])
    assert np.all((u > 0) & (u <= 1))
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / u.size)


def test_ising_glauber_runs_to_low_energy() -> None:
    """Glauber dynamics at T = 1.5 (below Tc = 2.269) from a random start lowers the
    energy per spin well below 0 (random) towards the ordered -2."""
    rng = np.random.default_rng(0)
    x = rng.choice(np.array([-1, 1], dtype=np.int32), size=(32, 32))
    x, _, _, events = run(32, 30.0, (1.0, 0.0, 1.5), seed=2, model=ISING, x=x)
    energy = -np.mean(x * (np.roll(x, 1, 0) + np.roll(x, 1, 1)))
    assert events > 0 and energy < -1.5


@pytest.mark.parametrize("n", [8, 16])
def test_run_stops_before_the_next_event(n: int) -> None:
    """Every event before t_end fired: the earliest pending time is at or after t_end,
    and every cell drew at least its initial time (one more per event around it)."""
    x, tau, cnt, events = run(n, 5.0, (1.0, 0.5), seed=1)
    assert tau.min() >= 5.0 and np.all(cnt >= 1)
    assert cnt.sum() == n * n + 9 * events


def _ising_boltzmann(n: int, J: float, h: float, T: float) -> np.ndarray:
    """Exact stationary distribution of Glauber dynamics on an n x n periodic lattice:
    p(s) ~ exp(-E/T), E = -(J/2) sum_i s_i (sum of its 4 neighbours) - h sum_i s_i (the
    energy whose single-flip changes are the rates' dE), over all 2^(n n) states."""
    import itertools

    states = np.array(list(itertools.product((-1, 1), repeat=n * n))).reshape(-1, n, n)
    nb = sum(np.roll(states, s, axis=a) for a in (1, 2) for s in (1, -1))
    E = -0.5 * J * (states * nb).sum(axis=(1, 2)) - h * states.sum(axis=(1, 2))
    w = np.exp(-(E - E.min()) / T)
    return w / w.sum()


@pytest.mark.parametrize("integrator", ["waiting_time", "bkl"])
def test_stationary_distribution_is_the_master_equations(integrator: str) -> None:
    """2 x 2 Ising with Glauber rates (16 states, J = 1, h = 0.3, T = 3): the state seen at
    40000 times spaced by 0.5 (after 50 time units) has the exact stationary distribution
    of the master equation.  Each state's frequency within 5 sigma, sigma from the spread
    of 40 batches of 1000 consecutive samples (the two ordered states switch slowly, so
    the samples are correlated; batch means measure that instead of assuming it)."""
    from simcore.models.kmc2d.bkl import bkl_run

    n, params = 2, np.array([1.0, 0.3, 3.0])
    exact = _ising_boltzmann(n, *params)
    x = np.ones((n, n), dtype=np.int32)
    seen = np.zeros(40000, dtype=np.int64)
    samples, spacing, burn = seen.size, 0.5, 50.0
    if integrator == "bkl":
        t, step, _ = bkl_run(x, 0.0, burn, 0, ISING, params, 9, 9)
        for s in range(samples):
            t, step, _ = bkl_run(x, t, burn + (s + 1) * spacing, step, ISING, params, 9, 9)
            seen[s] = int("".join("1" if v > 0 else "0" for v in x.ravel()), 2)
    else:
        tau, cnt = initial_times(x, ISING, params, 9, 9)
        serial_run(x, tau, cnt, 0.0, burn, ISING, params, 9, 9)
        for s in range(samples):
            t_to = burn + (s + 1) * spacing
            serial_run(x, tau, cnt, t_to - spacing, t_to, ISING, params, 9, 9)
            seen[s] = int("".join("1" if v > 0 else "0" for v in x.ravel()), 2)
    batches = np.stack([np.bincount(b, minlength=16) / b.size for b in seen.reshape(40, -1)])
    freq = batches.mean(axis=0)
    sigma = batches.std(axis=0, ddof=1) / np.sqrt(len(batches))
    assert np.all(np.abs(freq - exact) < 5 * sigma + 1e-4), (freq, exact, sigma)
    assert sigma.max() < 0.02  # the test can see a wrong rate
