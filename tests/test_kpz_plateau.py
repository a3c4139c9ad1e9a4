"""Tests of the plateau of beta_eff (analysis.kpz_plateau): the flat fits on exact lines,
and through analyze on the synthetic growth datasets of test_kpz_analysis_betafit, where
a plateau is present (no correction to scaling) or absent (the intrinsic-width
correction, beta_eff still rising by ~0.006 per decade at t ~ 3000); and the table of
the fits (analysis.kpz_plateau_table)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr
from test_kpz_analysis_betafit import BETA_2D, growth_dataset

from analysis import kpz_plateau
from analysis.kpz import analyze
from analysis.kpz_betafit import number_text


def test_flat_fits_of_exact_lines() -> None:
    """A line c + s log10 t gives slope s exactly (row by row), a constant gives slope 0
    and chi2 0, and the level is the weighted mean."""
    t = np.array([1e3, 2e3, 5e3, 1e4, 3e4])
    sigma = np.array([1.0, 2.0, 1.0, 3.0, 2.0]) * 1e-3
    y = np.stack([0.24 + 0.004 * np.log10(t), np.full(t.size, 0.235)])
    fit = kpz_plateau.flat_fits(t, y, sigma)
    np.testing.assert_allclose(fit["slope"], [0.004, 0.0], atol=1e-14)
    w = sigma**-2
    np.testing.assert_allclose(fit["level"], (y * w).sum(axis=-1) / w.sum(), rtol=1e-14)
    assert fit["chi2"][1] < 1e-20 < fit["chi2"][0]


def _main(out, name: str) -> tuple[float, float]:
    (k,) = np.flatnonzero(out["beta_plateau_t_lower"].values == kpz_plateau.PLATEAU_T_LOWER)
    return float(out[name].values[k]), float(out[f"{name}_err"].values[k])


def test_a_plateau_is_found_where_beta_eff_is_flat() -> None:
    """No correction (b = 0): beta_eff = beta at every t up to noise (256 samples, sigma
    0.005), so over t_eff >= 1000 the level lies within 3 jackknife errors of beta and the
    slope within 3 of 0 (a 0.3 % chance each of a false failure for Gaussian estimates);
    the errors are positive and small."""
    out = analyze(growth_dataset(b=0.0, seed=5))
    level, level_err = _main(out, "beta_plateau")
    slope, slope_err = _main(out, "beta_plateau_slope")
    assert 0 < level_err < 2e-3 and 0 < slope_err < 5e-3
    assert abs(level - BETA_2D) < 3 * level_err
    assert abs(slope) < 3 * slope_err
    assert out["beta_plateau"].attrs["comment"].endswith(kpz_plateau.PLATEAU_RULE)


def test_no_plateau_where_beta_eff_still_rises() -> None:
    """The intrinsic-width correction (b = 1, omega = 2 beta): beta_eff rises by
    d beta_eff / d log10 t ~ ln(10) omega^2 b t^-omega / 2 = 0.0056 per decade at
    t = 3000, and the fit sees it: the slope over t_eff >= 1000 is more than 3 of its
    errors above 0 and within a factor 2 of that value (0.0047-0.0062 over seeds 1-8),
    and the level lies below beta."""
    out = analyze(growth_dataset(b=1.0, seed=5))
    slope, slope_err = _main(out, "beta_plateau_slope")
    level, level_err = _main(out, "beta_plateau")
    assert slope > 3 * slope_err
    expected = np.log(10) * (2 * BETA_2D) ** 2 * 3000.0 ** (-2 * BETA_2D) / 2
    assert expected / 2 < slope < 2 * expected
    assert level < BETA_2D - 3 * level_err


def test_too_few_values_give_nan_with_the_reason() -> None:
    """t_max = 2000: the windows from 3000 hold no beta_eff: NaN, and the comment says
    why."""
    out = analyze(growth_dataset(t_max=2000, seed=2))
    k = list(out["beta_plateau_t_lower"].values).index(3000.0)
    assert np.isnan(out["beta_plateau"].values[k])
    assert "t_lower=3000" in out["beta_plateau"].attrs["comment"]


def test_table_states_flat_and_rising(tmp_path) -> None:
    """The table (analysis.kpz_plateau_table) has one row per point and window; the flat
    growth law reads "flat" and the rising one "rises" over t_eff >= 1000, each row with
    the values the analysis holds; a window without values says why."""
    from analysis import kpz_plateau_table as table

    paths = []
    for name, b, t_max in (("flat", 0.0, 10000), ("rising", 1.0, 10000), ("short", 0.0, 2000)):
        paths.append(tmp_path / f"{name}.nc")
        analyze(growth_dataset(b=b, t_max=t_max, seed=5)).to_netcdf(paths[-1])
    lines = table.plateau_table(paths).splitlines()
    rows = [line.split(" | ") for line in lines[2:]]
    assert len(rows) == 3 * len(kpz_plateau.PLATEAU_T_LOWERS)
    main = [r for r in rows if r[1].startswith("[1000,")]
    assert main[0][5].startswith("flat") and main[1][5].startswith("rises")
    out = xr.load_dataset(paths[0])
    level, err = _main(out, "beta_plateau")
    assert main[0][3] == number_text(level, err)
    assert any("no fit:" in r[3] and "fewer than 3" in r[3] for r in rows)


def test_table_flatness_words() -> None:
    """Within 2 errors of zero a slope is flat; beyond, it rises or falls; NaN is '-'."""
    from analysis.kpz_plateau_table import flatness

    assert flatness(0.001, 0.001).startswith("flat")
    assert flatness(0.003, 0.001) == "rises (+3.0 sigma)"
    assert flatness(-0.003, 0.001) == "falls (-3.0 sigma)"
    assert flatness(float("nan"), 0.001) == "-"


def test_table_cli_bad_input_one_line(tmp_path) -> None:
    """A file that is not an analysis with the plateau fits: exit 2, one line naming it."""
    import subprocess
    import sys

    raw = tmp_path / "raw.nc"
    growth_dataset(n_samples=4, t_max=100).to_netcdf(raw)
    proc = subprocess.run([sys.executable, "-m", "analysis.kpz_plateau_table", str(raw)],
                          capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and str(raw) in err[0] and "beta_plateau" in err[0], err
