"""Physics of the KPZ models, checked with real statistics (no mocks, no stored results)."""

import itertools

import numpy as np
import pytest
from conftest import assert_quoted

from simcore.config import validate_run_config
from simcore.models.kpz.simulation import KPZSimulation


def _run(**kw):
    cfg = validate_run_config({"model": "kpz", "p": 1.0, "q": 0.0} | kw)
    sim = KPZSimulation(cfg)
    st = sim.initial_state()
    while not sim.done(st):
        sim.step(st)
    return sim.times, st


def _beta_fit(times, W2, lo, hi, groups=8):
    """Growth exponent from a log-log fit of W = sqrt(<W^2>) on [lo, hi], jackknife error."""
    m = (times >= lo) & (times <= hi)

    def fit(w2):
        return np.polyfit(np.log(times[m]), 0.5 * np.log(w2[m]), 1)[0]

    full = fit(W2.mean(axis=0))
    parts = np.array_split(np.arange(W2.shape[0]), groups)
    reps = np.array([fit(np.delete(W2, g, axis=0).mean(axis=0)) for g in parts])
    err = np.sqrt((groups - 1) / groups * ((reps - reps.mean()) ** 2).sum())
    return full, err


def test_exact_bridge_width_formula():
    """Exact enumeration: a uniform +-1 bridge of L steps has <W^2> = (L + 1) / 12.

    This is the stationary state of the 1D single-step model (TASEP on a ring has
    a uniform stationary measure), so the formula used below is checked exactly here.
    """
    for L in range(4, 17, 2):
        w2 = []
        for ups in itertools.combinations(range(L), L // 2):
            s = -np.ones(L)
            s[list(ups)] = 1
            w2.append(np.cumsum(s).var())
        assert np.mean(w2) == pytest.approx((L + 1) / 12, rel=1e-12)


@pytest.mark.slow
def test_1d_stationary_width():
    """1D, L = 32, p = 1: the stationary <W^2> equals (L + 1) / 12 = 2.75 within 3 sigma.

    Saturation time ~ L^(3/2) = 181 MCS; each of 128 samples is averaged over the
    sampling times in [500, 3000] MCS, and sigma is the standard error over samples.
    """
    L = 32
    times, st = _run(dim=1, L=L, samples=128, seed=11, t_max=3000, points_per_decade=40)
    per_sample = st["W2"][:, times >= 500].mean(axis=1)
    mean, err = per_sample.mean(), per_sample.std(ddof=1) / np.sqrt(per_sample.size)
    print(f"1D stationary <W^2>, L=32: {mean:.4f} +- {err:.4f} (exact {(L + 1) / 12:.4f})")
    assert abs(mean - (L + 1) / 12) < 3 * err, (mean, err)
    assert err < 0.05  # the test can fail: the statistics resolve 2% deviations
    assert_quoted(f"| {mean:.3f} +- {err:.3f} |", what="README Validation, 1D <W^2>")


@pytest.mark.slow
def test_1d_growth_exponent():
    """1D, L = 4096, 64 samples: beta from W(t) on [100, 1000] MCS is 1/3 within 0.02.

    Measured with these sizes: 0.327(5), 0.323(6) (two other seeds) and 0.318(6) (this one).
    beta_eff approaches 1/3 from below (corrections ~ t^(-1/3)), so 0.02 is about 3 sigma
    of statistics plus the known finite-time bias; EW (1/4) and random
    deposition (1/2) are excluded by far.
    """
    times, st = _run(dim=1, L=4096, samples=64, seed=3, t_max=1000)
    beta, err = _beta_fit(times, st["W2"], 100, 1000)
    print(f"1D beta on [100, 1000], L=4096, 64 samples: {beta:.4f} +- {err:.4f}")
    assert err < 0.01
    assert abs(beta - 1 / 3) < 0.02, (beta, err)
    assert_quoted(f"| {beta:.3f} +- {err:.3f} (KPZ: 1/3", what="README Validation, 1D beta")


@pytest.mark.slow
def test_2d_initial_width_and_growth_exponent():
    """2D octahedron, L = 256, 12 samples: W^2(0) = 1/4 exactly; beta on [100, 1000] MCS
    consistent with 0.2414 at the accuracy of a CI-sized run.

    beta_eff of the octahedron model approaches 0.2414 slowly from below
    (kelling2017 sec. 2.1); runs of this size gave 0.223(11) (L=256) and
    0.221(5) (L=512) on [100, 1000].  The window [0.19, 0.26] allows ~2 sigma of
    statistics plus that finite-time bias and still excludes the 1D value 1/3,
    EW (0) and random deposition (1/2).  L^z = 256^1.61 ~ 7500 MCS, so t <= 1000
    is the growth regime.
    """
    times, st = _run(dim=2, L=256, samples=12, seed=5, t_max=1000, points_per_decade=10)
    assert np.all(st["W2"][:, 0] == 0.25)
    beta, err = _beta_fit(times, st["W2"], 100, 1000, groups=6)
    print(f"2D beta on [100, 1000], L=256, 12 samples: {beta:.4f} +- {err:.4f}")
    assert err < 0.02
    assert 0.19 < beta < 0.26, (beta, err)
    assert_quoted(f"| {beta:.3f} +- {err:.3f} (asymptotic", what="README Validation, 2D beta")


def test_growth_and_etching_are_mirror_images():
    """p=1, q=0 grows the surface and p=0, q=1 etches it; by up-down symmetry the speeds
    agree within 4 standard errors (16 samples, L = 32, 50 MCS)."""
    _, up = _run(dim=2, L=32, samples=16, seed=1, t_max=50)
    _, down = _run(dim=2, L=32, samples=16, seed=2, t_max=50, p=0.0, q=1.0)
    v_up = up["mean_h"][:, -1] - up["mean_h"][:, 0]
    v_down = down["mean_h"][:, -1] - down["mean_h"][:, 0]
    assert np.all(v_up > 0) and np.all(v_down < 0)
    err = np.hypot(v_up.std(ddof=1), v_down.std(ddof=1)) / np.sqrt(16)
    assert abs(v_up.mean() + v_down.mean()) < 4 * err
