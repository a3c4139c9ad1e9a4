"""The analysis of parallel-tempering spin-glass runs (analysis.ea3d_pt): the equilibrium
observables and their errors over coded words, the crossings of the Binder ratios of two
sizes, the campaign figures and the crossings CLI.

Inputs are real runs of the engine (model ea3d_pt on the CPU): L = 2 and L = 4 on the same
ladder of 4 temperatures in [0.8, 2], 128 disorder samples (two coded words) each, 640
sweeps with an exchange step every 10.  Between T = 0.8 and T = 2 the Binder ratios of the
two sizes cross (g_4 > g_2 well below T_c, g_4 < g_2 well above it, each by many errors),
which the crossing tests use; on the lower half of the ladder they do not cross.  The runs
measure |q(k_min)|^2 (``qk2``), so the analyses have xi_L / L; without ``qk2`` (older runs)
they must be what they were.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from conftest import run_and_load
from test_figures import _means_without_errors

from analysis import ea3d_pt
from analysis.ea3d_pt import XI_VARIABLES, analyze, correlation_length, draw_figures
from analysis.ea3d_pt_crossings import crossings
from analysis.stats import replica_error
from simcore.config import validate_run_config
from simcore.io.dataset import write_dataset
from simcore.models import registry

REPO = Path(__file__).resolve().parents[1]
SIZES = (2, 4)
WORD = 64


def _config(L: int) -> dict:
    return validate_run_config(
        {
            "model": "ea3d_pt",
            "L": L,
            "T_min": 0.8,
            "T_max": 2.0,
            "n_T": 4,
            "samples": 128,
            "t_max": 640,
            "exchange_every": 10,
            "seed": 5 + L,
        }  # fmt: skip
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, xr.Dataset]:
    """The run file of each size (loaded), as simcore run writes it."""
    d = tmp_path_factory.mktemp("ea3d_pt_runs")
    return {L: run_and_load(_config(L), d / f"L{L}.nc") for L in SIZES}


@pytest.fixture(scope="module")
def analyses(runs: dict[int, xr.Dataset]) -> dict[int, xr.Dataset]:
    return {L: analyze(ds) for L, ds in runs.items()}


@pytest.fixture(scope="module")
def analysis_files(
    analyses: dict[int, xr.Dataset], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """The analyses written as files; ``low2``, ``low4``: restricted to the two lowest
    temperatures of the ladder (no crossing there)."""
    d = tmp_path_factory.mktemp("ea3d_pt_analyses")
    files = {f"L{L}": write_dataset(an, d / f"L{L}.nc") for L, an in analyses.items()}
    for L, an in analyses.items():
        files[f"low{L}"] = write_dataset(_lowest(an, 2), d / f"low{L}.nc")
    return files


def _lowest(an: xr.Dataset, k: int) -> xr.Dataset:
    """An analysis restricted to the ``k`` lowest temperatures of its ladder."""
    return an.isel(T=slice(0, k), T_pair=slice(0, k - 1))


def test_analysis_variables_dims_and_units(analyses: dict[int, xr.Dataset]) -> None:
    """Every variable the module doc names, on its dimensions, CF units ("1"; the energy
    and T keep the model unit |J|), the bins' coordinates carried over, the groups two
    whole words."""
    an = analyses[4]
    dims = {
        "energy_mean": ("T",), "q2_mean": ("T",), "q4_mean": ("T",), "binder": ("T",),
        "chi_sg": ("T",), "energy_bin_mean": ("T", "t"), "q2_bin_mean": ("T", "t"),
        "exchange_acceptance_mean": ("T_pair",), "round_trips_mean": ("walker",),
        "round_trips_per_config_mean": (), "round_trips_min": (),
        "binder_jk": ("jk_group", "T"), "qk2_mean": ("T",), "xi": ("T",),
        "xi_over_L": ("T",), "xi_over_L_jk": ("jk_group", "T"), "binder_bin": ("T", "t"),
        "xi_over_L_bin": ("T", "t"),
    }  # fmt: skip
    for name, d in dims.items():
        assert an[name].dims == d, name
        err = name.removesuffix("_mean") + "_err"
        if name not in ("round_trips_min", "binder_jk", "xi_over_L_jk"):
            assert an[err].dims == d, err
            assert np.all(np.isfinite(an[err].values)) and np.all(an[err].values >= 0), err
    for name, var in an.variables.items():
        assert var.attrs.get("units") == "1", name
        assert var.attrs.get("long_name"), name
    for name in ("energy_mean", "energy_err", "energy_bin_mean", "T", "T_lower"):
        assert an[name].attrs["model_units"] == "|J|", name
    assert an["t"].attrs["model_units"] == "sweeps"
    np.testing.assert_array_equal(an["t"].values, 10 * 2 ** np.arange(7))
    np.testing.assert_allclose(an["T"].values[[0, -1]], [0.8, 2.0])
    np.testing.assert_array_equal(an["T_lower"].values, an["T"].values[:-1])
    assert an.attrs["L"] == 4 and an.attrs["model"] == "ea3d_pt"
    assert an.attrs["jackknife_groups"] == 2 and an.attrs["n_samples_analyzed"] == 128
    assert "coded word" in an.attrs["jackknife_groups_note"]
    np.testing.assert_array_equal(an["jk_group_size"].values, [WORD, WORD])
    assert (an.attrs["equilibrium_bin_first"], an.attrs["equilibrium_bin_last"]) == (330, 640)


def test_equilibrium_values_are_the_last_bin_and_g_is_the_binder_ratio(
    runs: dict[int, xr.Dataset], analyses: dict[int, xr.Dataset]
) -> None:
    """The means are those of the last bin over the samples, g = (3 - [q4]/[q2]^2)/2 and
    chi_SG = L^3 [q2] of the means, g's error finite, positive and that of its jackknife
    replicas; the diagnostics are the plain sample means (and the minimum) of the file."""
    for L, an in analyses.items():
        raw = runs[L]
        last = raw.isel(t=-1).mean("sample")
        for name in ("energy", "q2", "q4"):
            np.testing.assert_allclose(an[f"{name}_mean"].values, last[name].values, rtol=1e-12)
        q2, q4 = an["q2_mean"].values, an["q4_mean"].values
        np.testing.assert_allclose(an["binder"].values, (3 - q4 / q2**2) / 2, rtol=1e-12)
        np.testing.assert_allclose(an["chi_sg"].values, L**3 * q2, rtol=1e-12)
        err = an["binder_err"].values
        assert np.all(np.isfinite(err)) and np.all(err > 0)
        mine = replica_error(an["binder"].values, an["binder_jk"].values,
                               an["jk_group_size"].values)  # fmt: skip
        np.testing.assert_allclose(mine, err, rtol=1e-10)
        five = analyze(raw, n_groups=5)  # unequal groups: the weighted jackknife
        assert sorted(set(five["jk_group_size"].values.tolist())) == [25, 26]
        mine = replica_error(five["binder"].values, five["binder_jk"].values,
                               five["jk_group_size"].values)  # fmt: skip
        np.testing.assert_allclose(mine, five["binder_err"].values, rtol=1e-10)
        np.testing.assert_allclose(an["energy_bin_mean"].isel(t=-1).values,
                                   an["energy_mean"].values, rtol=1e-12)  # fmt: skip
        np.testing.assert_allclose(an["exchange_acceptance_mean"].values,
                                   raw["exchange_acceptance"].mean("sample").values)  # fmt: skip
        trips = raw["round_trips"]
        np.testing.assert_allclose(an["round_trips_mean"].values,
                                   trips.mean(("sample", "replica")).values)  # fmt: skip
        assert float(an["round_trips_per_config_mean"]) == pytest.approx(float(trips.mean()))
        assert int(an["round_trips_min"]) == int(trips.min())
    # physics: the larger size orders more at the lowest temperature, less at the highest
    assert analyses[4]["binder"].values[0] > analyses[2]["binder"].values[0]
    assert analyses[4]["binder"].values[-1] < analyses[2]["binder"].values[-1]


def test_drift_is_the_paired_difference_to_the_last_bin(
    runs: dict[int, xr.Dataset], analyses: dict[int, xr.Dataset]
) -> None:
    """q2_drift = [<q^2>_bin - <q^2>_last]: zero with zero error at the last bin, a finite
    positive error (of the per-sample difference) at the others."""
    raw, an = runs[4], analyses[4]
    want = (raw["q2"] - raw["q2"].isel(t=-1)).mean("sample").transpose("T", "t")
    np.testing.assert_allclose(an["q2_drift_mean"].values, want.values, rtol=1e-12, atol=1e-15)
    assert np.all(an["q2_drift_mean"].isel(t=-1).values == 0.0)
    assert np.all(an["q2_drift_err"].isel(t=-1).values == 0.0)
    paired = an["q2_drift_err"].isel(t=slice(0, -1)).values
    assert np.all(np.isfinite(paired) & (paired > 0))


def test_errors_are_over_whole_coded_words(
    runs: dict[int, xr.Dataset], analyses: dict[int, xr.Dataset]
) -> None:
    """Two words, two groups: the jackknife error of a mean is |m_1 - m_2| / 2 of the two
    words' means; g's replicas are g of the other word alone."""
    raw, an = runs[4].isel(t=-1), analyses[4]
    w = [raw.isel(sample=slice(k * WORD, (k + 1) * WORD)).mean("sample") for k in (0, 1)]
    half = np.abs(w[0]["energy"] - w[1]["energy"]).values / 2
    np.testing.assert_allclose(an["energy_err"].values, half, rtol=1e-9)
    for k in (0, 1):
        other = w[1 - k]
        g = (3 - other["q4"] / other["q2"] ** 2) / 2
        np.testing.assert_allclose(an["binder_jk"].isel(jk_group=k).values, g.values, rtol=1e-12)


def test_a_dataset_of_another_model_is_refused(runs: dict[int, xr.Dataset]) -> None:
    bad = runs[2].drop_vars(["q2", "round_trips", "t"])
    with pytest.raises(ValueError, match="not an ea3d_pt dataset: missing q2, round_trips, t"):
        analyze(bad)
    with pytest.raises(ValueError, match="2 to 128 groups"):
        analyze(runs[2], n_groups=1)


def _binder(ds: xr.Dataset) -> np.ndarray:
    """g of the last bin of run file ``ds``."""
    m = ds.isel(t=-1).mean("sample")
    return ((3 - m["q4"] / m["q2"] ** 2) / 2).values


def _brute_force_error(
    runs: dict[int, xr.Dataset],
    T: np.ndarray,
    i: int,
    g: Callable[[xr.Dataset], np.ndarray] = _binder,
) -> float:
    """The crossing's error of ``g`` (default the Binder ratio) from the run files: each
    size's two words left out in turn (the other size at all its samples), interpolated on
    [T_i, T_(i+1)], the textbook jackknife variance (G - 1)/G sum (t_k - mean)^2 of each
    size, added."""

    def cross(g1: np.ndarray, g2: np.ndarray) -> float:
        d = g1 - g2
        return T[i] + (T[i + 1] - T[i]) * d[i] / (d[i] - d[i + 1])

    full = {L: g(ds) for L, ds in runs.items()}
    var = 0.0
    for L in SIZES:
        reps = []
        for k in (0, 1):
            keep = runs[L].isel(sample=slice((1 - k) * WORD, (2 - k) * WORD))
            gl = {**full, L: g(keep)}
            reps.append(cross(gl[2], gl[4]))
        var += 0.5 * sum((r - np.mean(reps)) ** 2 for r in reps)
    return float(np.sqrt(var))


def test_crossing_lies_where_the_difference_changes_sign(
    runs: dict[int, xr.Dataset], analyses: dict[int, xr.Dataset]
) -> None:
    """g_2 - g_4 changes sign on the ladder: the crossing lies between the two ladder
    temperatures around the sign change, on the straight line between them, with a finite
    error equal to the jackknife of both sizes' words done from the run files."""
    rows = crossings([analyses[4], analyses[2]])  # any order: sorted by L
    assert [(r["L1"], r["L2"]) for r in rows] == [(2, 4)] * len(rows)
    T = analyses[2]["T"].values
    d = analyses[2]["binder"].values - analyses[4]["binder"].values
    found = [r for r in rows if np.isfinite(r["T_cross"])]
    assert found, rows
    for r in found:
        i = int(np.flatnonzero(T == r["T_lower"])[0])
        assert T[i + 1] == r["T_upper"] and d[i] * d[i + 1] < 0
        assert r["T_lower"] <= r["T_cross"] <= r["T_upper"]
        assert r["T_cross"] == pytest.approx(T[i] - d[i] * (T[i + 1] - T[i]) / (d[i + 1] - d[i]))
        assert np.isfinite(r["T_cross_err"]) and r["T_cross_err"] > 0
        assert r["T_cross_err"] == pytest.approx(_brute_force_error(runs, T, i), rel=1e-9)
    assert len(found) == len(rows) and (len(rows) == 1) == (rows[0]["note"] == "")


def test_no_sign_change_gives_nan_and_the_reason(analyses: dict[int, xr.Dataset]) -> None:
    """On the two lowest temperatures g_4 > g_2 at both: no crossing, T_cross NaN and the
    reason; two analyses of one size on one ladder are refused."""
    low = [_lowest(analyses[L], 2) for L in SIZES]
    (row,) = crossings(low)
    assert np.isnan(row["T_cross"]) and np.isnan(row["T_cross_err"])
    assert row["note"].startswith("no crossing in [0.8, 1.08") and "g_2 - g_4 < 0" in row["note"]
    assert crossings([low[0]]) == []
    with pytest.raises(ValueError, match="two analyses of L=2"):
        crossings([analyses[2], analyses[2], analyses[4]])


def test_campaign_figures_draw_every_mean_with_errors(analyses: dict[int, xr.Dataset]) -> None:
    """The six figures the spec names, in its order; every mean an error-bar series, no
    '[1]' label; binder and xi_over_L mark their crossing and both literature T_c, chi_SG
    is log y, the equilibration (e, [<q^2>], g, xi_L/L) is against the bins' last sweeps
    on a log axis."""
    ans = [analyses[4], analyses[2]]
    drawn = draw_figures(ans)
    assert list(drawn) == list(registry.get("ea3d_pt").campaign_figures([a.attrs for a in ans]))
    assert len(drawn) == 6 and "xi_over_L" in drawn
    for name, (fig, prov) in drawn.items():
        assert not _means_without_errors(fig), (name, _means_without_errors(fig))
        labels = [t for ax in fig.axes for t in (ax.get_xlabel(), ax.get_ylabel())]
        assert not any("[1]" in t for t in labels), (name, labels)
        assert "n=128" in prov["points"]
    for name in ("binder", "xi_over_L"):
        legend = [t.get_text() for t in drawn[name][0].legends[0].get_texts()]
        assert any(t.startswith("crossing L=2/4: T = ") for t in legend), (name, legend)
        assert any("1.1019(29)" in t and "Janus" in t and "literature" in t for t in legend)
        assert any("1.120(4)" in t and "Katzgraber" in t for t in legend)
    (xi_ax,) = drawn["xi_over_L"][0].axes
    assert len(xi_ax.containers) == 2 and "xi_L/L" in xi_ax.get_ylabel()
    for c, an in zip(xi_ax.containers, [analyses[2], analyses[4]], strict=True):
        np.testing.assert_allclose(c.lines[0].get_ydata(), an["xi_over_L"].values)
    assert drawn["chi_sg"][0].axes[0].get_yscale() == "log"
    eq = drawn["equilibration"][0].axes
    assert len(eq) == 4 and eq[3].get_xscale() == "log" and "sweeps" in eq[3].get_xlabel()
    assert [len(ax.containers) for ax in eq] == [2, 2, 2, 2]
    assert "g" in eq[2].get_ylabel() and "xi_L/L" in eq[3].get_ylabel()
    assert [len(ax.containers) for ax in drawn["exchange"][0].axes] == [2, 2]
    assert "|J|" in drawn["energy"][0].axes[0].get_xlabel()
    only = draw_figures(ans, names=["exchange"])
    assert list(only) == ["exchange"]


def test_cli_prints_a_markdown_table(
    analysis_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """One row per crossing: L1, L2, T_cross(err), the ladder, the samples; a pair that
    does not cross says so."""
    assert ea3d_pt.main(["crossings", str(analysis_files["L4"]), str(analysis_files["L2"])]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "| L1 | L2 | T_cross | ladder | samples | note |"
    assert lines[1].startswith("|---|")
    assert all(ln.startswith("| 2 | 4 | 1.") and "[0.8, 2]" in ln for ln in lines[2:]), lines
    assert ea3d_pt.main(["crossings", str(analysis_files["low2"]),
                         str(analysis_files["low4"])]) == 0  # fmt: skip
    rows = capsys.readouterr().out.strip().splitlines()[2:]
    assert len(rows) == 1 and "| no crossing in [0.8, 1.08" in rows[0], rows
    files = [str(analysis_files["L2"]), str(analysis_files["L4"])]
    assert ea3d_pt.main(["crossings", "--of", "xi_over_L", *files]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("Crossings of xi_L/L") and lines[1] == ""
    assert lines[2] == "| L1 | L2 | T_cross | ladder | samples | note |"
    want = crossings([xr.load_dataset(f) for f in files], "xi_over_L")
    assert len(lines[4:]) == len(want) and all(ln.startswith("| 2 | 4 | 1.") for ln in lines[4:])


def test_cli_refuses_what_is_not_an_ea3d_pt_analysis(
    runs: dict[int, xr.Dataset], analysis_files: dict[str, Path], tmp_path: Path
) -> None:
    """A run file (not an analysis), a text file, a single size: exit 2, one line on
    stderr naming the problem, no traceback."""
    run_file = write_dataset(runs[2], tmp_path / "run.nc")
    text = tmp_path / "notes.nc"
    text.write_text("not netCDF\n")
    cases = [
        ([run_file, analysis_files["L4"]], "run.nc: not an ea3d_pt analysis, missing binder"),
        ([text], "notes.nc: cannot read as netCDF"),
        ([analysis_files["L4"]], "no two sizes on one temperature ladder"),
    ]
    for paths, words in cases:
        proc = subprocess.run(
            [sys.executable, "-m", "analysis.ea3d_pt", "crossings", *map(str, paths)],
            cwd=REPO, capture_output=True, text=True, check=False,
        )  # fmt: skip
        err = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(err) == 1 and words in err[0], (proc.stderr, words)
        assert proc.stdout == ""


# ----------------------------------------------------------------------------- xi_L / L


def _xi(q2: np.ndarray, qk2: np.ndarray, L: int) -> np.ndarray:
    """xi_L from the disorder means, written out with numpy (NaN where q2/qk2 <= 1)."""
    ratio = q2 / qk2
    ok = ratio > 1
    out = np.full(np.shape(ratio), np.nan)
    out[ok] = np.sqrt(ratio[ok] - 1) / (2 * np.sin(2 * np.pi / L / 2))
    return out


def test_xi_over_L_is_the_second_moment_formula_of_the_means(
    runs: dict[int, xr.Dataset], analyses: dict[int, xr.Dataset]
) -> None:
    """[<|q(k)|^2>] is the last bin's sample mean of qk2; xi_L = sqrt(chi(0)/chi(k_min) - 1)
    / (2 sin(k_min/2)) with chi = V [.] of the analysis' own q2_mean and qk2_mean, and of the
    run file's means, xi_L/L = xi_L / L, finite with positive errors; per bin g and xi_L/L
    of each bin's means, the last bin the equilibrium values; the ratio <= 1 gives NaN."""
    for L, an in analyses.items():
        last = runs[L].isel(t=-1).mean("sample")
        np.testing.assert_allclose(an["qk2_mean"].values, last["qk2"].values, rtol=1e-12)
        xi = _xi(an["q2_mean"].values, an["qk2_mean"].values, L)
        np.testing.assert_allclose(an["xi"].values, xi, rtol=1e-12)
        np.testing.assert_allclose(an["xi_over_L"].values, xi / L, rtol=1e-12)
        np.testing.assert_allclose(
            an["xi_over_L"].values, _xi(last["q2"].values, last["qk2"].values, L) / L, rtol=1e-12
        )
        for name in ("xi", "xi_over_L", "qk2_mean"):
            err = an[name.removesuffix("_mean") + "_err"].values
            assert np.all(np.isfinite(an[name].values)), name
            assert np.all(np.isfinite(err) & (err > 0)), name
        bins = runs[L][["q2", "q4", "qk2"]].mean("sample").transpose("T", "t")
        np.testing.assert_allclose(
            an["xi_over_L_bin"].values,
            _xi(bins["q2"].values, bins["qk2"].values, L) / L,
            rtol=1e-12,
        )
        np.testing.assert_allclose(an["binder_bin"].values,
                                   (3 - bins["q4"].values / bins["q2"].values ** 2) / 2,
                                   rtol=1e-12)  # fmt: skip
        np.testing.assert_allclose(an["xi_over_L_bin"].isel(t=-1).values, an["xi_over_L"].values)
        np.testing.assert_allclose(an["binder_bin"].isel(t=-1).values, an["binder"].values)
        assert an["xi_over_L_bin"].dims == ("T", "t")
        assert an["xi_over_L_jk"].dims == ("jk_group", "T")
        assert np.all(an["xi_over_L_bin_err"].values >= 0)
    # physics: the larger size has the larger xi_L / L at the lowest temperature
    assert analyses[4]["xi_over_L"].values[0] > analyses[2]["xi_over_L"].values[0]
    nan = correlation_length(xr.DataArray([0.5, 0.5, 0.5]), xr.DataArray([0.25, 0.5, 0.6]), 4)
    np.testing.assert_allclose(nan.values, [1 / (2 * np.sin(np.pi / 4)), np.nan, np.nan])


def test_xi_replicas_reproduce_its_error(
    runs: dict[int, xr.Dataset], analyses: dict[int, xr.Dataset]
) -> None:
    """replica_error of xi_over_L_jk is xi_over_L_err (two words and five unequal groups);
    with two words each replica is xi_L / L of the other word alone."""
    for an in (analyses[4], analyze(runs[4], n_groups=5)):
        mine = replica_error(an["xi_over_L"].values, an["xi_over_L_jk"].values,
                             an["jk_group_size"].values)  # fmt: skip
        np.testing.assert_allclose(mine, an["xi_over_L_err"].values, rtol=1e-10)
    raw = runs[4].isel(t=-1)
    for k in (0, 1):
        other = raw.isel(sample=slice((1 - k) * WORD, (2 - k) * WORD)).mean("sample")
        want = _xi(other["q2"].values, other["qk2"].values, 4) / 4
        np.testing.assert_allclose(analyses[4]["xi_over_L_jk"].isel(jk_group=k).values, want,
                                   rtol=1e-12)  # fmt: skip


def _synthetic(an: xr.Dataset, y: np.ndarray, shift: float) -> xr.Dataset:
    """``an`` with xi_over_L = ``y`` and its two replicas ``y + shift``, ``y - shift``."""
    jk = np.stack([y + shift, y - shift])
    return an.assign(xi_over_L=("T", y), xi_over_L_jk=(("jk_group", "T"), jk))


def test_xi_crossing_of_synthetic_analyses_is_where_the_lines_cross(
    analyses: dict[int, xr.Dataset],
) -> None:
    """Straight lines y_2 = 0.5 - 0.2 (T - 1.7), y_4 = 0.5 - 0.5 (T - 1.7) cross at 1.7,
    between the last two ladder temperatures (g crosses between the middle ones): the
    crossing is at 1.7; replicas shifted by +-0.03 (L = 2) and +-0.06 (L = 4) move it by
    -+0.1 and +-0.2, so its error is sqrt(0.1^2 + 0.2^2)."""
    T = analyses[2]["T"].values
    syn = [_synthetic(analyses[2], 0.5 - 0.2 * (T - 1.7), 0.03),
           _synthetic(analyses[4], 0.5 - 0.5 * (T - 1.7), 0.06)]  # fmt: skip
    (row,) = crossings(syn, quantity="xi_over_L")
    assert (row["L1"], row["L2"], row["note"]) == (2, 4, "")
    assert (row["T_lower"], row["T_upper"]) == (T[2], T[3])
    assert row["T_cross"] == pytest.approx(1.7, abs=1e-12)
    assert row["T_cross_err"] == pytest.approx(np.sqrt(0.05), rel=1e-9)
    (g_row,) = crossings(syn)  # the default is still g, untouched
    assert (g_row["T_lower"], g_row["T_upper"]) == (T[1], T[2])
    (low,) = crossings([_lowest(a, 2) for a in syn], "xi_over_L")
    assert np.isnan(low["T_cross"]) and "(xi/L)_2 - (xi/L)_4 < 0" in low["note"], low
    with pytest.raises(ValueError, match="no crossings of 'chi_sg'"):
        crossings(syn, "chi_sg")


def test_xi_crossing_of_the_runs_has_the_jackknife_error_of_the_words(
    runs: dict[int, xr.Dataset], analyses: dict[int, xr.Dataset]
) -> None:
    """xi_L/L of L = 2 and 4 cross on the ladder: between the ladder temperatures where the
    difference changes sign, with the error of both sizes' words left out in turn."""
    rows = crossings([analyses[4], analyses[2]], "xi_over_L")
    T = analyses[2]["T"].values
    d = analyses[2]["xi_over_L"].values - analyses[4]["xi_over_L"].values
    assert rows and all(np.isfinite(r["T_cross"]) for r in rows), rows
    for r in rows:
        i = int(np.flatnonzero(T == r["T_lower"])[0])
        assert d[i] * d[i + 1] < 0 and r["T_lower"] <= r["T_cross"] <= r["T_upper"]
        assert r["T_cross"] == pytest.approx(T[i] - d[i] * (T[i + 1] - T[i]) / (d[i + 1] - d[i]))

        def xi_l(ds: xr.Dataset) -> np.ndarray:
            m = ds.isel(t=-1).mean("sample")
            return _xi(m["q2"].values, m["qk2"].values, int(ds.attrs["L"])) / int(ds.attrs["L"])

        want = _brute_force_error(runs, T, i, xi_l)
        assert r["T_cross_err"] == pytest.approx(want, rel=1e-9)


def test_a_dataset_without_qk2_analyses_as_before(
    runs: dict[int, xr.Dataset], analyses: dict[int, xr.Dataset], tmp_path: Path
) -> None:
    """Without qk2 (older runs) the analysis is that of the same run with the xi
    variables dropped, nothing else changed; crossings of xi_over_L refuse it, naming the
    missing variables (the CLI too, exit 2), g's crossings and the figures still work (the
    xi_over_L figure says there is nothing to draw, equilibration has e and [<q^2>])."""
    old = {L: analyze(runs[L].drop_vars("qk2")) for L in SIZES}
    for L in SIZES:
        assert not set(XI_VARIABLES) & set(old[L].variables)
        assert set(XI_VARIABLES) <= set(analyses[L].variables)
        a = old[L].assign_attrs(analysis_created=None)
        b = analyses[L].drop_vars(list(XI_VARIABLES)).assign_attrs(analysis_created=None)
        xr.testing.assert_identical(a, b)
    with pytest.raises(ValueError, match="missing xi_over_L, xi_over_L_jk"):
        crossings(list(old.values()), quantity="xi_over_L")
    assert crossings(list(old.values())) == crossings([analyses[L] for L in SIZES])
    drawn = draw_figures(list(old.values()))
    assert len(drawn) == 6
    (ax,) = drawn["xi_over_L"][0].axes
    assert not ax.containers and "no xi_L/L" in ax.texts[0].get_text()
    assert len(drawn["equilibration"][0].axes) == 2
    assert list(draw_figures(list(old.values()), names=["xi_over_L"])) == ["xi_over_L"]
    files = [str(write_dataset(old[L], tmp_path / f"old{L}.nc")) for L in SIZES]
    proc = subprocess.run(
        [sys.executable, "-m", "analysis.ea3d_pt", "crossings", "--of", "xi_over_L", *files],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(err) == 1 and "missing xi_over_L" in err[0], proc.stderr
