"""Tests of analysis.figures (the campaign-figure CLI) with the kpz figures of
analysis.kpz: every figure written as PNG and PDF, with provenance.

Inputs are real analysis datasets: synthetic aggregated datasets in the ARCHITECTURE.md
layout (power laws times lognormal noise) passed through ``analysis.kpz.analyze``,
one for d=1 and one for d=2, so the per-dimension panels and reference lines are used.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from conftest import run_and_load
from matplotlib.colors import to_rgba
from matplotlib.lines import Line2D
from PIL import Image

from analysis import figures, kmc2d, kpz_figures
from analysis.kpz import analyze
from analysis.kpz_literature import saturation_onset
from analysis.plotting import COLUMN_WIDTH, size_color
from simcore.config import validate_run_config
from simcore.io.dataset import write_dataset
from simcore.models import registry
from simcore.testing import simcore_models

#: The kpz campaign figures, as the spec names them.
FIGURE_NAMES = tuple(registry.get("kpz").campaign_figures([]))


def small_dataset(dim: int, n_samples: int = 16, seed: int = 0) -> xr.Dataset:
    """Small aggregated dataset: W2 ~ t^(2 beta), C_h, C_s ~ (t/s)^(-lz), lognormal noise.

    C_s is made negative at late times for the largest s to exercise the skipping of
    non-positive values on log axes (and the NaN lambda/z there).
    """
    rng = np.random.default_rng(seed)
    times = np.array([0, 1, 2, 3, 5, 8, 10, 13, 20, 32, 40, 50, 80, 126, 200], dtype=np.int64)
    s = np.array([5, 10, 40], dtype=np.int64)
    t = times.astype(float)
    beta = 1 / 3 if dim == 1 else 0.2414

    def noise(*shape: int) -> np.ndarray:
        return rng.lognormal(-0.005, 0.1, size=shape)

    w2 = 0.4 * t ** (2 * beta) * noise(n_samples, len(t))
    c_h = np.full((n_samples, len(s), len(t)), np.nan)
    c_s = np.full_like(c_h, np.nan)
    for k, sv in enumerate(s):
        m = t >= sv
        x = t[m] / sv
        c_h[:, k, m] = sv ** (2 * beta) * x ** (-1.2) * noise(n_samples, int(m.sum()))
        c_s[:, k, m] = 0.25 * x ** (-0.8) * noise(n_samples, int(m.sum()))
    c_s[:, 2, -2:] = -1e-3
    ds = xr.Dataset(
        {
            "W2": (("sample", "t"), w2, {"long_name": "squared width", "units": "1"}),
            "mean_h": (("sample", "t"), 0.5 * t + rng.normal(size=w2.shape), {"units": "1"}),
            "C_h": (("sample", "s", "t"), c_h, {"units": "1"}),
            "C_s": (("sample", "s", "t"), c_s, {"units": "1"}),
        },
        coords={
            "sample": np.arange(n_samples),
            "t": ("t", times, {"long_name": "time", "units": "MCS"}),
            "s": ("s", s, {"long_name": "waiting time", "units": "MCS"}),
        },
    )
    ds.attrs = {
        "model": "kpz",
        "dim": dim,
        "L": 64 if dim == 2 else 1024,
        "p": 1.0,
        "q": 0.0,
        "scheme": "sequential",
        "backend": "cpu",
        "n_samples": n_samples,
        "point": f"kpz_d{dim}",
        "campaign": "figtest",
        "simcore_version": "0.1.0",
        "git_commit": f"deadbeef{dim}",
    }
    return ds


@pytest.fixture(scope="module")
def analysis_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    d = tmp_path_factory.mktemp("analysis")
    return [write_dataset(analyze(small_dataset(dim)), d / f"d{dim}.nc") for dim in (1, 2)]


def test_make_all_writes_png_and_pdf_with_provenance(
    analysis_files: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "figures"
    written = figures.make_figures(analysis_files, out)
    expected = {f"{n}.{ext}" for n in FIGURE_NAMES for ext in ("png", "pdf")}
    assert {p.name for p in written} == expected
    assert {p.name for p in out.iterdir()} == expected  # and no temp files left behind
    for name in FIGURE_NAMES:
        png, pdf = out / f"{name}.png", out / f"{name}.pdf"
        assert png.stat().st_size > 5000 and pdf.stat().st_size > 5000
        assert pdf.read_bytes().startswith(b"%PDF")
        with Image.open(png) as im:
            assert im.format == "PNG"
            # column width 3.4 in at 300 dpi (constrained layout keeps the figure size)
            assert im.size[0] == round(COLUMN_WIDTH * 300)
            text = dict(im.text)
        assert "deadbeef1" in text["git_commit"] and "deadbeef2" in text["git_commit"]
        assert text["simcore_version"] == "0.1.0"
        assert "figtest/kpz_d1 (n=16)" in text["points"] and "16" in text["samples"]
        assert b"deadbeef2" in pdf.read_bytes()  # PDF info dictionary (uncompressed)


def test_cli_draws_only_the_named_figures(
    analysis_files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--figure NAME (the workflow draws one figure per job) writes only that figure; a
    name the model does not draw is refused (exit 2, one line naming those it draws)."""
    out = tmp_path / "f"
    inputs = [str(p) for p in analysis_files]
    assert figures.main(["--out-dir", str(out), "--figure", "C_s", *inputs]) == 0
    assert {p.name for p in out.iterdir()} == {"C_s.png", "C_s.pdf"}
    assert figures.main(["--out-dir", str(out), "--figure", "W3", *inputs]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'W3'" in err[0] and "lambda_eff" in err[0], err


def test_a_module_without_draw_figures_is_refused(
    analysis_files: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """draw_figures(analyses, names=None) is the one protocol of a model's analysis
    module: a module with only the old make_figures(analyses, out_dir) is refused in one
    line naming the function it lacks, and nothing is written."""

    def make_all(analyses, out_dir):
        raise AssertionError("make_figures is not a protocol of analysis.figures")

    module = type("OldStyle", (), {"make_figures": staticmethod(make_all)})
    monkeypatch.setattr(figures, "analysis_module", lambda model, source: module)
    out = tmp_path / "f"
    with pytest.raises(ValueError, match=r"OldStyle has no function draw_figures\(") as exc:
        figures.make_figures(analysis_files, out, names=["b"])
    assert len(str(exc.value).splitlines()) == 1
    assert not out.exists()


def test_point_label_and_reference_lines(analysis_files: list[Path]) -> None:
    """Legends name the point; beta_eff draws 1/3 (d=1) and 0.2414 (d=2) dashed."""
    datasets = kpz_figures.load_analyses(analysis_files)
    assert kpz_figures.point_label(datasets[1]) == "d=2, L=64, p=1, q=0, sequential, n=16"
    fig = kpz_figures.plot_beta_eff(datasets)
    refs = []
    for ax in fig.axes:
        for line in ax.get_lines():
            if line.get_linestyle() == "--":
                refs.append((float(line.get_ydata()[0]), line.get_label()))
    assert sorted(r[0] for r in refs) == pytest.approx([0.2414, 1 / 3])
    assert all("KPZ" in label for _, label in refs)
    labels = [t.get_text() for sub in fig.subfigs for t in sub.legends[0].get_texts()]
    assert any("n=16" in lab and "L=1024" in lab for lab in labels)


def test_cli_rejects_non_analysis_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "raw.nc"
    small_dataset(2).to_netcdf(bad)  # a dataset, but not an analysis dataset
    assert figures.main(["--out-dir", str(tmp_path / "f"), str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "W2_mean" in err[0]


def test_cli_needs_one_known_model(
    analysis_files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No KPZ default: an analysis without a model, analyses of two models, or of an
    unknown one are refused (exit 2, one line), nothing is written."""
    bare = tmp_path / "bare.nc"
    other = tmp_path / "other.nc"
    with xr.open_dataset(analysis_files[0]) as f:
        ds = f.load()
    ds.attrs.pop("model")
    ds.to_netcdf(bare)
    ds.attrs["model"] = "ea3d"
    ds.to_netcdf(other)
    cases = [
        ([bare], ["bare.nc", "no attribute 'model'"]),
        ([analysis_files[0], other], ["several models", "ea3d, kpz"]),
    ]
    for paths, words in cases:
        assert figures.main(["--out-dir", str(tmp_path / "f"), *map(str, paths)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and all(w in err[0] for w in words), err
    assert not (tmp_path / "f").exists()


def test_a_point_without_waiting_times_gets_every_figure(tmp_path: Path) -> None:
    """waiting_times is optional: a point run without them still gets all five figures,
    the C and lambda panels saying why they hold no curve instead of failing."""
    from simcore.config import validate_run_config
    from simcore.runner import EXIT_OK, run_job

    cfg = validate_run_config(
        {"model": "kpz", "dim": 1, "L": 64, "samples": 4, "seed": 3, "t_max": 30}
    )
    assert run_job(cfg, tmp_path / "run.nc", progress=False) == EXIT_OK
    with xr.open_dataset(tmp_path / "run.nc") as ds:
        assert ds.sizes["s"] == 0
        an = analyze(ds.load())
    write_dataset(an, tmp_path / "an.nc")
    written = figures.make_figures([tmp_path / "an.nc"], tmp_path / "figs")
    names = {p.stem for p in written}
    assert names == set(registry.get("kpz").campaign_figures([an.attrs]))


# --------------------------------------------------------------------------- every model


#: Run configs whose campaign figures are checked: each model's example, and kmc2d's
#: Ising rates and random deposition (phi = 0, with its exact W^2 = k2 t guide) too (its
#: figures differ per rate model).
_EXAMPLE_EXTRAS = {
    "kmc2d": [{"rates": "ising", "T": 2.0, "scheme": "serial"}, {"rates": "sos", "phi": 0.0}]
}


@pytest.fixture(scope="module")
def example_analyses(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], list]:
    """``of(model)``: the analyses of real runs of the model's example config(s)
    (:data:`_EXAMPLE_EXTRAS`), run once per model on first use and shared by the tests
    of this module."""
    from analysis.dispatch import analysis_module

    made: dict[str, list[xr.Dataset]] = {}

    def of(model: str) -> list[xr.Dataset]:
        if model not in made:
            spec = registry.get(model)
            module = analysis_module(spec.name, "test")
            where = tmp_path_factory.mktemp(model)
            analyses = []
            for i, extra in enumerate([{}, *_EXAMPLE_EXTRAS.get(model, [])]):
                example = {k: v for k, v in spec.example.items() if k != "phi" or not extra}
                cfg = validate_run_config({"model": model, **example, **extra, "seed": 5 + i})
                ds = run_and_load(cfg, where / f"run{i}.nc")
                analyses.append(module.analyze(ds))
            made[model] = analyses
        return made[model]

    return of


def _points(line) -> set[tuple[float, float]]:
    """The (x, y) points of a line, rounded (float arrays whatever matplotlib holds)."""
    x = np.round(np.asarray(line.get_xdata(), dtype=float), 9)
    y = np.round(np.asarray(line.get_ydata(), dtype=float), 9)
    return set(zip(x.tolist(), y.tolist(), strict=True))


def _means_without_errors(fig) -> list[str]:
    """Lines with markers (drawn means) whose points are not the data of an error-bar
    series of their axes; guides and references (no markers) do not count."""
    from matplotlib.container import ErrorbarContainer

    bad = []
    for ax in fig.axes:
        with_err = set()
        for c in ax.containers:
            if isinstance(c, ErrorbarContainer) and c.has_yerr:
                with_err |= _points(c.lines[0])
        for line in ax.get_lines():
            if line.get_marker() in (None, "", " ", "None", "none"):
                continue
            if not _points(line) <= with_err:
                bad.append(f"{ax.get_title() or ax.get_ylabel()}: {line.get_label()}")
    return bad


@pytest.mark.parametrize("model", simcore_models())
def test_every_campaign_figure_draws_its_means_with_errors(
    model: str, example_analyses: Callable[[str], list]
) -> None:
    """Each model's campaign figures, drawn from real runs of its example config(s): every
    mean drawn (a line with markers) is the data of an error-bar series of its axes, no
    axis label says '[1]', and a figure's time axes name the file's time unit."""
    from analysis.dispatch import analysis_module

    spec = registry.get(model)
    module = analysis_module(spec.name, "test")
    analyses = example_analyses(model)
    drawn = module.draw_figures(analyses)
    assert list(drawn) == list(spec.campaign_figures([d.attrs for d in analyses]))
    for name, (fig, _prov) in drawn.items():
        assert not _means_without_errors(fig), (name, _means_without_errors(fig))
        labels = [t for ax in fig.axes for t in (ax.get_xlabel(), ax.get_ylabel())]
        assert not any("[1]" in t for t in labels), (name, labels)


def test_every_paper_figure_of_analyses_draws_its_means_with_errors(
    analysis_files: list[Path],
) -> None:
    """The kpz paper figures drawn from analysis files (every entry of the registry's table
    without benchmark kernels: kelling2017 Figs. 3b, 4/5, 5b, 6) from the d=2 analysis:
    every mean drawn with markers is the data of an error-bar series of its axes."""
    from analysis.dispatch import import_function

    drawn = []
    for name, (spec, figure) in registry.paper_figures().items():
        if spec.name != "kpz" or figure.bench or figure.paper != "kelling2017":
            continue  # kelling2012 Fig. 1 is a map of one sample's heights: no means
        fig, _prov = import_function(figure.draw, name)([str(analysis_files[1])])
        assert not _means_without_errors(fig), (name, _means_without_errors(fig))
        drawn.append(name)
    assert {"fig3b", "fig4", "fig5b", "fig6"} <= set(drawn)


# --------------------------------------------------------------------------- styles


#: A system size in a legend label: "L=64, p=1, ..." or "sos L=24, ...".
_SIZE_IN_LABEL = re.compile(r"\bL=(\d+)\b")


def _resized(analyses: list[xr.Dataset], sizes: list[int]) -> list[xr.Dataset]:
    """Each size of ``sizes`` as a point of its own: a copy of the first analysis whose
    attribute L says that size (the figures take a point's size from its attributes)."""
    return [analyses[0].copy().assign_attrs(L=L) for L in sizes]


def _size_colors(fig) -> dict[int, set[tuple[float, ...]]]:
    """The colours of the error-bar series of each labelled system size in ``fig``."""
    out: dict[int, set[tuple[float, ...]]] = {}
    for ax in fig.axes:
        for c in ax.containers:
            found = _SIZE_IN_LABEL.search(str(c.get_label()))
            if found and c.lines[0] is not None:
                out.setdefault(int(found[1]), set()).add(to_rgba(c.lines[0].get_color()))
    return out


def _is_grey(color) -> bool:
    r, g, b, _ = to_rgba(color)
    return max(r, g, b) - min(r, g, b) < 0.05


#: The campaign figures that colour their points by system size, per model.
_BY_SIZE = {
    "kpz": ["W2", "beta_eff"],
    "kmc2d": ["W2", "beta_eff", "step_density", "events_rate"],
    "fcc": ["domain_size", "x_eff", "open_bonds"],
    "ea3d": ["energy", "q2", "binder"],
    "ea3d_pt": ["binder", "chi_sg", "energy", "equilibration", "exchange"],
}


@pytest.mark.parametrize("model", sorted(_BY_SIZE))
def test_a_size_keeps_its_colour_when_a_campaign_gains_a_size(
    model: str, example_analyses: Callable[[str], list]
) -> None:
    """The colour of L = 16 and of L = 32 is the same in each figure drawn from those two
    points and from the same points plus a smaller L = 8 drawn first (colours by order of
    appearance would shift), and the three sizes have three colours."""
    from analysis.dispatch import analysis_module

    module = analysis_module(model, "test")
    analyses = example_analyses(model)
    pair = module.draw_figures(_resized(analyses, [16, 32]), names=_BY_SIZE[model])
    three = module.draw_figures(_resized(analyses, [8, 16, 32]), names=_BY_SIZE[model])
    for name in _BY_SIZE[model]:
        before, after = _size_colors(pair[name][0]), _size_colors(three[name][0])
        assert set(before) == {16, 32} and set(after) == {8, 16, 32}, (name, before, after)
        assert all(len(c) == 1 for c in after.values()), (name, after)  # one colour per size
        assert before[16] == after[16] and before[32] == after[32], (name, before, after)
        assert len(set.union(*after.values())) == 3, (name, after)
        assert not any(_is_grey(c) for cs in after.values() for c in cs), (name, after)


def test_usual_sizes_have_distinct_colours() -> None:
    """The usual ladders of sizes (eleven successive powers of two, the spin-glass sizes 4
    to 32) get as many colours as sizes, none grey, and a size always the same one."""
    for ladder in ([2**k for k in range(2, 13)], [4, 6, 8, 10, 12, 16, 20, 24, 32]):
        colors = [size_color(L) for L in ladder]
        assert len(set(colors)) == len(ladder), (ladder, colors)
        assert not any(_is_grey(c) for c in colors)
    assert size_color(64) == size_color(64.0) == size_color(np.int64(64)) == size_color("64")


@pytest.fixture(scope="module")
def two_sizes() -> list[xr.Dataset]:
    """kpz analyses of two 2D sizes (synthetic runs, times to 200) whose finite-size regimes
    t > 0.1 L^z begin inside the drawn times (at t = 8.7 for L = 16, 26 for L = 32)."""
    out = []
    for seed, L in enumerate((16, 32)):
        ds = small_dataset(2, seed=seed)
        ds.attrs["L"] = L
        out.append(analyze(ds))
    return out


@pytest.mark.parametrize(
    "plot", [kpz_figures.plot_W2, kpz_figures.plot_beta_eff], ids=["W2", "beta_eff"]
)
def test_finite_size_regimes_are_told_apart_by_size(plot, two_sizes: list[xr.Dataset]) -> None:
    """Each size's finite-size regime is drawn in its own colour, never as blended shades:
    a tick at its onset 0.1 L^z and open markers over exactly its points beyond it, in the
    colour of its curve; the two sizes' colours differ; the legend entry shows an open
    marker in each of those colours, none grey."""
    from matplotlib.collections import LineCollection
    from matplotlib.container import ErrorbarContainer

    fig = plot(two_sizes)
    (ax,) = fig.axes
    assert not ax.patches  # no shaded spans, whose colours would mix
    curve = {}
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer):
            L = int(_SIZE_IN_LABEL.search(c.get_label())[1])
            curve[L] = (to_rgba(c.lines[0].get_color()), c)
    assert set(curve) == {16, 32} and curve[16][0] != curve[32][0]
    bars = {id(b) for c in ax.containers for b in c.lines[2]}
    ticks = [col for col in ax.collections if isinstance(col, LineCollection)
             and id(col) not in bars]  # fmt: skip
    opened = [line for line in ax.get_lines() if line.get_markerfacecolor() == "white"]
    for L, (color, container) in curve.items():
        onset = saturation_onset(two_sizes[(16, 32).index(L)])
        (tick,) = [t for t in ticks if to_rgba(t.get_colors()[0]) == color]
        assert tick.get_segments()[0][0][0] == pytest.approx(onset)
        (line,) = [ln for ln in opened if to_rgba(ln.get_color()) == color]
        x = np.asarray(container.lines[0].get_xdata(), dtype=float)
        assert list(np.asarray(line.get_xdata(), dtype=float)) == list(x[x > onset])
    legend = fig.subfigs[0].legends[0]
    texts = [t.get_text() for t in legend.get_texts()]
    assert kpz_figures.FINITE_SIZE_LABEL in texts
    swatches = [h for h in legend.findobj(Line2D) if h.get_markerfacecolor() == "white"]
    assert {to_rgba(h.get_color()) for h in swatches} == {curve[16][0], curve[32][0]}
    assert not any(_is_grey(h.get_color()) for h in swatches)


def test_kmc2d_guides_are_drawn_above_the_data(example_analyses: Callable[[str], list]) -> None:
    """kmc2d's exact random-deposition W^2 = k2 t and beta = 1/2, which the phi = 0 data
    follow, are drawn above every data series (error bars included), dashed and in a
    colour no data series has."""
    drawn = kmc2d.draw_figures(example_analyses("kmc2d"), names=["W2", "beta_eff"])
    for name, (fig, _prov) in drawn.items():
        (ax,) = fig.axes
        (guide,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("random dep")]
        data = [a for c in ax.containers for a in c.get_children()]
        assert data and guide.get_zorder() > max(a.get_zorder() for a in data), name
        assert guide.get_linestyle() == "--"
        colors = {to_rgba(c.lines[0].get_color()) for c in ax.containers}
        assert to_rgba(guide.get_color()) not in colors, name


@pytest.mark.parametrize("model", ["ea3d", "ea3d_pt"])
def test_binder_axis_names_the_ratio(model: str, example_analyses: Callable[[str], list]) -> None:
    """The Binder figures of ea3d (vs sweeps) and ea3d_pt (vs T) name the quantity on
    their axis, not only its symbol g (it is dimensionless: no unit)."""
    from analysis.dispatch import analysis_module

    drawn = analysis_module(model, "test").draw_figures(example_analyses(model), names=["binder"])
    assert drawn["binder"][0].axes[0].get_ylabel() == "Binder ratio g"
