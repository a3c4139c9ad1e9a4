"""Tests of analysis.paper_figures: the kelling2017 comparison figures and their CLI.

Inputs are real analysis datasets: the synthetic aggregated datasets of test_figures
(power laws times lognormal noise; waiting times 5, 10, 40) given the attributes of
parallel points (scheme, tc, t_async, backend) and passed through
``analysis.exponents.analyze``.  Benchmark tables are small CSV files written here.
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
from test_figures import small_dataset

from analysis import paper_figures as pf
from analysis.exponents import analyze, write_atomic
from analysis.figures import COLUMN_WIDTH

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
        out[stem] = write_atomic(
            analyze(point_dataset(scheme, tc, t_async, seed)), d / f"{stem}.nc"
        )
    # a point without the largest waiting time (s = 40): the common largest s is then 10
    short = point_dataset("DTr", [0, 0], 0.5, 5).isel(s=[0, 1])
    out["dtr_short"] = write_atomic(analyze(short), d / "dtr_short.nc")
    return out


def load(files: dict[str, Path], *stems: str) -> list[xr.Dataset]:
    return pf.load_paper_analyses([files[s] for s in stems])


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_block_layer_and_labels(files: dict[str, Path]) -> None:
    for scheme in ("DTrDT", "DTrDB", "cDBDT", "DBDT", "DTDT"):
        assert pf.has_block_layer(scheme), scheme
    for scheme in ("sequential", "DTr", "DB", "cDB", "DT", ""):
        assert not pf.has_block_layer(scheme), scheme
    seq, dtrdt = load(files, "seq", "dtrdt21")
    assert pf.tc_of(seq) is None and pf.tc_of(dtrdt) == (2, 1)  # tc read back as an array
    assert pf.scheme_label(seq) == "sequential"
    assert pf.scheme_label(dtrdt) == "DTrDT, TC=2,1"
    labels = pf.curve_labels([seq, dtrdt])
    # the backend tells these two apart; a single parallel point needs no t_async
    assert labels == ["sequential, cpu, L=$2^{13}$, n=16", "DTrDT, TC=2,1, gpu, L=$2^{16}$, n=16"]
    dtrdt.attrs["tc"] = "3"
    with pytest.raises(ValueError, match="dtrdt21.nc: attribute tc must be two"):
        pf.tc_of(dtrdt)


def test_fig3b_sequential_black_and_common_s(files: dict[str, Path]) -> None:
    datasets = load(files, "cdbdt", "dtr_short", "seq")
    fig = pf.plot_fig3b(datasets)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    lines = ax.get_lines()
    assert len(lines) == 3
    labels = legend_texts(ax)
    assert labels[0].startswith("sequential") and "n=16" in labels[0]  # reference first
    assert labels[1].startswith("cDBDT, TC=1,1") and labels[2].startswith("DTr,")
    assert "$t_{async}$=0.5" in labels[2]  # t_async differs between the parallel points
    assert to_rgba(lines[0].get_color()) == to_rgba("k")
    assert all(to_rgba(line.get_color()) != to_rgba("k") for line in lines[1:])
    assert ax.get_legend().get_title().get_text() == "s = 10 MCS"  # 40 is not common
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert np.all(np.asarray(lines[0].get_xdata()) >= 1.0)  # t/s from t = s on

    title = pf.plot_fig3b(datasets, s=5).axes[0].get_legend().get_title()
    assert title.get_text() == "s = 5 MCS"
    with pytest.raises(ValueError, match=r"dtr_short.nc: no waiting time s=40"):
        pf.plot_fig3b(datasets, s=40)
    lone = datasets[1].isel(s=[0])  # only s = 5
    other = datasets[0].isel(s=[2])  # only s = 40
    with pytest.raises(ValueError, match="no waiting time s common to all inputs"):
        pf.plot_fig3b([lone, other])


def test_fig4_two_panels_labelled_by_tc(files: dict[str, Path]) -> None:
    datasets = load(files, "dtrdt11", "dtrdt21", "dtrdb22")
    fig = pf.plot_fig4(datasets, s=10)
    top, bottom = fig.axes
    assert len(top.get_lines()) == 3
    labels = legend_texts(top)
    assert [lab.split(", L=")[0] for lab in labels] == [
        "DTrDT, TC=1,1",
        "DTrDT, TC=2,1",
        "DTrDB, TC=2,2",
    ]
    assert len(bottom.containers) == 3  # one errorbar series of lambda_h/z per point
    assert "lambda_h" in bottom.get_ylabel()
    assert "lambda_s" in pf.plot_fig4(datasets, exponent="s").axes[1].get_ylabel()
    # without the effective exponent the figure has panel (a) only
    bare = [d.drop_vars(["lambda_h_over_z_eff", "lambda_h_over_z_eff_err"]) for d in datasets]
    assert len(pf.plot_fig4(bare).axes) == 1


def test_fig6_reference_band_and_error_bars(files: dict[str, Path]) -> None:
    datasets = load(files, "dtrdt11", "dtrdb22", "seq")
    fig = pf.plot_fig6(datasets)
    (ax,) = fig.axes
    assert len(ax.containers) == 3
    labels = [t.get_text() for t in fig.legends[0].get_texts()]  # legend below the axes
    assert labels[0].startswith("sequential")
    ref = [lab for lab in labels if "0.2415" in lab]
    assert ref == [r"$\beta = 0.2415(15)$ (kelling2017)"] and labels[-1] == ref[0]
    (span,) = ax.patches  # the band: y from value - error to value + error, in data units
    assert isinstance(span, Rectangle)
    assert span.get_y() == pytest.approx(0.2400)
    assert span.get_y() + span.get_height() == pytest.approx(0.2430)
    assert any(np.allclose(line.get_ydata(), 0.2415) for line in ax.get_lines())
    # error bars are the jackknife errors of the file
    seq = datasets[2]
    ok = np.isfinite(seq["beta_eff"].values)
    bar = ax.containers[0]  # the sequential curve is drawn first
    (segments,) = bar.lines[2]
    half = np.array([abs(s[1, 1] - s[0, 1]) / 2 for s in segments.get_segments()])
    assert half == pytest.approx(seq["beta_eff_err"].values[ok])

    d1 = datasets[0].copy()
    d1.attrs["dim"] = 1
    with pytest.raises(ValueError, match="dim=1"):
        pf.plot_fig6([d1])


def write_bench(path: Path, rows: list[dict[str, object]]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(pf.BENCH_COLUMNS))
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
    table = pf.load_bench_table(write_bench(tmp_path / "bench.csv", bench_rows()))
    assert len(table) == 19 and table[0].tc == (1, 1) and table[-1].tc is None
    fig = pf.plot_performance(table)
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
        pf.load_bench_table(bad)
    rows[3]["attempts_per_ns"] = "fast"
    with pytest.raises(ValueError, match=r"nonum.csv, data row 4: column attempts_per_ns"):
        pf.load_bench_table(write_bench(tmp_path / "nonum.csv", rows))
    rows = bench_rows()
    rows[0]["tc"] = ""
    with pytest.raises(ValueError, match="block layer but tc is empty"):
        pf.load_bench_table(write_bench(tmp_path / "notc.csv", rows))
    with pytest.raises(ValueError, match="no measurements"):
        pf.load_bench_table(write_bench(tmp_path / "empty.csv", []))


@pytest.mark.parametrize("kind", ["fig3b", "fig4", "fig6", "performance"])
def test_cli_writes_png_and_pdf(kind: str, files: dict[str, Path], tmp_path: Path) -> None:
    if kind == "performance":
        inputs = [str(write_bench(tmp_path / "bench.csv", bench_rows()))]
    else:
        inputs = [str(files[s]) for s in ("seq", "dtrdt11", "dtrdb22")]
    out = tmp_path / "figs"
    assert pf.main([kind, "--out-dir", str(out), "--name", f"my_{kind}", *inputs]) == 0
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
        assert pf.main([args[0], "--out-dir", str(tmp_path / "o"), *args[1:]]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("python -m analysis.paper_figures: error:")
        assert all(w in err[0] for w in words), err[0]
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_darkins2024_figures_dispatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """darkins2024_fig2 takes no inputs and darkins2024_fig3 one benchmark table; both go to
    analysis.kmc2d_performance (stubbed here: Fig. 2's CPU run takes half a minute)."""
    import analysis.kmc2d_performance as kp

    calls: list[tuple[str, ...]] = []

    def fake(*args: str) -> list[str]:
        calls.append(args)
        paths = [args[-1] + ext for ext in (".png", ".pdf")]
        for p in paths:
            Path(p).write_bytes(b"x")
        return paths

    monkeypatch.setattr(kp, "make_fig2", fake)
    monkeypatch.setattr(kp, "make_fig3", fake)
    out = tmp_path / "figs"
    assert pf.main(["darkins2024_fig2", "--out-dir", str(out), "--name", "paper_f2"]) == 0
    assert calls == [(str(out / "paper_f2"),)]
    table = tmp_path / "kmc2d.csv"
    table.write_text("n\n64\n")
    assert pf.main(["darkins2024_fig3", "--out-dir", str(out), str(table)]) == 0
    assert calls[-1] == (str(table), str(out / "darkins2024_fig3"))
    written = pf.make_figure("darkins2024_fig2", [], out, name="again")
    assert [p.name for p in written] == ["again.png", "again.pdf"]
    for args in (["darkins2024_fig2", str(table)], ["darkins2024_fig3"],
                 ["darkins2024_fig3", str(table), str(table)], ["fig6"]):  # fmt: skip
        assert pf.main([args[0], "--out-dir", str(tmp_path / "o"), *args[1:]]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and args[0] in err[0], err
    assert len(calls) == 3 and not (tmp_path / "o").exists()
