"""Exact 2D KMC (darkins2024): the serial waiting-time integrator, BKL and the tile
algorithm's CPU twin, tested against exact results, the master equation and each other."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from simcore.models.kmc2d.bkl import bkl_run
from simcore.models.kmc2d.rates import ISING, SOS, rate_table, rate_tables
from simcore.models.kmc2d.serial import initial_times, serial_run
from simcore.models.kmc2d.tiles import StepControl, TileIntegrator, first_dt
from simcore.rng.exponential import LN2, SERIES, SQRT2, exp_variate

ROOT = Path(__file__).resolve().parents[1]


def run(n: int, t_end: float, params, seed: int, model: int = SOS, x=None, sample: int = 0):
    x = np.zeros((n, n), dtype=np.int32) if x is None else x
    inv, ratio = rate_tables(model, params)
    tau, cnt = initial_times(x, model, inv, sample, seed, 7)
    t, events = serial_run(x, tau, cnt, 0.0, t_end, model, inv, ratio, sample, seed, 7)
    return x, tau, cnt, events


def tiles(x, B, t_targets, params, seed, model=SOS, sample=0, halo=None):
    """The tile algorithm (CPU twin) from x at t = 0 through the sampling times."""
    inv, ratio = rate_tables(model, params)
    tau, cnt = initial_times(x, model, inv, sample, seed, 7)
    ctl = StepControl(t=0.0, dt=first_dt(tau, 0.0))
    ti = TileIntegrator(x.copy(), tau, cnt, B, model, inv, ratio, sample, seed, 7, ctl, halo)
    for t in t_targets:
        ti.run_to(t)
    return ti


# -- random numbers ---------------------------------------------------------------------


def test_exponential_variates_are_minus_log_u() -> None:
    """The table-free logarithm agrees with the math library within 4 ulp of -ln(u) over
    u from 2^-53 to 1, and the variates have mean 1 and variance 1."""
    rng = np.random.default_rng(0)
    r = rng.integers(0, 2**32, size=(20000, 2), dtype=np.uint64)
    r[:4] = [[0, 0], [0xFFFFFFFF, 0xFFFFFFFF], [0x80000000, 0], [0, 0x800]]
    e = np.array([exp_variate(a, b) for a, b in r])
    top = (r[:, 0] << np.uint64(21)) | (r[:, 1] >> np.uint64(11))
    u = (top.astype(np.float64) + 1.0) / 2.0**53
    ref = -np.log(u)
    assert e[1] == 0.0 and ref[1] == 0.0  # u = 1
    assert np.all(np.abs(e - ref) <= 4 * np.spacing(np.maximum(ref, 1e-300)) + 1e-300)
    assert abs(e[4:].mean() - 1) < 5 / np.sqrt(e.size) and abs(e[4:].var() - 1) < 0.1


def test_cuda_header_has_the_same_constants() -> None:
    """The CUDA twin of the variate uses exactly the Python constants (hex literals)."""
    text = (ROOT / "simcore/rng/cuda/exponential.cuh").read_text()
    consts = dict(re.findall(r"#define (EXPV_\w+) (\S+)", text))
    assert float.fromhex(consts["EXPV_LN2"]) == LN2
    assert float.fromhex(consts["EXPV_SQRT2"]) == SQRT2
    for k, c in enumerate(SERIES):
        assert float.fromhex(consts[f"EXPV_C{k}"]) == c


# -- the serial waiting-time integrator ---------------------------------------------------


@pytest.mark.parametrize(("n", "samples"), [(4, 64), (32, 8)])
def test_random_deposition_is_exact(n: int, samples: int) -> None:
    """phi = 0 is random deposition: every column is a Poisson process of rate k2, so the
    mean height is k2 t and W^2 (the variance over columns) k2 t (1 - 1/N) in
    expectation, at any size.  k2 = 0.5 to t = 40: the mean height must be within 5 sigma
    (sigma = sqrt(k2 t / (samples N))), W^2 within 5 sigma of its estimator's spread
    (Var(s^2) = (2 lambda^2 + lambda) / N per sample, Poisson); and every event added
    one atom (the count of events is the sum of heights)."""
    k2, t = 0.5, 40.0
    N, lam = n * n, k2 * t
    hs, w2s = [], []
    for s in range(samples):
        x, _, _, events = run(n, t, (k2, 0.0), seed=100, sample=s)
        assert events == x.sum()
        hs.append(x.mean())
        w2s.append(x.var())
    mean_h, mean_w2 = np.mean(hs), np.mean(w2s)
    assert abs(mean_h - lam) < 5 * np.sqrt(lam / (samples * N))
    assert abs(mean_w2 - lam * (1 - 1 / N)) < 5 * np.sqrt((2 * lam**2 + lam) / N / samples)


def test_stopping_and_resuming_is_bit_identical() -> None:
    """The state (x, tau, draw counters) is complete: running to t1 and then on to t2
    gives the same lattice, times and counters as running to t2 at once."""
    p = (1.0, 1.0)
    inv, ratio = rate_tables(SOS, p)
    x1, tau1, cnt1, e1 = run(24, 30.0, p, seed=5)
    x2 = np.zeros((24, 24), dtype=np.int32)
    tau2, cnt2 = initial_times(x2, SOS, inv, 0, 5, 7)
    t, ea = serial_run(x2, tau2, cnt2, 0.0, 11.0, SOS, inv, ratio, 0, 5, 7)
    _, eb = serial_run(x2, tau2, cnt2, t, 30.0, SOS, inv, ratio, 0, 5, 7)
    assert ea + eb == e1
    assert np.array_equal(x1, x2) and np.array_equal(tau1, tau2) and np.array_equal(cnt1, cnt2)
    x3, *_ = run(24, 30.0, p, seed=6)
    assert not np.array_equal(x1, x3)
    x4, *_ = run(24, 30.0, p, seed=5, sample=1)
    assert not np.array_equal(x1, x4)


def test_bonds_smooth_the_surface() -> None:
    """Larger phi favours attachment at steps: at the same mean height the surface is
    smoother (phi = 0, 1, 2 give strictly decreasing W^2, darkins2024 Fig. 3 snapshots)."""
    widths = []
    for phi, t_end in ((0.0, 20.0), (1.0, 200.0), (2.0, 2000.0)):
        x, *_ = run(32, t_end, (1.0, phi), seed=3)
        widths.append(x.var() / max(x.mean(), 1.0))
    assert widths[0] > widths[1] > widths[2]


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
    and the draw counters hold one initial draw per cell plus one per event (SOS rates
    never vanish, and a class change rescales a waiting time without drawing)."""
    x, tau, cnt, events = run(n, 5.0, (1.0, 0.5), seed=1)
    assert tau.min() >= 5.0 and np.all(cnt >= 1)
    assert cnt.sum() == n * n + events


# -- the master equation on a tiny lattice ---------------------------------------------


def _ising_states(n: int) -> np.ndarray:
    return np.array(list(itertools.product((-1, 1), repeat=n * n))).reshape(-1, n, n)


def _code(x: np.ndarray) -> int:
    return int("".join("1" if v > 0 else "0" for v in x.ravel()), 2)


def _ising_boltzmann(n: int, J: float, h: float, T: float) -> np.ndarray:
    """Exact stationary distribution of Glauber dynamics on an n x n periodic lattice:
    p(s) ~ exp(-E/T), E = -(J/2) sum_i s_i (sum of its 4 neighbours) - h sum_i s_i (the
    energy whose single-flip changes are the rates' dE), over all 2^(n n) states."""
    states = _ising_states(n)
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
    n, params = 2, (1.0, 0.3, 3.0)
    exact = _ising_boltzmann(n, *params)
    inv, ratio = rate_tables(ISING, params)
    rates = rate_table(ISING, params)
    x = np.ones((n, n), dtype=np.int32)
    seen = np.zeros(40000, dtype=np.int64)
    spacing, burn = 0.5, 50.0
    if integrator == "bkl":
        t, step, _ = bkl_run(x, 0.0, burn, 0, ISING, rates, 0, 9, 9)
        for s in range(seen.size):
            t, step, _ = bkl_run(x, t, burn + (s + 1) * spacing, step, ISING, rates, 0, 9, 9)
            seen[s] = _code(x)
    else:
        tau, cnt = initial_times(x, ISING, inv, 0, 9, 9)
        serial_run(x, tau, cnt, 0.0, burn, ISING, inv, ratio, 0, 9, 9)
        for s in range(seen.size):
            t_to = burn + (s + 1) * spacing
            serial_run(x, tau, cnt, t_to - spacing, t_to, ISING, inv, ratio, 0, 9, 9)
            seen[s] = _code(x)
    batches = np.stack([np.bincount(b, minlength=16) / b.size for b in seen.reshape(40, -1)])
    freq = batches.mean(axis=0)
    sigma = batches.std(axis=0, ddof=1) / np.sqrt(len(batches))
    assert np.all(np.abs(freq - exact) < 5 * sigma + 1e-4), (freq, exact, sigma)
    assert sigma.max() < 0.02  # the test can see a wrong rate


def test_bkl_waiting_times_and_jumps_are_the_master_equations() -> None:
    """Event by event on the 2 x 2 Glauber Ising model (J = 1, h = 0.3, T = 1.5): from each
    state s the waiting time is Exp(R(s)), R the sum of the 4 flip rates, and the next
    state is s with spin i flipped with probability w_i(s) / R(s) (the master equation's
    generator).  60000 events; per visited state the mean waiting time within 5 sigma of
    1 / R (sigma = 1 / (R sqrt(visits))), each jump frequency within 5 binomial sigma,
    and the waiting times' second moment 2 / R^2 within 6 sigma (Exp: Var(t^2) = 20/R^4)."""
    n, params = 2, (1.0, 0.3, 1.5)
    rates = rate_table(ISING, params)
    states = _ising_states(n)
    from simcore.models.kmc2d.events import patch_class_all

    flip_rates = np.array(
        [rates[patch_class_all(s.astype(np.int32), ISING)].ravel() for s in states]
    )
    x = np.ones((n, n), dtype=np.int32)
    t, step = 0.0, 0
    waits, jumps = [[] for _ in states], np.zeros((len(states), n * n), dtype=np.int64)
    for _ in range(60000):
        before, x_before = _code(x), x.copy()
        t_new, step, ev = bkl_run(x, t, np.inf, step, ISING, rates, 0, 4, 4, max_events=1)
        assert ev == 1
        waits[before].append(t_new - t)
        jumps[before, int(np.flatnonzero((x != x_before).ravel())[0])] += 1
        t = t_new
    checked = 0
    for s, w in enumerate(waits):
        if len(w) < 500:
            continue
        R, w = flip_rates[s].sum(), np.asarray(w)
        assert abs(w.mean() - 1 / R) < 5 / (R * np.sqrt(w.size))
        assert abs((w**2).mean() - 2 / R**2) < 6 * np.sqrt(20 / w.size) / R**2
        p = flip_rates[s] / R
        freq = jumps[s] / w.size
        assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / w.size) + 1e-9)
        checked += 1
    assert checked >= 4


# -- the tile algorithm (CPU twin) ------------------------------------------------------


@pytest.mark.parametrize(
    "model, params, L, B, x0, halo",
    [
        (SOS, (1.0, 1.0), 64, 8, "flat", None),
        (SOS, (1.0, 2.0), 48, 8, "flat", None),
        (SOS, (1.0, 0.0), 32, 4, "flat", None),
        (SOS, (1.0, 1.0), 24, 8, "flat", None),  # three tiles: a patch covers the torus
        (SOS, (1.0, 0.5), 40, 4, "flat", None),  # L not a power of two
        (ISING, (1.0, 0.1, 2.0), 32, 8, "random", None),
        (ISING, (1.0, 0.0, 1.5), 32, 4, "random", None),
        (SOS, (1.0, 2.0), 64, 16, "flat", 7),  # a halo thinner than the tile
        (SOS, (1.0, 1.0), 64, 8, "flat", 1),  # the thinnest halo
        (ISING, (1.0, 0.1, 2.0), 32, 8, "random", 3),
    ],
)
def test_tiles_reproduce_the_serial_integrator_bit_for_bit(model, params, L, B, x0, halo) -> None:
    """darkins2024's exactness claim, checked directly: after every sampling time the
    tile algorithm's lattice, waiting times and draw counters equal the serial
    integrator's for the same seed, and its count of central events equals the serial
    number of events.  Also with a halo thinner than the 3 x 3-tile patch's (the
    checksums compare only the cells next to a tile, so any halo is exact; a thinner one
    is only rejected more often)."""
    rng = np.random.default_rng(L + B)
    if x0 == "flat":
        x = np.zeros((L, L), dtype=np.int32)
    else:
        x = rng.choice(np.array([-1, 1], dtype=np.int32), size=(L, L))
    inv, ratio = rate_tables(model, params)
    ti = tiles(x, B, [], params, seed=21, model=model, sample=2, halo=halo)
    xs = x.copy()
    tau, cnt = initial_times(xs, model, inv, 2, 21, 7)
    t, total = 0.0, 0
    for t_to in (0.5, 3.0, 12.0, 40.0):
        ti.run_to(t_to)
        _, ev = serial_run(xs, tau, cnt, t, t_to, model, inv, ratio, 2, 21, 7)
        t, total = t_to, total + ev
        assert np.array_equal(ti.x, xs) and np.array_equal(ti.tau, tau)
        assert np.array_equal(ti.cnt, cnt) and ti.events == total
    assert total > 0


def test_tiles_reject_steps_that_the_boundary_reached() -> None:
    """The checksums see the fixed boundary: a step of dt = 40 at phi = 1 (far beyond the
    adaptive dt of about 1-2) is rejected, and the lattice it computed indeed differs
    from the serial one.  Once settled (after the first 20 steps) the adaptive run rejects
    about one step in 24 (halving, then 23 growths by 1.03, sec. 2.2): 150-200 steps give
    8 +- 3 rejections, so the fraction must lie in [0.015, 0.09]."""
    L, B, params = 64, 8, (1.0, 1.0)
    x = np.zeros((L, L), dtype=np.int32)
    ti = tiles(x, B, [300.0], params, seed=4)
    settled = ti.control.history[20:]
    fraction = sum(not ok for _, ok in settled) / len(settled)
    assert 0.015 < fraction < 0.09, fraction
    assert max(dt for dt, _ in settled) < 10
    xs = x.copy()
    inv, ratio = rate_tables(SOS, params)
    tau, cnt = initial_times(xs, SOS, inv, 0, 4, 7)
    serial_run(xs, tau, cnt, 0.0, 340.0, SOS, inv, ratio, 0, 4, 7)
    ok, _ = ti.try_step(340.0)
    assert not ok
    assert not np.array_equal(ti.back[0], xs)


def test_tiles_count_only_central_events() -> None:
    """Irreversible SOS: the real number of events is the sum of the heights.  The tile
    algorithm's count (central tiles only) is exactly that; every tile's patch fires
    about (3B - 2)^2 / B^2 = 7.6 times as many events at B = 8 (the factor by which the
    published code over-counts)."""
    from simcore.models.kmc2d.events import init_patch, run_events

    L, B, params = 48, 8, (1.0, 0.0)
    x = np.zeros((L, L), dtype=np.int32)
    ti = tiles(x, B, [5.0], params, seed=8)
    assert ti.events == ti.x.sum()
    # one patch, the whole 24 x 24 neighbourhood of tile 0, counted both ways
    inv, ratio = rate_tables(SOS, params)
    S = 3 * B
    xl = np.zeros((S, S), dtype=np.int32)
    tau, cnt = np.full((S, S), np.inf), np.zeros((S, S), dtype=np.uint32)
    cls = np.zeros((S, S), dtype=np.int64)
    init_patch(xl, tau, cnt, cls, 0.0, SOS, inv, 1, 0, 0, L, 0, 8, 7)
    sums = np.zeros(17, dtype=np.uint64)
    _, events = run_events(
        xl,
        tau,
        cnt,
        cls,
        0.0,
        30.0,
        SOS,
        inv,
        ratio,
        1,
        0,
        0,
        L,
        0,
        8,
        7,
        B,
        sums,
        B,
    )
    assert 7.0 < events / int(sums[16]) < 8.2
