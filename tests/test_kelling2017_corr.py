"""Tests of the kelling2017 correlation figures of Fig. 3 (analysis.kelling2017_corr: fig3a,
fig3b_noise and its noise table), of fig4 drawing C_s with lambda_s/z (Fig. 4b), and of
the campaign's paper-figure ``options`` and ``select`` lists on their way through the
campaign (simcore.campaign.plan) and the workflow's paper_figure rule.

Inputs are real analysis files: synthetic aggregated datasets of the Fig. 3 points at the
paper's late times (t to 10^4, s = 100 and 1000) passed through ``analysis.kpz.analyze``
on the CPU.  Per sample, C_s(t, s) = 0.25 (t/s)^-2 + plateau + sigma * N(0, 1): its
mean decays into a noise of about sigma / sqrt(n) by t/s ~ 30, where a scheme's
``plateau`` (cDB's imprinted pattern) remains and a larger ``sigma`` is DB's extra noise.
The noise table is also checked against a hand computation on a dataset built here.
"""

from __future__ import annotations

import math
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import xarray as xr
import yaml
from matplotlib.colors import to_rgba
from PIL import Image
from test_figures import _means_without_errors

from analysis import kelling2017, kelling2017_corr, papers
from analysis.kpz import analyze
from simcore.campaign import CampaignError, load_campaign
from simcore.campaign.figure_options import draw_option_names, option_text
from simcore.io.dataset import write_dataset
from simcore.models import registry
from simcore.sampling import sampling_times

ROOT = Path(__file__).resolve().parents[1]
N = 32

#: (stem, scheme, t_async, sigma, plateau, seed) of the Fig. 3 points.
FIG3_POINTS = [
    ("seq", "sequential", None, 0.02, 0.0, 0),
    ("cdbdt", "cDBDT", 1.0, 0.02, 0.02, 1),
    ("dtrdt", "DTrDT", 1.0, 0.02, 0.0, 2),
    ("dbdt05", "DBDT", 0.5, 0.04, 0.0, 3),
    ("dbdt1", "DBDT", 1.0, 0.08, 0.0, 4),
]


def fig3_point(
    scheme: str,
    t_async: float | None,
    sigma: float,
    plateau: float,
    seed: int,
    n: int = N,
    tc: tuple[int, int] = (1, 1),
    L: int = 1024,
) -> xr.Dataset:
    """Aggregated 2D dataset of one point, t to 10^4 (10 per decade), s = 100 and 1000."""
    rng = np.random.default_rng(seed)
    s = np.array([100, 1000], dtype=np.int64)
    times = sampling_times(10_000, 10, [int(v) for v in s])
    t = times.astype(float)
    w2 = 0.3 * np.maximum(t, 1.0) ** 0.48 * rng.lognormal(0.0, 0.05, size=(n, t.size))
    c_h = np.full((n, s.size, t.size), np.nan)
    c_s = np.full_like(c_h, np.nan)
    for k, sv in enumerate(s):
        m = t >= sv
        x = t[m] / sv
        c_h[:, k, m] = sv**0.48 * x**-1.2 * rng.lognormal(0.0, 0.05, size=(n, int(m.sum())))
        c_s[:, k, m] = 0.25 * x**-2.0 + plateau + sigma * rng.normal(size=(n, int(m.sum())))
    units = {"units": "1", "model_units": "MCS"}
    ds = xr.Dataset(
        {
            "W2": (("sample", "t"), w2, {"long_name": "squared interface width", "units": "1"}),
            "mean_h": (("sample", "t"), np.tile(0.5 * t, (n, 1)), {"units": "1"}),
            "C_h": (("sample", "s", "t"), c_h, {"units": "1"}),
            "C_s": (("sample", "s", "t"), c_s, {"units": "1"}),
        },
        coords={
            "sample": np.arange(n, dtype=np.int64),
            "t": ("t", times, {"long_name": "time", **units}),
            "s": ("s", s, {"long_name": "waiting time", **units}),
        },
    )
    ds.attrs = {
        "model": "kpz",
        "dim": 2,
        "L": L,
        "p": 1.0,
        "q": 0.0,
        "scheme": scheme,
        "backend": "cpu" if scheme == "sequential" else "gpu",
        "n_samples": n,
        "point": f"kpz_d2_L{L}_{scheme}_tc{tc[0]}-{tc[1]}_a{t_async}",
        "campaign": "corrtest",
        "simcore_version": "0.1.0",
        "git_commit": "c0ffee",
    }
    if scheme != "sequential":
        ds.attrs.update({"tc": list(tc), "t_async": t_async})
    return ds


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Analysis files of the Fig. 3 points, keyed by stem, and one with fewer samples."""
    d = tmp_path_factory.mktemp("corr")
    out = {}
    for stem, scheme, t_async, sigma, plateau, seed in FIG3_POINTS:
        ds = fig3_point(scheme, t_async, sigma, plateau, seed)
        out[stem] = write_dataset(analyze(ds), d / f"{stem}.nc")
    few = fig3_point("DTrDT", 1.0, 0.02, 0.0, 9, n=16)
    out["few"] = write_dataset(analyze(few), d / "few.nc")
    return out


def load(files: dict[str, Path], *stems: str) -> list[xr.Dataset]:
    return kelling2017.load_paper_analyses([files[s] for s in stems])


def _half_heights(container) -> np.ndarray:
    """Half the length of each error bar of an errorbar series (its drawn error)."""
    (segments,) = container.lines[2]
    return np.array([abs(s[1, 1] - s[0, 1]) / 2 for s in segments.get_segments()])


# ----------------------------------------------------------------------------- Fig. 3(a)


def test_fig3a_heights_per_scheme_with_errors(files: dict[str, Path]) -> None:
    """One C_h curve per point at s (the largest common one by default), the sequential
    reference first and black, every mean with its jackknife error, log-log while C_h
    stands above its noise; the legend names scheme, TC, t_async and n."""
    datasets = load(files, "cdbdt", "dtrdt", "seq")
    fig = kelling2017_corr.plot_fig3a(datasets)
    (ax,) = fig.axes
    assert not _means_without_errors(fig)
    assert len(ax.containers) == 3 and all(c.has_yerr for c in ax.containers)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[0].startswith("sequential") and "n=32" in labels[0]
    assert labels[1].startswith("cDBDT, TC=1,1") and labels[2].startswith("DTrDT, TC=1,1")
    assert fig.legends[0].get_title().get_text() == "s = 1000 MCS"
    assert to_rgba(ax.containers[0].lines[0].get_color()) == to_rgba("k")
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"  # C_h > 0 throughout
    assert "C_h" in ax.get_ylabel()
    seq = datasets[2]
    fig = kelling2017_corr.plot_fig3a(datasets, s=100)
    assert fig.legends[0].get_title().get_text() == "s = 100 MCS"
    line = fig.axes[0].containers[0].lines[0]
    t = seq["t"].values.astype(float)
    at = t >= 100
    np.testing.assert_allclose(line.get_xdata(), t[at] / 100)
    np.testing.assert_allclose(line.get_ydata(), seq["C_h_mean"].sel(s=100).values[at])
    assert _half_heights(fig.axes[0].containers[0]) == pytest.approx(
        seq["C_h_err"].sel(s=100).values[at]
    )
    with pytest.raises(ValueError, match="seq.nc: no waiting time s=30"):
        kelling2017_corr.plot_fig3a(datasets, s=30)


# ----------------------------------------------------------------------------- the noise


def hand_dataset(scheme: str, tc: list[int] | None = None) -> xr.Dataset:
    """An analysis-like dataset with chosen C_s means and errors at s = 100 (and other
    numbers at s = 10, which must not count): t/s = 1, 10, 29, 30, 31, 50, 80, 90."""
    t = np.array([100, 1000, 2900, 3000, 3100, 5000, 8000, 9000], dtype=float)
    c_s = np.array(
        [
            [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],  # s = 10: all far above any noise
            [1.0, 0.3, 0.2, 0.9, 3e-3, -4e-3, 0.0, np.nan],  # s = 100
        ]
    )
    err = np.array(
        [
            [1e-3] * 8,
            [1e-2, 1e-2, 1e-2, 1e-2, 1e-3, 2e-3, 2e-3, 5e-3],
        ]
    )
    ds = xr.Dataset(
        {"C_s_mean": (("s", "t"), c_s), "C_s_err": (("s", "t"), err)},
        coords={"s": ("s", [10.0, 100.0], {"units": "MCS"}), "t": ("t", t, {"units": "MCS"})},
    )
    ds.attrs = {"scheme": scheme, "n_samples": 200, "source_file": f"{scheme}.nc"}
    if tc is not None:
        ds.attrs.update({"tc": tc, "t_async": 0.5})
    return ds


def test_noise_table_by_hand() -> None:
    """At s = 100 and t/s > 30 (strictly: t/s = 30 is out), the finite means are
    y = 3e-3, -4e-3, 0 (t/s = 31, 50, 80; t/s = 90 is NaN) with errors 1e-3, 2e-3, 2e-3:
    rms = sqrt(25/3) 1e-3, expected = sqrt(9/3) 1e-3 = sqrt(3) 1e-3, ratio 5/3, and the
    error of rms from the scatter of y^2 = 9e-6, 16e-6, 0."""
    db, seq = hand_dataset("DBDT", [1, 1]), hand_dataset("sequential")
    rows = kelling2017_corr.noise_table([db, seq], s=100, min_ratio=30)
    assert [r["label"] for r in rows] == ["sequential", "DBDT, TC=1,1, t_async=0.5"]
    row = rows[1]
    rms = math.sqrt((3e-3**2 + 4e-3**2 + 0.0) / 3)
    assert rms == pytest.approx(math.sqrt(25 / 3) * 1e-3)
    assert row["n"] == 200 and row["n_times"] == 3 and row["t_async"] == 0.5
    assert row["rms"] == pytest.approx(rms, rel=1e-12)
    assert row["expected"] == pytest.approx(math.sqrt(3) * 1e-3, rel=1e-12)
    assert row["ratio"] == pytest.approx(5 / 3, rel=1e-12)
    scatter = statistics.stdev([9e-6, 16e-6, 0.0])
    assert row["rms_err"] == pytest.approx(scatter / (2 * rms * math.sqrt(3)), rel=1e-12)
    assert rows[0]["t_async"] is None
    # the default s is the largest common one (100 here); min_ratio moves the window
    assert kelling2017_corr.noise_table([db]) == [row]
    (wide,) = kelling2017_corr.noise_table([db], s=100, min_ratio=29.5)
    assert wide["n_times"] == 4 and wide["rms"] == pytest.approx(math.sqrt((0.81 + 25e-6) / 4))
    (at10,) = kelling2017_corr.noise_table([db], s=10)  # t/s > 30 at s = 10: t >= 1000
    assert at10["n_times"] == 7 and at10["ratio"] == pytest.approx(500.0)
    (none,) = kelling2017_corr.noise_table([db], s=100, min_ratio=95)
    assert none["n_times"] == 0 and math.isnan(none["rms"]) and math.isnan(none["ratio"])
    text = kelling2017_corr.noise_table_text(rows)
    assert "DBDT, TC=1,1, t_async=0.5 (n=200, K=3): rms 0.00289 +- 0.0008" in text
    for bad in (0.5, "x", float("nan"), True):
        with pytest.raises(ValueError, match="option min_ratio must be a number >= 1"):
            kelling2017_corr.noise_table([db], min_ratio=bad)


def test_noise_table_tells_noise_from_signal(files: dict[str, Path]) -> None:
    """From real analyses: where the signal has decayed (sequential, DTr) the measured rms
    matches the noise the errors predict; cDB's plateau lifts it far above; DB's extra
    noise (sigma 2x and 4x) raises both, the rms by about that factor."""
    datasets = load(files, "cdbdt", "dtrdt", "dbdt05", "dbdt1", "seq")
    rows = {r["label"]: r for r in kelling2017_corr.noise_table(datasets, s=100)}
    seq, dtr = rows["sequential"], rows["DTrDT, TC=1,1, t_async=1"]
    cdb = rows["cDBDT, TC=1,1, t_async=1"]
    db05, db1 = rows["DBDT, TC=1,1, t_async=0.5"], rows["DBDT, TC=1,1, t_async=1"]
    assert all(r["n_times"] == 6 and r["n"] == N for r in rows.values())  # t/s 31.6 .. 100
    for r, sigma in ((seq, 0.02), (dtr, 0.02), (db05, 0.04), (db1, 0.08)):
        assert 0.4 < r["ratio"] < 2.0, r
        assert r["expected"] == pytest.approx(sigma / math.sqrt(N), rel=0.3), r
    assert cdb["ratio"] > 3 and cdb["rms"] == pytest.approx(0.02, rel=0.3)
    assert seq["rms"] < db05["rms"] < db1["rms"]
    assert db1["rms"] / seq["rms"] == pytest.approx(4, rel=0.5)


def test_fig3b_noise_draws_both_levels_at_equal_n(files: dict[str, Path]) -> None:
    """Panel (a): per point the measured rms with its error bar and the expected level as a
    bar of its colour, labelled with n; panel (b): the late C_s with their errors; points
    of different n are refused in one line unless equal_n is false."""
    stems = ("cdbdt", "dtrdt", "dbdt05", "dbdt1", "seq")
    datasets = load(files, *stems)
    fig = kelling2017_corr.plot_fig3b_noise(datasets)  # s = 1000 has no t/s > 30: s = 100
    ax, bx = fig.axes
    assert not _means_without_errors(fig)
    assert len(ax.containers) == 5 and all(c.has_yerr for c in ax.containers)
    rows = kelling2017_corr.noise_table(datasets, s=100)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[0] == "sequential\nn=32, K=6"
    assert ticks[4] == "DBDT, TC=1,1, $t_{async}$=1\nn=32, K=6"
    for i, (c, row) in enumerate(zip(ax.containers, rows, strict=True)):
        assert list(c.lines[0].get_xdata()) == [i]
        assert c.lines[0].get_ydata()[0] == pytest.approx(row["rms"])
        assert _half_heights(c) == pytest.approx([row["rms_err"]])
    levels = sorted(
        (seg[0, 0], seg[0, 1]) for coll in ax.collections for seg in coll.get_segments()
        if seg[0, 1] == seg[1, 1]
    )  # fmt: skip
    assert [y for _, y in levels] == pytest.approx([r["expected"] for r in rows])
    assert "(a) s = 100 MCS" in ax.get_title(loc="left")
    assert len(bx.containers) == 5 and all(c.has_yerr for c in bx.containers)
    assert bx.get_yscale() == "linear" and bx.get_xscale() == "log"
    assert min(np.min(c.lines[0].get_xdata()) for c in bx.containers) > 30
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[0] == "sequential, n=32"

    mixed = load(files, "seq", "few")
    with pytest.raises(ValueError, match="equal sample counts") as info:
        kelling2017_corr.plot_fig3b_noise(mixed)
    assert "\n" not in str(info.value) and "few.nc n=16" in str(info.value)
    fig = kelling2017_corr.plot_fig3b_noise(mixed, s=100, equal_n=False)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()][1].endswith("n=16, K=6")
    with pytest.raises(ValueError, match="option equal_n must be true or false"):
        kelling2017_corr.plot_fig3b_noise(mixed, equal_n="no")
    # no sampling time beyond min_ratio * s: said in the figure, nothing drawn without error
    fig = kelling2017_corr.plot_fig3b_noise(datasets, s=1000)
    assert "no sampling time with t/s > 30" in fig.axes[0].texts[0].get_text()
    assert not _means_without_errors(fig) and not fig.axes[0].containers


def test_fig3b_noise_cli_provenance(files: dict[str, Path], tmp_path: Path) -> None:
    """Through the CLI with options (as the rule passes them): PNG and PDF written; the
    draw function's provenance carries the noise table."""
    inputs = [str(files[s]) for s in ("seq", "dtrdt", "dbdt1")]
    out = tmp_path / "figs"
    args = ["fig3b_noise", "--out-dir", str(out), "--set", "min_ratio=20", "--set", "s=100"]
    assert papers.main([*args, *inputs]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["fig3b_noise.pdf", "fig3b_noise.png"]
    _fig, prov = kelling2017_corr.fig3b_noise(inputs, s=100, min_ratio=20)
    assert prov["noise_table"].startswith("sequential (n=32, K=7): rms ")
    assert "c0ffee" in prov["git_commit"]
    for kind in ("fig3a", "fig3b_noise"):
        assert papers.main([kind, "--out-dir", str(out), *inputs]) == 0


# ----------------------------------------------------------------------------- Fig. 4(b)


def test_fig4_exponent_s_draws_c_s_with_lambda_s(files: dict[str, Path]) -> None:
    """Fig. 4(b): with exponent s, panel (a) is C_s (the paper's inset) and panel (b)
    lambda_s/z, both at the chosen s; with h, C_h and lambda_h/z."""
    datasets = load(files, "dtrdt", "cdbdt")
    fig = kelling2017.plot_fig4(datasets, s=100, exponent="s")
    top, bottom = fig.axes
    assert "C_s" in top.get_ylabel() and "lambda_s" in bottom.get_ylabel()
    assert fig.legends[0].get_title().get_text() == "s = 100 MCS"
    assert not _means_without_errors(fig)
    ds = datasets[0]
    t = ds["t"].values.astype(float)
    at = (t >= 100) & np.isfinite(ds["C_s_mean"].sel(s=100).values)
    drawn = top.containers[0].lines[0]
    np.testing.assert_allclose(drawn.get_xdata(), t[at] / 100)
    np.testing.assert_allclose(drawn.get_ydata(), ds["C_s_mean"].sel(s=100).values[at])
    top_h, bottom_h = kelling2017.plot_fig4(datasets, s=100).axes
    assert "C_h" in top_h.get_ylabel() and "lambda_h" in bottom_h.get_ylabel()


# ----------------------------------------------------------------------------- campaigns


def dd_campaign(**figure: Any) -> dict[str, Any]:
    """A small campaign: DTrDT at TC 1,1 / 2,1 / 3,2 and DTrDB at 1,1 / 2,2 (L = 128), and
    one paper-figure entry ``figure``."""
    return {
        "campaign": "opts",
        "seed": 1,
        "model": "kpz",
        "backend": "cpu",
        "samples": 2,
        "samples_per_job": 2,
        "t_max": 200,
        "waiting_times": [100],
        "points": [
            {"dim": 2, "L": 128, "scheme": "DTrDT", "tc": [[1, 1], [2, 1]], "domain": [32, 32]},
            {"dim": 2, "L": 128, "scheme": "DTrDT", "tc": [3, 2], "domain": [64, 32]},
            {"dim": 2, "L": 128, "scheme": "DTrDB", "tc": [[1, 1], [2, 2]], "domain": [32, 32]},
        ],
        "paper_figures": [figure],
    }


def campaign_error(cfg: dict[str, Any]) -> str:
    with pytest.raises(CampaignError) as info:
        load_campaign(cfg)
    text = str(info.value)
    assert "\n" not in text
    return text


FIG5A_SELECT = [
    {"scheme": "DTrDB", "tc": [[1, 1], [2, 2]]},
    {"scheme": "DTrDT", "tc": [3, 2]},
]


def test_select_list_of_mappings_picks_fig5a() -> None:
    """A select may be a list of mappings (points matching any): DTrDB TC 1,1 and 2,2 plus
    DTrDT TC 3,2 (Fig. 5a), in campaign order; a mapping alone keeps its meaning (all keys
    hold, each a value or a list of values); every mapping of a list must match a point."""
    camp = load_campaign(dd_campaign(figure="fig4", name="f5a", select=FIG5A_SELECT))
    assert camp.figure_points("f5a") == [
        "kpz_d2_L128_p1_q0_DTrDT_cpu_D64x32_tc3-2",
        "kpz_d2_L128_p1_q0_DTrDB_cpu_D32x32_tc1-1",
        "kpz_d2_L128_p1_q0_DTrDB_cpu_D32x32_tc2-2",
    ]
    # per-key lists alone cannot say this: they also take DTrDT TC 1,1
    camp = load_campaign(dd_campaign(figure="fig4", name="f", select={
        "scheme": ["DTrDB", "DTrDT"], "tc": [[1, 1], [2, 2], [3, 2]]}))  # fmt: skip
    assert "kpz_d2_L128_p1_q0_DTrDT_cpu_D32x32_tc1-1" in camp.figure_points("f")
    msg = campaign_error(dd_campaign(figure="fig4", select=[{"scheme": "DTrDB"}, {"tc": [9, 9]}]))
    assert "paper_figures[0].select[1]: matches no point" in msg
    msg = campaign_error(dd_campaign(figure="fig4", select=[{"schema": "DTrDB"}]))
    assert "paper_figures[0].select[0].schema: unknown key" in msg and "'scheme'" in msg
    msg = campaign_error(dd_campaign(figure="fig4", select=[]))
    assert "paper_figures[0].select" in msg


def test_options_are_checked_and_rendered() -> None:
    """Options reach the figure as --set arguments that analysis.papers reads back equal;
    an option its draw function does not take is refused in one line naming the entry;
    a number YAML 1.1 leaves as text (Snakemake's reader) is read as the number."""
    options = {"s": 100, "exponent": "s"}
    camp = load_campaign(dd_campaign(figure="fig4", name="f4b", options=options))
    fig = camp.paper_figure("f4b")
    assert fig.options == options
    assert fig.set_arguments() == ["--set", "s=100", "--set", "exponent=s"]
    assert papers.parse_options(fig.set_arguments()[1::2]) == options
    assert load_campaign(dd_campaign(figure="fig4")).paper_figures[0].set_arguments() == []
    camp = load_campaign(dd_campaign(figure="fig3b_noise", options={"s": "1e2", "equal_n": False}))
    assert camp.paper_figures[0].options == {"s": 100.0, "equal_n": False}
    for value in (100, 1e-5, 0.5, "s", "1,1", "yes", "a: b", True, None, [1, 2], [[1, 1]]):
        assert papers.parse_options([f"k={option_text(value)}"]) == {"k": value}, value
    with pytest.raises(ValueError, match="cannot be passed as --set"):
        option_text(float("nan"))

    msg = campaign_error(dd_campaign(figure="fig4", name="f4", options={"ss": 100}))
    assert msg.startswith("campaign config: paper_figures[0].options.ss: 100: not an option")
    assert "fig4 (did you mean 's'?) (its options: s, exponent)" in msg
    msg = campaign_error(dd_campaign(figure="fig6", options={"s": 100}))
    assert "paper_figures[0].options.s: 100: not an option of fig6 (its options: x, plateau)" in msg
    msg = campaign_error(dd_campaign(figure="fig4", options={"s": {"a": 1}}))
    assert "paper_figures[0].options.s" in msg
    msg = campaign_error(dd_campaign(figure="fig4", options=[100]))
    assert "paper_figures[0]" in msg


def test_option_names_read_from_source_match_the_functions() -> None:
    """The option names the campaign reads from a draw function's source (without
    importing it) are those its signature gives, for every registered paper figure."""
    import inspect

    from analysis.dispatch import import_function

    for name, (_spec, figure) in registry.paper_figures().items():
        params = list(inspect.signature(import_function(figure.draw, name)).parameters)[1:]
        assert draw_option_names(figure.draw) == tuple(params), name
    assert draw_option_names("analysis.kelling2017_corr:fig3b_noise") == (
        "s",
        "min_ratio",
        "equal_n",
    )


def test_shipped_campaigns_hold_the_new_figures() -> None:
    """config/papers.yaml draws Figs. 3a, 3b's noise, 4a, 4b and 5a from the points the
    paper uses; config/kelling2017_scale.yaml Fig. 4b at s = 1000."""
    camp = load_campaign(ROOT / "config" / "papers.yaml")
    figs = {f.name: f for f in camp.paper_figures}
    assert figs["kelling2017_fig3a"].figure.name == "fig3a"
    assert figs["kelling2017_fig3b_noise"].figure.name == "fig3b_noise"
    assert all("_L1024_" in p for p in camp.figure_points("kelling2017_fig3b_noise"))
    assert figs["kelling2017_fig4a"].options == {"s": 100}
    assert figs["kelling2017_fig4b"].options == {"s": 100, "exponent": "s"}
    assert figs["kelling2017_fig4"].options == {}
    f4 = camp.figure_points("kelling2017_fig4a")
    assert f4 and all("_L4096_" in p and "_DTrDT_" in p for p in f4)
    f5a = camp.figure_points("kelling2017_fig5a")
    assert len(f5a) == 3 and all("_L4096_" in p for p in f5a)
    assert sum("_DTrDB_" in p for p in f5a) == 2 and sum("tc3-2" in p for p in f5a) == 1
    scale = load_campaign(ROOT / "config" / "kelling2017_scale.yaml")
    fig = scale.paper_figure("kelling2017_fig4b_s1000")
    assert fig.options == {"s": 1000, "exponent": "s"}
    assert all("_DTrDT_" in p for p in scale.figure_points(fig.name))


# ----------------------------------------------------------------------------- the rule


@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
def test_rule_draws_with_the_entry_options(tmp_path: Path) -> None:
    """The paper_figure rule passes the entry's options: the figure it writes from
    analysis files put in place is, pixel for pixel, the one drawn with s = 100 and
    exponent s (Fig. 4b), not the default (the largest s, 1000, and lambda_h/z)."""
    cfg = dd_campaign(figure="fig4", name="f4b", select=FIG5A_SELECT,
                      options={"s": 100, "exponent": "s"})  # fmt: skip
    conf = tmp_path / "opts.yaml"
    conf.write_text(yaml.safe_dump(cfg))
    camp = load_campaign(conf)
    inputs = []
    for i, point in enumerate(camp.figure_points("f4b")):
        pt = camp.point(point)
        ds = fig3_point(str(pt.get("scheme")), 1.0, 0.02, 0.0, 20 + i, tc=tuple(pt.get("tc")))
        path = tmp_path / "results" / "opts" / "analysis" / f"{point}.nc"
        path.parent.mkdir(parents=True, exist_ok=True)
        inputs.append(str(write_dataset(analyze(ds), path)))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    target = "results/opts/figures/paper_f4b.png"
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(tmp_path), "--cores", "1", "--allowed-rules", "paper_figure",
           "--configfile", str(conf), "-p"]  # fmt: skip
    proc = subprocess.run([*cmd, "--", target], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (shell,) = [line for line in proc.stderr.splitlines() if "analysis.papers fig4" in line]
    assert "--set exponent=s --set s=100 results/opts/analysis/" in shell  # the file's order

    def pixels(path: Path) -> np.ndarray:
        with Image.open(path) as im:
            return np.asarray(im.convert("RGB"))

    drawn = pixels(tmp_path / target)
    ref = tmp_path / "ref"
    papers.make_figure("fig4", inputs, ref, "with", s=100, exponent="s")
    papers.make_figure("fig4", inputs, ref, "default")
    assert np.array_equal(drawn, pixels(ref / "with.png"))
    default = pixels(ref / "default.png")
    assert default.shape != drawn.shape or not np.array_equal(drawn, default)
