"""Tests of analysis.papers (the paper-figure CLI), the kelling2017 comparison figures
(analysis.kelling2017) and the darkins2024 ones (analysis.darkins2024).

Inputs are real analysis datasets: the synthetic aggregated datasets of test_figures
(power laws times lognormal noise; waiting times 5, 10, 40) given the attributes of
parallel points (scheme, tc, t_async, backend) and passed through
``analysis.kpz.analyze``.  Benchmark tables are small CSV files written here, or by
``simcore bench`` on the CPU where the figure's table is cheap to make.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PIL import Image
from test_figures import _means_without_errors, small_dataset
from test_kpz_analysis_betafit import growth_dataset

from analysis import kelling2017, kelling2017_bench, kelling2017_labels, papers
from analysis.kpz import analyze
from analysis.kpz_fits import BETA_FIT_T_LOWER
from analysis.plotting import COLUMN_WIDTH, value_error_text
from simcore.io.dataset import write_dataset

#: (file stem, scheme, tc, t_async, seed) of the synthetic points, 2D.
POINTS = [
    ("seq", "sequential", [0, 0], 0.0, 0),
    ("cdbdt", "cDBDT", [1, 1], 1.0, 1),
    ("dtrdt11", "DTrDT", [1, 1], 1.0, 2),
    ("dtrdt21", "DTrDT", [2, 1], 1.0, 3),
    ("dtrdb22", "DTrDB", [2, 2], 1.0, 4),
]


def point_dataset(scheme: str, tc: list[int], t_async: float, seed: int) -> xr.Dataset:
    """Aggregated 2D dataset of one parameter point with the attributes of a real run."""
    ds = small_dataset(2, seed=seed)
    ds.attrs.update(
        {
            "L": 65536 if scheme != "sequential" else 8192,
            "scheme": scheme,
            "backend": "cpu" if scheme == "sequential" else "gpu",
            "tc": tc,
            "t_async": t_async,
            "point": f"kpz_d2_{scheme}_tc{tc[0]}{tc[1]}",
            "device": "test device",
        }
    )
    return ds


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Analysis files (written and read back through netCDF) keyed by stem."""
    d = tmp_path_factory.mktemp("paper")
    out = {}
    for stem, scheme, tc, t_async, seed in POINTS:
        out[stem] = write_dataset(
            analyze(point_dataset(scheme, tc, t_async, seed)), d / f"{stem}.nc"
        )
    # a point without the largest waiting time (s = 40): the common largest s is then 10
    short = point_dataset("DTr", [0, 0], 0.5, 5).isel(s=[0, 1])
    out["dtr_short"] = write_dataset(analyze(short), d / "dtr_short.nc")
    # two points at the paper's time scales (t to 10^4, s = 100, 1000): fitted beta
    for stem, scheme, b, seed in (("long_dtrdb", "DTrDB", 1.0, 3), ("long_dtrdt", "DTrDT", 2.0, 8)):
        long = growth_dataset(scheme=scheme, b=b, seed=seed)
        out[stem] = write_dataset(analyze(long), d / f"{stem}.nc")
    return out


def load(files: dict[str, Path], *stems: str) -> list[xr.Dataset]:
    return kelling2017.load_paper_analyses([files[s] for s in stems])


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_block_layer_and_labels(files: dict[str, Path]) -> None:
    for scheme in ("DTrDT", "DTrDB", "cDBDT", "DBDT", "DTDT", "DTrDBs", "DBDBs"):
        assert kelling2017_labels.has_block_layer(scheme), scheme
    for scheme in ("sequential", "DTr", "DB", "cDB", "DT", ""):
        assert not kelling2017_labels.has_block_layer(scheme), scheme
    seq, dtrdt = load(files, "seq", "dtrdt21")
    assert kelling2017_labels.tc_of(seq) is None
    assert kelling2017_labels.tc_of(dtrdt) == (2, 1)  # tc read back as an array
    assert kelling2017_labels.scheme_label(seq) == "sequential"
    assert kelling2017_labels.scheme_label(dtrdt) == "DTrDT, TC=2,1"
    labels = kelling2017_labels.curve_labels([seq, dtrdt])
    # the backend tells these two apart; a single parallel point needs no t_async
    assert labels == ["sequential, cpu, L=$2^{13}$, n=16", "DTrDT, TC=2,1, gpu, L=$2^{16}$, n=16"]
    dtrdt.attrs["tc"] = "3"
    with pytest.raises(ValueError, match="dtrdt21.nc: attribute tc must be two"):
        kelling2017_labels.tc_of(dtrdt)


def test_fig3b_sequential_black_and_common_s(files: dict[str, Path]) -> None:
    datasets = load(files, "cdbdt", "dtr_short", "seq")
    fig = kelling2017.plot_fig3b(datasets)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert len(ax.containers) == 3  # one curve with error bars per point
    lines = [c.lines[0] for c in ax.containers]
    assert all(c.has_yerr for c in ax.containers)
    legend = fig.legends[0]  # below the axes, off the curves
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[0].startswith("sequential") and "n=16" in labels[0]  # reference first
    assert labels[1].startswith("cDBDT, TC=1,1") and labels[2].startswith("DTr,")
    assert "$t_{async}$=0.5" in labels[2]  # t_async differs between the parallel points
    assert to_rgba(lines[0].get_color()) == to_rgba("k")
    assert all(to_rgba(line.get_color()) != to_rgba("k") for line in lines[1:])
    assert legend.get_title().get_text() == "s = 10 MCS"  # 40 is not common
    assert ax.get_xscale() == "log" and ax.get_yscale() in ("log", "symlog")
    assert np.all(np.asarray(lines[0].get_xdata()) >= 1.0)  # t/s from t = s on

    title = kelling2017.plot_fig3b(datasets, s=5).legends[0].get_title()
    assert title.get_text() == "s = 5 MCS"
    with pytest.raises(ValueError, match=r"dtr_short.nc: no waiting time s=40"):
        kelling2017.plot_fig3b(datasets, s=40)
    lone = datasets[1].isel(s=[0])  # only s = 5
    other = datasets[0].isel(s=[2])  # only s = 40
    with pytest.raises(ValueError, match="no waiting time s common to all inputs"):
        kelling2017.plot_fig3b([lone, other])


def test_fig4_two_panels_labelled_by_tc(files: dict[str, Path]) -> None:
    datasets = load(files, "dtrdt11", "dtrdt21", "dtrdb22")
    fig = kelling2017.plot_fig4(datasets, s=10)
    top, bottom = fig.axes
    assert len(top.containers) == 3 and all(c.has_yerr for c in top.containers)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert [lab.split(", L=")[0] for lab in labels[:3]] == [
        "DTrDT, TC=1,1",
        "DTrDT, TC=2,1",
        "DTrDB, TC=2,2",
    ]
    assert len(bottom.containers) == 3  # one errorbar series of lambda_h/z per point
    assert "lambda_h" in bottom.get_ylabel()
    assert "lambda_s" in kelling2017.plot_fig4(datasets, exponent="s").axes[1].get_ylabel()
    # without the effective exponent the figure has panel (a) only
    bare = [d.drop_vars(["lambda_h_over_z_eff", "lambda_h_over_z_eff_err"]) for d in datasets]
    assert len(kelling2017.plot_fig4(bare).axes) == 1


def _half_heights(container) -> np.ndarray:
    """Half the length of each error bar of an errorbar series (its drawn error)."""
    (segments,) = container.lines[2]
    return np.array([abs(s[1, 1] - s[0, 1]) / 2 for s in segments.get_segments()])


def test_fig5b_every_waiting_time_with_error_bars(files: dict[str, Path]) -> None:
    """One error-bar series per point and waiting time (3 + 3 here), a colour per point
    and a marker per s shared by the points; the bars are the file's jackknife errors of
    lambda_h/z at its window midpoints; no mean drawn without its error; legend below."""
    datasets = load(files, "dtrdt11", "dtrdb22")
    fig = kelling2017.plot_fig5b(datasets)
    (ax,) = fig.axes
    assert not _means_without_errors(fig)
    assert len(ax.containers) == 6 and all(c.has_yerr for c in ax.containers)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[0].startswith("DTrDT, TC=1,1") and labels[0].endswith("; s = 5")
    assert labels[5].startswith("DTrDB, TC=2,2") and labels[5].endswith("; s = 40")
    lines = [c.lines[0] for c in ax.containers]
    assert len({to_rgba(line.get_color()) for line in lines[:3]}) == 1
    assert to_rgba(lines[0].get_color()) != to_rgba(lines[3].get_color())
    markers = [line.get_marker() for line in lines]
    assert markers[:3] == markers[3:] and len(set(markers[:3])) == 3
    ds = datasets[1]
    at = ds["lambda_h_s"].values == 40
    np.testing.assert_allclose(lines[5].get_xdata(), ds["lambda_h_t_over_s"].values[at])
    np.testing.assert_allclose(lines[5].get_ydata(), ds["lambda_h_over_z_eff"].values[at])
    assert _half_heights(ax.containers[5]) == pytest.approx(
        ds["lambda_h_over_z_eff_err"].values[at]
    )
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "t/s (window midpoint)"

    # the paper's waiting times: s = 100 and 1000 of each point
    fig = kelling2017.plot_fig5b(load(files, "long_dtrdb", "long_dtrdt"))
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert [lab.split("; ")[1] for lab in labels] == ["s = 100", "s = 1000"] * 2
    assert not _means_without_errors(fig)


def test_fig6_reference_band_and_error_bars(files: dict[str, Path]) -> None:
    datasets = load(files, "dtrdt11", "dtrdb22", "seq")
    fig = kelling2017.plot_fig6(datasets)
    (ax,) = fig.axes
    assert len(ax.containers) == 3
    assert not _means_without_errors(fig)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]  # legend below the axes
    assert labels[0].startswith("sequential")
    # t up to 200 only: too few beta_eff for a fit, and the legend says so
    assert all(lab.endswith(r"no fit for $t \geq 100$") for lab in labels[:3])
    ref = [lab for lab in labels if "0.2415" in lab]
    assert ref == [r"$\beta = 0.2415(15)$ (kelling2017)"] and labels[-1] == ref[0]
    assert labels[-2] == r"$\beta = 0.2414(2)$ (kelling2017 sec. 2.1)"
    (span,) = ax.patches  # the band: y from value - error to value + error, in data units
    assert isinstance(span, Rectangle)
    assert span.get_y() == pytest.approx(0.2400)
    assert span.get_y() + span.get_height() == pytest.approx(0.2430)
    assert any(np.allclose(line.get_ydata(), 0.2415) for line in ax.get_lines())
    (dashed,) = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert np.allclose(dashed.get_ydata(), 0.2414) and to_rgba(dashed.get_color()) != to_rgba(
        kelling2017._REF_COLOR
    )
    # error bars are the jackknife errors of the file
    seq = datasets[2]
    ok = np.isfinite(seq["beta_eff"].values)
    bar = ax.containers[0]  # the sequential curve is drawn first
    assert _half_heights(bar) == pytest.approx(seq["beta_eff_err"].values[ok])

    d1 = datasets[0].copy()
    d1.attrs["dim"] = 1
    with pytest.raises(ValueError, match="dim=1"):
        kelling2017.plot_fig6([d1])


def test_fig6_against_inverse_time_with_the_plateau(files: dict[str, Path]) -> None:
    """``x="inverse_t", plateau=True``: two panels against 1000/t (from t = 100 and 1000),
    each with every beta_eff at t >= its start and its error bar, and each point's
    plateau of the main window as a dashed segment at its level over 1000/t_upper ..
    1000/t_lower, quoted in the legend."""
    datasets = load(files, "long_dtrdb", "long_dtrdt")
    fig = kelling2017.plot_fig6(datasets, x="inverse_t", plateau=True)
    assert len(fig.axes) == 2 and not _means_without_errors(fig)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    for ax, t_min in zip(fig.axes, kelling2017.FIG6_INVERSE_T_MINS, strict=True):
        assert ax.get_xlim()[0] == 0.0 and "1000/t" in ax.get_xlabel()
        for ds, container, label in zip(datasets, ax.containers, labels[:2], strict=True):
            t = ds["t_eff"].values
            ok = np.isfinite(ds["beta_eff"].values) & (t >= t_min)
            x = np.asarray(container.lines[0].get_xdata())
            np.testing.assert_allclose(np.sort(x), np.sort(1000.0 / t[ok]))
            k = int(np.flatnonzero(ds["beta_plateau_t_lower"].values == 1000.0)[0])
            level = float(ds["beta_plateau"].values[k])
            text = value_error_text(level, float(ds["beta_plateau_err"].values[k]))
            assert f"plateau ${text}$" in label
            color = to_rgba(container.lines[0].get_color())
            (seg,) = [line for line in ax.get_lines() if line.get_linestyle() == "--"
                      and to_rgba(line.get_color()) == color]  # fmt: skip
            np.testing.assert_allclose(seg.get_ydata(), [level, level])
            t_hi = float(ds["beta_plateau_t_upper"].values[k])
            np.testing.assert_allclose(seg.get_xdata(), [1.0, 1000.0 / t_hi])


def test_fig6_draws_each_fit_over_its_window(files: dict[str, Path]) -> None:
    """Points to t = 10^4: each point's fit of the main window (t_eff >= 100) is a thin
    line of its colour from 100 to the window's last t_eff, beta + a t^-omega, and its
    legend entry quotes beta(error); every beta_eff keeps its error bar."""
    datasets = load(files, "long_dtrdb", "long_dtrdt")
    fig = kelling2017.plot_fig6(datasets)
    (ax,) = fig.axes
    assert not _means_without_errors(fig)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    for ds, container, label in zip(datasets, ax.containers, labels[:2], strict=True):
        k = int(np.flatnonzero(ds["beta_fit_t_lower"].values == BETA_FIT_T_LOWER)[0])
        beta, err, a, omega, t_hi = (float(ds[v].values[k]) for v in (
            "beta_asymptotic", "beta_asymptotic_err", "beta_correction_amplitude",
            "beta_correction_exponent", "beta_fit_t_upper"))  # fmt: skip
        text = value_error_text(beta, err)
        assert label.endswith(rf"$\beta = {text}$ (fit, $t \geq 100$)"), label
        assert label.split("\n")[0].startswith(kelling2017_labels.scheme_label(ds))
        color = to_rgba(container.lines[0].get_color())
        (fit,) = [line for line in ax.get_lines()
                  if to_rgba(line.get_color()) == color and line.get_marker() in ("None", "")
                  and line.get_linewidth() < 1]  # fmt: skip
        x, y = np.asarray(fit.get_xdata()), np.asarray(fit.get_ydata())
        assert x[0] == pytest.approx(BETA_FIT_T_LOWER) and x[-1] == pytest.approx(t_hi)
        np.testing.assert_allclose(y, beta + a * x**-omega)
        ok = np.isfinite(ds["beta_eff"].values)
        assert _half_heights(container) == pytest.approx(ds["beta_eff_err"].values[ok])


def write_bench(path: Path, rows: list[dict[str, object]]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(kelling2017_bench.BENCH_COLUMNS))
        w.writeheader()
        w.writerows(rows)
    return path


def bench_rows() -> list[dict[str, object]]:
    """Two configurations at three sizes, three repeats each, plus one single CPU point."""
    rows: list[dict[str, object]] = []
    for scheme, tc, rate in (("DTrDT", "1,1", 9.0), ("DTrDB", "2,2", 8.0)):
        for k in (12, 14, 16):
            for rep in (0.9, 1.0, 1.2):
                L = 2**k
                r = rate * rep
                rows.append(
                    {
                        "scheme": scheme,
                        "tc": tc,
                        "p": 1,
                        "q": 0,
                        "L": L,
                        "backend": "gpu",
                        "device": "NVIDIA H100",
                        "attempts_per_ns": r,
                        "seconds_per_mcs": L * L / (r * 1e9),
                    }
                )
    rows.append(
        {
            "scheme": "sequential",
            "tc": "",
            "p": 1,
            "q": 0,
            "L": 4096,
            "backend": "cpu",
            "device": "Xeon",
            "attempts_per_ns": 0.055,
            "seconds_per_mcs": 4096**2 / 0.055e9,
        }
    )
    return rows


def test_performance_median_min_max(tmp_path: Path) -> None:
    table = kelling2017_bench.load_bench_table(write_bench(tmp_path / "bench.csv", bench_rows()))
    assert len(table) == 19 and table[0].tc == (1, 1) and table[-1].tc is None
    fig = kelling2017_bench.plot_performance(table)
    left, right = fig.axes[:2]
    assert len(left.containers) == 3 and len(right.containers) == 3
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == [
        "DTrDT, TC=1,1, p=1, q=0, NVIDIA H100",
        "DTrDB, TC=2,2, p=1, q=0, NVIDIA H100",
        "sequential, p=1, q=0, Xeon",
    ]
    line = left.containers[0].lines[0]
    assert list(line.get_xdata()) == [2**12, 2**14, 2**16]
    assert list(line.get_ydata()) == pytest.approx([9.0] * 3)  # median of 8.1, 9, 10.8
    assert left.get_xscale() == "log" and left.xaxis.get_transform().base == 2
    assert left.get_yscale() == "log"  # CPU and GPU: more than a decade
    assert right.get_xscale() == "log" and right.get_yscale() == "log"


def test_bench_table_errors_name_file(tmp_path: Path) -> None:
    rows = bench_rows()
    bad = tmp_path / "nocol.csv"
    bad.write_text("scheme,p,q,L\nDTrDT,1,0,64\n")
    with pytest.raises(ValueError, match=r"nocol.csv: .*missing column\(s\) tc, backend"):
        kelling2017_bench.load_bench_table(bad)
    rows[3]["attempts_per_ns"] = "fast"
    with pytest.raises(ValueError, match=r"nonum.csv, data row 4: column attempts_per_ns"):
        kelling2017_bench.load_bench_table(write_bench(tmp_path / "nonum.csv", rows))
    rows = bench_rows()
    rows[0]["tc"] = ""
    with pytest.raises(ValueError, match="block layer but tc is empty"):
        kelling2017_bench.load_bench_table(write_bench(tmp_path / "notc.csv", rows))
    with pytest.raises(ValueError, match="no measurements"):
        kelling2017_bench.load_bench_table(write_bench(tmp_path / "empty.csv", []))


@pytest.mark.parametrize(
    "kind", ["fig3a", "fig3b", "fig3b_noise", "fig4", "fig5b", "fig6", "performance"]
)
def test_cli_writes_png_and_pdf(kind: str, files: dict[str, Path], tmp_path: Path) -> None:
    if kind == "performance":
        inputs = [str(write_bench(tmp_path / "bench.csv", bench_rows()))]
    else:
        inputs = [str(files[s]) for s in ("seq", "dtrdt11", "dtrdb22")]
    out = tmp_path / "figs"
    assert papers.main([kind, "--out-dir", str(out), "--name", f"my_{kind}", *inputs]) == 0
    assert sorted(p.name for p in out.iterdir()) == [f"my_{kind}.pdf", f"my_{kind}.png"]
    assert (out / f"my_{kind}.pdf").read_bytes().startswith(b"%PDF")
    with Image.open(out / f"my_{kind}.png") as im:
        assert im.size[0] == round(COLUMN_WIDTH * 300)
        text = dict(im.text)
    assert text["Title"] == f"my_{kind}"
    if kind != "performance":
        assert "deadbeef2" in text["git_commit"] and "kpz_d2_DTrDT_tc11" in text["points"]


def test_cli_bad_input_exit_2(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = tmp_path / "raw.nc"
    small_dataset(2).to_netcdf(raw)  # a dataset, but not an analysis dataset
    text = tmp_path / "notes.nc"
    text.write_text("not netCDF\n")
    bad_csv = tmp_path / "bench.csv"
    bad_csv.write_text("scheme,L\nDTrDT,64\n")
    cases = [
        (["fig6", str(files["seq"]), str(raw)], ["raw.nc", "W2_mean"]),
        (["fig3b", str(text)], ["notes.nc"]),
        (["fig4", str(tmp_path / "missing.nc")], ["missing.nc"]),
        (["performance", str(bad_csv)], ["bench.csv", "missing column"]),
        (["performance", str(files["seq"])], ["seq.nc"]),
    ]
    for args, words in cases:
        assert papers.main([args[0], "--out-dir", str(tmp_path / "o"), *args[1:]]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("python -m analysis.papers: error:")
        assert all(w in err[0] for w in words), err[0]
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_cli_options_and_input_counts(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--set passes options to the draw function (values as YAML); unknown figures and
    options, malformed --set items and input counts that do not fit the figure's entry in
    the registry (one table per benchmark kernel; at least one analysis) are refused."""
    out = tmp_path / "figs"
    inputs = [str(files[s]) for s in ("dtrdt11", "dtrdt21", "dtrdb22")]
    args = ["fig4", "--out-dir", str(out), "--set", "s=5", *inputs, "--set", "exponent=s"]
    assert papers.main(args) == 0  # options after the inputs too
    assert sorted(p.name for p in out.iterdir()) == ["fig4.pdf", "fig4.png"]
    assert papers.parse_options(["s=100", "exponent=s", "ks=[1, 2]"]) == {
        "s": 100,
        "exponent": "s",
        "ks": [1, 2],
    }
    bench = str(write_bench(tmp_path / "bench.csv", bench_rows()))
    cases = [
        (["fig7", bench], ["unknown paper figure 'fig7'", "fig6"]),
        (["fig6", "--set", "s=5", *inputs], ["fig6 has no option 's'", "its options: x, plateau"]),
        (["fig6", "--set", "x=log_t", *inputs], ["fig6 option x = 'log_t'", "t, inverse_t"]),
        (["fig3b", "--set", "t=5", *inputs], ["no option 't'", "its options: s"]),
        (["fig3b", "--set", "s", *inputs], ["--set takes KEY=VALUE"]),
        (["fig3b", "--set", "s=20", *inputs], ["dtrdt11.nc: no waiting time s=20"]),
        (["fig3b", "--set", "s=[5", *inputs], ["not a YAML value"]),
        (["fig6"], ["fig6 needs the analysis files"]),
        (["performance"], ["performance takes 1 table", "simcore bench dd --csv", "got 0"]),
        (["performance", bench, bench], ["got 2 input(s)"]),
        (["darkins2024_fig3", bench], ["kmc2d --csv, simcore bench kmc2d-surfaces --csv"]),
    ]
    for args, words in cases:
        assert papers.main([args[0], "--out-dir", str(tmp_path / "o"), *args[1:]]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and all(w in err[0] for w in words), err
    assert not (tmp_path / "o").exists()


@pytest.fixture(scope="module")
def kmc2d_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The tables of darkins2024 Figs. 2 and 3: the time steps and the surfaces written by
    ``simcore bench`` on the CPU (small and fast), the speeds made up here (the bench run
    is tested in test_kmc2d_workflow) with the columns ``simcore bench kmc2d`` writes."""
    from simcore.cli import main

    d = tmp_path_factory.mktemp("kmc2d")
    steps, surfaces = d / "timestep.csv", d / "surfaces.csv"
    assert main(["bench", "kmc2d-timestep", "--L", "24", "--steps", "12", "--bisections",
                 "2", "--csv", str(steps)]) == 0  # fmt: skip
    assert main(["bench", "kmc2d-surfaces", "--L", "8", "--phi", "0", "1",
                 "--events-per-cell", "5", "--csv", str(surfaces)]) == 0  # fmt: skip
    speeds = d / "kmc2d.csv"
    header = ("n,phi,tile,backend,device,events_per_s,events_per_s_min,events_per_s_max,"
              "accepted,rejected,events_per_tile_step,step_density,cpu,bkl_events_per_s,"
              "speedup,commit")  # fmt: skip
    lines = [header]
    for n, phi, rate, bkl in [(64, 0, 2e6, 4e6), (128, 0, 8e6, 4e6), (64, 1, 1e6, 3e6),
                              (128, 1, 4e6, 3e6)]:  # fmt: skip
        lines.append(f"{n},{phi},8,gpu,GPU,{rate},{rate},{rate},9,1,40,0.5,CPU,{bkl},"
                     f"{rate / bkl},abc")  # fmt: skip
    speeds.write_text("\n".join(lines) + "\n")
    return {"timestep": steps, "surfaces": surfaces, "speeds": speeds}


def test_darkins2024_figures_from_tables(
    kmc2d_tables: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fig. 2 from the time-step table (dt per step, rejected steps marked, the error
    zone); Fig. 3 from the speeds and the surfaces, in that order (one picture per phi)."""
    from analysis import darkins2024

    data, run = darkins2024.load_timestep_history(kmc2d_tables["timestep"])
    assert data["dt"].size == 12 and run["n"] == 24 and run["tile"] == 8
    assert np.all(data["edge"][data["accepted"]] >= 0)
    fig, prov = darkins2024.fig2([str(kmc2d_tables["timestep"])])
    (ax,) = fig.axes
    assert "24 x 24 SOS" in ax.get_title() and "tiles of 8" in ax.get_title()
    assert list(ax.get_lines()[0].get_ydata()) == pytest.approx(data["dt"])
    assert "(CPU twin), 12 time steps" in prov["points"]
    snapshots, _ = darkins2024.load_surfaces(kmc2d_tables["surfaces"])
    assert sorted(snapshots) == [0.0, 1.0] and snapshots[1.0].shape == (8, 8)
    fig, prov = darkins2024.fig3([str(kmc2d_tables["speeds"]), str(kmc2d_tables["surfaces"])])
    assert len(fig.axes) == 4 and len(fig.axes[2].images) == 1  # rates, speedup, 2 pictures
    assert "abc" in prov["git_commit"] and "surfaces.csv" in prov["points"]

    out = tmp_path / "figs"
    tables = {"darkins2024_fig2": ["timestep"], "darkins2024_fig3": ["speeds", "surfaces"]}
    for figure, names in tables.items():
        inputs = [str(kmc2d_tables[n]) for n in names]
        assert papers.main([figure, "--out-dir", str(out), "--name", f"p_{figure}", *inputs]) == 0
    assert len(list(out.iterdir())) == 4
    twice = tmp_path / "twice.csv"  # two runs appended to one table
    lines = kmc2d_tables["timestep"].read_text().splitlines()
    twice.write_text("\n".join([*lines, *lines[1:]]) + "\n")
    swapped = [str(kmc2d_tables["surfaces"]), str(kmc2d_tables["speeds"])]
    cases = [
        (["darkins2024_fig2", str(twice)], ["twice.csv", "holds 2 runs"]),
        (["darkins2024_fig3", *swapped], ["surfaces.csv", "missing column"]),
    ]
    for args, words in cases:
        assert papers.main([args[0], "--out-dir", str(tmp_path / "o"), *args[1:]]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and all(w in err[0] for w in words), err
