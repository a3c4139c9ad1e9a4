"""Tests of analysis.stats (jackknife), analysis.kpz (effective exponents) and the
analysis CLI (analysis.analyze).

All tests use real statistics on synthetic datasets in the ARCHITECTURE.md layout, built
from known laws with independent lognormal noise per sample and time:

    W2(t)   = A t^(2 beta)           * X,   X = exp(sigma*eps - sigma^2/2), E[X] = 1
    C(t, s) = s^(-b) (t/s)^(-lz)     * X    (NaN where t < s)

so that the sample mean is unbiased and its relative standard error is
``r = sqrt(exp(sigma^2) - 1) / sqrt(n)``.  For one pair of successive times
``t_j < t_i`` (independent noise at each time) eq. 8 then has the standard error

    sigma_beta   = sqrt(2) r / (2 ln(t_i/t_j))     (E = W = sqrt(<W2>): factor 1/2)
    sigma_lambda = sqrt(2) r / ln(t_i/t_j)

which the tests use both to judge the recovered exponents (pulls) and to check that the
jackknife errors have the right size.  Seeds are fixed, so the tests are deterministic;
the bounds were checked against 1400 other seeds and are quoted per test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import analysis.analyze as analysis_cli
from analysis import kpz, kpz_fits
from analysis.analyze import main
from analysis.kpz import AnalysisInputError, analyze
from analysis.stats import group_slices, jackknife
from simcore.io.dataset import write_dataset

REPO = Path(__file__).resolve().parents[1]

WAITING_TIMES = np.array([4, 16, 64])
T_MAX = 1024


def sampling_times(t_max: int = T_MAX, per_decade: int = 10) -> np.ndarray:
    """0, log-spaced times, every waiting time and t_max (like a run file)."""
    decades = np.log10(t_max)
    log_t = np.unique(np.round(np.logspace(0, decades, int(per_decade * decades) + 1)).astype(int))
    return np.unique(np.concatenate([[0], log_t, WAITING_TIMES, [t_max]])).astype(np.int64)


def synthetic_dataset(
    *,
    dim: int = 2,
    n_samples: int = 256,
    beta: float = 0.2414,
    sigma: float = 0.1,
    lz_h: float = 1.2,
    lz_s: float = 0.8,
    b_h: float = -0.48,
    amplitude: float = 0.3,
    seed: int = 1,
) -> xr.Dataset:
    """Aggregated dataset with W2, mean_h, C_h, C_s from known power laws (see module doc)."""
    rng = np.random.default_rng(seed)
    times = sampling_times()
    t = times.astype(float)
    s = WAITING_TIMES
    nt, ns = len(times), len(s)

    def noise(*shape: int) -> np.ndarray:
        return rng.lognormal(-0.5 * sigma**2, sigma, size=shape)

    w2 = amplitude * t ** (2 * beta) * noise(n_samples, nt)  # W2(t=0) = 0, as in real runs
    c_h = np.full((n_samples, ns, nt), np.nan)
    c_s = np.full((n_samples, ns, nt), np.nan)
    for k, sv in enumerate(s):
        m = t >= sv
        x = t[m] / sv
        c_h[:, k, m] = float(sv) ** (-b_h) * x ** (-lz_h) * noise(n_samples, int(m.sum()))
        c_s[:, k, m] = 0.25 * x ** (-lz_s) * noise(n_samples, int(m.sum()))
    mean_h = 0.5 * t + rng.normal(0.0, 1.0, size=(n_samples, nt))
    ds = xr.Dataset(
        {
            "W2": (("sample", "t"), w2, {"long_name": "squared interface width", "units": "1"}),
            "mean_h": (("sample", "t"), mean_h, {"long_name": "mean height", "units": "1"}),
            "C_h": (
                ("sample", "s", "t"),
                c_h,
                {"long_name": "height autocorrelation", "units": "1"},
            ),
            "C_s": (
                ("sample", "s", "t"),
                c_s,
                {"long_name": "slope autocorrelation", "units": "1"},
            ),
        },
        coords={
            "sample": ("sample", np.arange(n_samples, dtype=np.int64)),
            "t": ("t", times, {"units": "MCS", "long_name": "time"}),
            "s": ("s", s.astype(np.int64), {"units": "MCS", "long_name": "waiting time"}),
        },
    )
    ds.attrs = {
        "Conventions": "CF-1.8",
        "model": "kpz",
        "dim": dim,
        "L": 64 if dim == 2 else 1024,
        "p": 1.0,
        "q": 0.0,
        "scheme": "sequential",
        "backend": "cpu",
        "n_runs": 2,
        "n_samples": n_samples,
        "point": f"d{dim}_test",
        "campaign": "synthetic",
        "simcore_version": "0.1.0",
        "git_commit": "0123456789abcdef",
        "config": "model: kpz\ndim: 2\n",
    }
    return ds


def predicted_pair_error(sigma: float, n: int, t_lo: np.ndarray, t_hi: np.ndarray) -> np.ndarray:
    """Standard error of -d ln<C>/d ln t between two times (independent lognormal noise)."""
    r = np.sqrt(np.expm1(sigma**2)) / np.sqrt(n)
    return np.sqrt(2.0) * r / np.log(t_hi / t_lo)


# --------------------------------------------------------------------------- jackknife


def test_jackknife_of_mean_is_std_over_sqrt_n() -> None:
    """One sample per group, identity function: exactly std(ddof=1)/sqrt(n)."""
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 2.0, size=(50, 4))
    est, err = jackknife(x, n_groups=50)
    np.testing.assert_allclose(est, x.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(err, x.std(axis=0, ddof=1) / np.sqrt(50), rtol=1e-12)

    da = xr.DataArray(x, dims=("sample", "t"))
    est_x, err_x = jackknife(da, lambda m: m, n_groups=50)
    assert err_x.dims == ("t",)
    np.testing.assert_allclose(err_x.values, err, rtol=1e-12)


def test_grouped_jackknife_matches_spread_of_group_means() -> None:
    """Equal groups: exactly std(group means)/sqrt(G); and close to std/sqrt(n).

    With G = 32 groups the jackknife variance has ~31 degrees of freedom, so the error
    itself scatters by ~1/sqrt(2*31) = 13% around std/sqrt(n); 40% is a 3-sigma bound.
    """
    rng = np.random.default_rng(1)
    n, g = 1024, 32
    x = rng.normal(0.0, 1.5, size=n)
    _, err = jackknife(xr.DataArray(x, dims="sample"), n_groups=g)
    group_means = x.reshape(g, n // g).mean(axis=1)
    np.testing.assert_allclose(float(err), group_means.std(ddof=1) / np.sqrt(g), rtol=1e-12)
    assert abs(float(err) / (x.std(ddof=1) / np.sqrt(n)) - 1.0) < 0.4


def test_unequal_groups_and_default_group_count() -> None:
    """n = 100 with the default 32 groups (sizes 3 and 4) still gives ~std/sqrt(n)."""
    slices = group_slices(100, 32)
    sizes = {sl.stop - sl.start for sl in slices}
    assert sizes == {3, 4} and slices[0].start == 0 and slices[-1].stop == 100
    rng = np.random.default_rng(2)
    x = rng.normal(0.0, 1.0, size=100)
    _, err = jackknife(xr.DataArray(x, dims="sample"))
    assert abs(float(err) / (x.std(ddof=1) / 10.0) - 1.0) < 0.4


def test_nonlinear_function_matches_delta_method() -> None:
    """ln(mean) of lognormal data: error ~ std/(mean sqrt(n)) (delta method), 40% bound."""
    rng = np.random.default_rng(3)
    x = rng.lognormal(0.0, 0.5, size=(2000, 3))
    ds = xr.Dataset({"a": (("sample", "k"), x), "b": (("sample", "k"), 2 * x)})
    est, err = jackknife(ds, lambda m: np.log(m))
    delta = x.std(axis=0, ddof=1) / (x.mean(axis=0) * np.sqrt(2000))
    np.testing.assert_allclose(est["a"].values, np.log(x.mean(axis=0)), rtol=1e-12)
    assert np.all(np.abs(err["a"].values / delta - 1.0) < 0.4)
    np.testing.assert_allclose(err["b"].values, err["a"].values, rtol=1e-9)  # ln(2m) = ln2+ln m


def test_vectorized_equals_per_group_evaluation() -> None:
    ds = synthetic_dataset(n_samples=20, seed=4)[list(kpz.REQUIRED_VARIABLES)]
    ds = ds.astype(float)
    loop = jackknife(ds, kpz._derived, n_groups=7)
    vec = jackknife(ds, kpz._derived, n_groups=7, vectorized=True)
    for name in loop.error.data_vars:
        np.testing.assert_allclose(vec.error[name].values, loop.error[name].values, rtol=1e-10)
        np.testing.assert_allclose(vec.estimate[name].values, loop.estimate[name].values)


def test_single_sample_gives_nan_error() -> None:
    est, err = jackknife(xr.DataArray(np.ones((1, 3)), dims=("sample", "t")))
    assert np.all(est.values == 1.0) and np.all(np.isnan(err.values))


# --------------------------------------------------------------------------- analyze


@pytest.mark.parametrize(("dim", "beta"), [(1, 1.0 / 3.0), (2, 0.2414)])
def test_beta_eff_recovers_beta(dim: int, beta: float) -> None:
    """beta_eff scatters around beta with the predicted errors, and its errors are right.

    n = 256, sigma = 0.1: r = 0.1/16 = 0.63% per time; per pair sigma_beta = 4e-3 ... 0.04
    (log spacing 10/decade; the waiting times add closer pairs).  Checks, with bounds
    set outside the extremes seen over 1400 seeds (quoted in brackets):
    - jackknife error / predicted error: median in [0.8, 1.2] ([0.89, 1.07]; 32 groups
      give ~13% scatter per pair, the median over 27 pairs is tighter) and every ratio
      in [0.4, 2] ([0.56, 1.5]);
    - pulls (beta_eff - beta) / predicted error (noise only, so a bias in beta_eff would
      show): all |pull| < 5 ([<= 4.0]), RMS in [0.5, 1.75] ([0.60, 1.63]);
    - the telescoped slope over the whole range (sum of beta_eff * dln t / total) equals
      beta within 5 predicted sigmas (sigma = sqrt(2) r / (2 ln 1024) = 6.4e-4; [2.8]),
      i.e. beta is recovered to ~0.3% absolute.
    """
    n, sigma = 256, 0.1
    out = analyze(synthetic_dataset(dim=dim, beta=beta, n_samples=n, sigma=sigma, seed=10 + dim))
    t_lo, t_hi = out["t_lower"].values, out["t_upper"].values
    np.testing.assert_allclose(out["t_eff"].values, 0.5 * (t_lo + t_hi))
    assert t_lo[0] == 1.0  # t = 0 skipped

    b, e = out["beta_eff"].values, out["beta_eff_err"].values
    pred = 0.5 * predicted_pair_error(sigma, n, t_lo, t_hi)
    ratio = e / pred
    assert 0.8 < np.median(ratio) < 1.2 and np.all((ratio > 0.4) & (ratio < 2.0))
    pulls = (b - beta) / pred
    assert np.all(np.abs(pulls) < 5.0)
    assert 0.5 < np.sqrt(np.mean(pulls**2)) < 1.75

    dlnt = np.log(t_hi / t_lo)
    overall = np.sum(b * dlnt) / np.sum(dlnt)
    sigma_overall = np.sqrt(2) * np.sqrt(np.expm1(sigma**2) / n) / (2 * np.log(T_MAX))
    assert abs(overall - beta) < 5 * sigma_overall

    assert out.attrs["reference_beta"] == pytest.approx(1 / 3 if dim == 1 else 0.2414)


def _windows(out: xr.Dataset, kind: str, s: float) -> tuple[np.ndarray, ...]:
    """(t_lower, t_upper, estimate, error) of the lambda/z windows of waiting time s."""
    at = out[f"lambda_{kind}_s"].values == s
    name = f"lambda_{kind}_over_z_eff"
    return (out[f"lambda_{kind}_t_lower"].values[at], out[f"lambda_{kind}_t_upper"].values[at],
            out[name].values[at], out[f"{name}_err"].values[at])  # fmt: skip


def test_lambda_over_z_recovered_on_successive_pairs_when_precise() -> None:
    """lambda/z of heights and slopes from C = s^-b (t/s)^-lz: same checks as for beta.

    With n = 256 and sigma = 0.1 every pair's error (<= 0.04) is below the windows' target
    (0.1), so the windows are the successive pairs of times t > s, from the first to
    t_max, none missing and none NaN (51 per variable).  Bounds vs the extremes over 600
    seeds: error ratio median [0.88, 1.07], each ratio [0.54, 1.64]; pulls against the
    predicted error max |pull| 4.8, RMS [0.66, 1.32].
    """
    n, sigma, lz_h, lz_s = 256, 0.1, 1.2, 0.8
    out = analyze(synthetic_dataset(n_samples=n, sigma=sigma, lz_h=lz_h, lz_s=lz_s, seed=21))
    times = out["t"].values.astype(float)
    for kind, lz in (("h", lz_h), ("s", lz_s)):
        assert out[f"lambda_{kind}_over_z_eff"].dims == (f"lambda_{kind}_window",)
        lo_all, hi_all, val_all, err_all, pred_all = [], [], [], [], []
        for s in out["s"].values:
            lo, hi, val, err = _windows(out, kind, s)
            after = times[times > s]
            np.testing.assert_array_equal(lo, after[:-1])
            np.testing.assert_array_equal(hi, after[1:])
            at = out[f"lambda_{kind}_s"].values == s
            np.testing.assert_allclose(out[f"lambda_{kind}_t_over_s"].values[at],
                                       np.sqrt(lo * hi) / s)  # fmt: skip
            lo_all += [lo]
            hi_all += [hi]
            val_all += [val]
            err_all += [err]
            pred_all += [predicted_pair_error(sigma, n, lo, hi)]
        val, err, pred = (np.concatenate(x) for x in (val_all, err_all, pred_all))
        assert val.size == 51 and np.all(np.isfinite(val)) and np.all(np.isfinite(err))
        ratio = err / pred
        assert 0.8 < np.median(ratio) < 1.2 and np.all((ratio > 0.4) & (ratio < 2.0))
        pulls = (val - lz) / pred
        assert np.all(np.abs(pulls) < 5.5)
        assert 0.55 < np.sqrt(np.mean(pulls**2)) < 1.5
        assert np.all(np.isnan(out[f"C_{kind}_signal_lost"].values))


def test_lambda_windows_widen_where_noisy() -> None:
    """With few noisy samples (n = 16, sigma = 1: a pair's error ~0.5) the windows widen:
    contiguous from the first time > s to the end of the signal, each but the last of a
    waiting time with a jackknife error at or below the target, and wider windows than
    pairs where the noise needs them; the estimates still scatter around lz (|pull| < 5 with
    the jackknife errors, which are independent of the window choice up to selection)."""
    out = analyze(synthetic_dataset(n_samples=16, sigma=1.0, lz_h=1.2, lz_s=0.8, seed=3))
    times = out["t"].values.astype(float)
    widened = 0
    for kind, lz in (("h", 1.2), ("s", 0.8)):
        for s in out["s"].values:
            lo, hi, val, err = _windows(out, kind, s)
            assert lo.size >= 1 and lo[0] == times[times > s][0]
            np.testing.assert_array_equal(lo[1:], hi[:-1])  # contiguous
            assert np.all(err[:-1] <= kpz_fits.LAMBDA_TARGET_ERR)
            assert np.all(np.isfinite(val)) and np.all(np.abs(val - lz) < 5 * err)
            idx = np.searchsorted(times, hi) - np.searchsorted(times, lo)
            widened += int(np.sum(idx > 1))
    assert widened > 0


def test_lambda_stops_where_the_signal_is_lost() -> None:
    """Where the mean C drops to <= 2 errors (here: set to -0.01 at t = 128 for s = 16) the
    signal is lost: no window of that waiting time reaches t = 128 or later, the time is
    recorded as C_s_signal_lost, no estimate is NaN, and the other waiting times are
    untouched (their windows reach t_max)."""
    ds = synthetic_dataset(n_samples=32, seed=5)
    times = ds["t"].values
    ds["C_s"][:, 1, int(np.flatnonzero(times == 128)[0])] = -0.01
    out = analyze(ds)
    lo, hi, val, err = _windows(out, "s", 16)
    assert hi.max() < 128 and np.all(np.isfinite(val))
    assert out["C_s_signal_lost"].values.tolist()[1] == 128
    for s in (4, 64):
        assert _windows(out, "s", s)[1].max() == T_MAX
    assert out["C_s_mean"].isel(s=1, t=int(np.flatnonzero(times == 128)[0])) < 0  # reported
    for kind in ("h", "s"):
        assert not np.isnan(out[f"lambda_{kind}_over_z_eff"].values).any()
    assert "signal is lost" in out.attrs["lambda_window_rule"]


def test_output_layout_attrs_and_mean_errors() -> None:
    """Every variable has long_name and units; provenance copied; W2_err = std/sqrt(n)."""
    ds = synthetic_dataset(n_samples=20, seed=6)
    out = analyze(ds, n_groups=20)
    expected = {
        "W2_mean": ("t",),
        "W2_err": ("t",),
        "mean_h_mean": ("t",),
        "mean_h_err": ("t",),
        "C_h_mean": ("s", "t"),
        "C_h_err": ("s", "t"),
        "C_s_mean": ("s", "t"),
        "C_s_err": ("s", "t"),
        "beta_eff": ("t_eff",),
        "beta_eff_err": ("t_eff",),
        "lambda_h_over_z_eff": ("lambda_h_window",),
        "lambda_h_over_z_eff_err": ("lambda_h_window",),
        "lambda_s_over_z_eff": ("lambda_s_window",),
        "lambda_s_over_z_eff_err": ("lambda_s_window",),
        "C_h_signal_lost": ("s",),
    }
    assert {k: out[k].dims for k in expected} == expected
    for name in list(out.data_vars) + list(out.coords):
        assert out[name].attrs.get("long_name"), name
        assert "units" in out[name].attrs, name
    for name in ("t", "s", "t_eff", "t_lower", "t_upper", "lambda_h_t_lower", "lambda_s_s"):
        assert out[name].attrs["units"] == "MCS"
    for name in ("beta_eff", "lambda_h_over_z_eff", "lambda_h_t_over_s"):
        assert out[name].attrs["units"] == "1"
    for key in (
        "model",
        "dim",
        "L",
        "p",
        "q",
        "scheme",
        "backend",
        "n_samples",
        "point",
        "campaign",
        "simcore_version",
        "git_commit",
        "config",
    ):
        assert out.attrs[key] == ds.attrs[key], key
    assert (
        "misprint" in out.attrs["analysis_method"] and "jackknife" in out.attrs["analysis_method"]
    )
    assert out.attrs["jackknife_groups"] == 20

    w2 = ds["W2"].values
    np.testing.assert_allclose(out["W2_mean"].values, w2.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(
        out["W2_err"].values, w2.std(axis=0, ddof=1) / np.sqrt(20), rtol=1e-9
    )
    c = ds["C_h"].values
    np.testing.assert_allclose(
        out["C_h_err"].values, c.std(axis=0, ddof=1) / np.sqrt(20), rtol=1e-9
    )


def test_missing_variable_raises() -> None:
    with pytest.raises(AnalysisInputError, match="W2"):
        analyze(synthetic_dataset(n_samples=4).drop_vars("W2"))


# --------------------------------------------------------------------------- CLI


def test_cli_writes_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Output goes to a temp file in the output dir, then os.replace onto the final name."""
    src = tmp_path / "ds.nc"
    synthetic_dataset(n_samples=16, seed=7).to_netcdf(src)
    out = tmp_path / "analysis" / "point.nc"
    calls: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(a: str, b: str) -> None:
        assert Path(a).exists() and not Path(b).exists()
        calls.append((os.fspath(a), os.fspath(b)))
        real_replace(a, b)

    monkeypatch.setattr(analysis_cli.os, "replace", spy)
    assert main([str(src), "--out", str(out)]) == 0
    assert len(calls) == 1 and Path(calls[0][0]).parent == out.parent
    assert Path(calls[0][1]) == out and not Path(calls[0][0]).exists()
    assert sorted(p.name for p in out.parent.iterdir()) == ["point.nc"]  # no temp left
    with xr.open_dataset(out) as res:
        assert "beta_eff" in res and res.attrs["source_dataset"] == str(src)
        assert res.attrs["point"] == "d2_test"


def test_cli_missing_w2_exits_2_with_one_line(tmp_path: Path) -> None:
    """Real subprocess: exit status 2, a single stderr line naming W2, no output written."""
    src = tmp_path / "bad.nc"
    synthetic_dataset(n_samples=4).drop_vars("W2").to_netcdf(src)
    out = tmp_path / "out.nc"
    proc = subprocess.run(
        [sys.executable, "-m", "analysis.analyze", str(src), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "W2" in lines[0] and "error" in lines[0]
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.nc"]


def test_cli_unreadable_input_keeps_old_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "garbage.nc"
    src.write_bytes(b"this is not netCDF")
    out = tmp_path / "out.nc"
    out.write_text("previous")
    assert main([str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "cannot read" in err
    assert out.read_text() == "previous"
    assert main([str(tmp_path / "missing.nc"), "--out", str(out)]) == 2


@pytest.mark.parametrize(
    ("model", "words"), [(None, ["no attribute 'model'"]), ("kzp", ["unknown model", "'kpz'"])]
)
def test_cli_needs_a_known_model(
    model: str | None, words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No KPZ default: a dataset without a model, or of an unknown one, is refused (exit 2,
    one line naming the file), and nothing is written."""
    ds = synthetic_dataset(n_samples=4)
    if model is None:
        del ds.attrs["model"]
    else:
        ds.attrs["model"] = model
    src = tmp_path / "ds.nc"
    ds.to_netcdf(src)
    assert main([str(src), "--out", str(tmp_path / "out.nc")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(src) in err[0], err
    assert all(w in err[0] for w in words), err[0]
    assert not (tmp_path / "out.nc").exists()


def test_cli_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "--out" in capsys.readouterr().out


def test_write_dataset_cleans_up_on_failure(tmp_path: Path) -> None:
    class Boom(xr.Dataset):
        __slots__ = ()

        def to_netcdf(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
            Path(str(args[0])).write_text("partial")
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_dataset(Boom(), tmp_path / "x.nc")
    assert list(tmp_path.iterdir()) == []
