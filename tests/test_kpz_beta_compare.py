"""Tests of beta_eff of two kpz points compared time by time (analysis.kpz_beta_compare):
the chi2 p-value against tabulated quantiles and a Monte Carlo draw, and the comparison
on the synthetic growth datasets of tests/test_kpz_analysis_betafit.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_kpz_analysis_betafit import growth_dataset

from analysis import kpz_beta_compare
from analysis.kpz import analyze
from simcore.io.dataset import write_dataset

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("chi2", "dof"),
    [(3.841, 1), (5.991, 2), (7.815, 3), (11.070, 5), (18.307, 10), (31.410, 20)],
)
def test_p_value_at_the_tabulated_95_percent_quantiles(chi2: float, dof: int) -> None:
    """The 95% quantiles of the chi2 distribution (to 3 decimals in the tables) have
    p = 0.05 to the tables' rounding."""
    assert kpz_beta_compare.chi2_p_value(chi2, dof) == pytest.approx(0.05, abs=2e-4)


def test_p_value_of_zero_is_one_and_falls_with_chi2() -> None:
    p = [kpz_beta_compare.chi2_p_value(x, 7) for x in (0.0, 3.0, 7.0, 15.0, 40.0)]
    assert p[0] == pytest.approx(1.0) and all(a > b for a, b in zip(p, p[1:], strict=False))


def test_p_value_is_the_fraction_of_chi2_draws_beyond() -> None:
    """For 7 degrees of freedom (the odd closed form), the fraction of 200 000 chi2 draws
    at or above 9.0 is the p-value within 4 binomial standard errors (about 0.004)."""
    rng = np.random.default_rng(11)
    draws = (rng.standard_normal((200_000, 7)) ** 2).sum(axis=1)
    p = kpz_beta_compare.chi2_p_value(9.0, 7)
    assert abs((draws >= 9.0).mean() - p) <= 4 * np.sqrt(p * (1 - p) / draws.size)


@pytest.fixture(scope="module")
def analyses(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Analyses of two independent runs of one growth law, of a law with another beta,
    and of shorter runs (other sampling times)."""
    d = tmp_path_factory.mktemp("compare")
    sets = {
        "ref": growth_dataset(seed=3),
        "same": growth_dataset(seed=4, L=16384, n_samples=64),
        "steeper": growth_dataset(seed=5, beta=0.25),
        "short": growth_dataset(seed=6, t_max=1000),
    }
    return {k: write_dataset(analyze(ds), d / f"{k}.nc") for k, ds in sets.items()}


def test_independent_runs_of_one_law_agree_another_beta_differs(analyses: dict[str, Path]) -> None:
    """Two independent runs of one law give differences of about one standard deviation
    (chi2 per value near 1, p well above 0.05 for these seeds); beta = 0.25 against
    0.2414 is about 20 errors of beta_eff away at every late time."""
    import xarray as xr

    ref, same, steeper = (xr.load_dataset(analyses[k]) for k in ("ref", "same", "steeper"))
    for t_lower in kpz_beta_compare.COMPARE_T_LOWERS:
        a = kpz_beta_compare.beta_eff_agreement(ref, same, t_lower)
        assert a["n"] >= 4 and a["p"] >= kpz_beta_compare.AGREE_P
        assert 0.3 < a["chi2"] / a["n"] < 2.5
        b = kpz_beta_compare.beta_eff_agreement(ref, steeper, t_lower)
        assert b["p"] < 1e-6 and b["max_sigma"] > 5


def test_table_rows_and_other_sampling_times_refused(
    analyses: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """One row per other point and window, with the verdict last; a point with other
    sampling times is refused on one line naming its file, exit status 2."""
    args = [str(analyses[k]) for k in ("ref", "same", "steeper")]
    assert kpz_beta_compare.main(args) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 + 2 * len(kpz_beta_compare.COMPARE_T_LOWERS)
    verdicts = [line.strip("| ").split(" | ")[-1] for line in lines[2:]]
    assert verdicts == ["agree", "agree", "differ", "differ"]
    run = subprocess.run(
        [sys.executable, "-m", "analysis.kpz_beta_compare", args[0], str(analyses["short"])],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    err = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(err) == 1 and "short.nc" in err[0]
    assert "other sampling times" in err[0]
