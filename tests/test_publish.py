"""Publishing a campaign's data (analysis.publish) and redrawing its figures from it alone
(analysis.redraw), on a tiny CPU campaign built in-process: the files come over with their
provenance, the manifest lists what every figure is drawn from, a figure whose points lack
an analysis is left out and named, a republication replaces the folder whole, and the
redraw writes every listed figure or fails in one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import xarray as xr
import yaml

from analysis.aggregate import aggregate
from analysis.kpz import analyze
from analysis.publish import MANIFEST, publish
from analysis.redraw import entries
from simcore.campaign.plan import load_campaign
from simcore.config import validate_run_config
from simcore.io.dataset import write_dataset
from simcore.runner import run_job

CAMPAIGN = {
    "campaign": "pub",
    "seed": 5,
    "model": "kpz",
    "backend": "cpu",
    "samples": 4,
    "samples_per_job": 2,
    "t_max": 200,
    "waiting_times": [10],
    "points_per_decade": 4,
    "paper_figures": [
        {"figure": "fig3b", "name": "both", "select": None},
        {"figure": "fig6", "name": "seq_only", "select": {"scheme": "sequential"}},
    ],
    "points": [
        {"dim": 2, "L": 16, "scheme": "sequential"},
        {"dim": 2, "L": 16, "scheme": "DTr", "domain": [8, 8]},
    ],
}


def _build(tmp: Path, skip_analysis: str | None = None) -> tuple[Path, Path]:
    """The campaign file and a results folder with its runs, datasets and analyses
    (none for the point ``skip_analysis``)."""
    cfg = dict(CAMPAIGN)
    cfg["paper_figures"] = [
        {k: v for k, v in f.items() if v is not None} for f in CAMPAIGN["paper_figures"]
    ]
    config = tmp / "pub.yaml"
    config.write_text(yaml.safe_dump(cfg))
    campaign = load_campaign(config)
    results = tmp / "results"
    for point in campaign.point_names:
        runs = []
        for block in campaign.point(point).blocks:
            out = results / "pub" / "runs" / point / f"b{block}.nc"
            out.parent.mkdir(parents=True, exist_ok=True)
            job = validate_run_config(campaign.job_config(point, block))
            assert run_job(job, out, progress=False) == 0
            runs.append(out)
        dataset = write_dataset(aggregate(runs), results / "pub" / "datasets" / f"{point}.nc")
        if point != skip_analysis:
            with xr.open_dataset(dataset) as ds:
                write_dataset(analyze(ds.load()), results / "pub" / "analysis" / f"{point}.nc")
    return config, results


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _build(tmp_path_factory.mktemp("pub"))


def test_publish_copies_files_and_lists_figures(built, tmp_path: Path) -> None:
    """Every analysis and (small) dataset is copied as written, and the manifest lists the
    paper figures with their selected points and the campaign figures with all."""
    config, results = built
    folder = publish(config, results, tmp_path / "data", command="CMD")
    names = sorted(p.name for p in (folder / "analysis").glob("*.nc"))
    assert names == sorted(p.name for p in (results / "pub" / "analysis").glob("*.nc"))
    for sub in ("analysis", "datasets"):
        for path in (folder / sub).glob("*.nc"):
            assert path.read_bytes() == (results / "pub" / sub / path.name).read_bytes()
    with xr.open_dataset(next((folder / "analysis").glob("*.nc"))) as ds:
        assert "git_commit" in ds.attrs and ds.attrs["backend"] == "cpu"
    manifest = yaml.safe_load((folder / MANIFEST).read_text())
    assert manifest["command"] == "CMD" and manifest["runs"]["backend"] == ["cpu"]
    figs = {f["name"]: f for f in manifest["figures"]}
    assert len(figs["paper_both"]["inputs"]) == 2
    assert figs["paper_seq_only"]["inputs"] == ["analysis/kpz_d2_L16_p1_q0_sequential_cpu.nc"]
    assert {"W2", "beta_eff"} <= {f.get("campaign_figure") for f in manifest["figures"]}
    assert manifest["figures_left_out"] == [] and manifest["points_without_analysis"] == []


def test_large_datasets_left_out_and_republication_replaces(built, tmp_path: Path) -> None:
    """A dataset over the limit stays behind (named in the manifest), and publishing again
    replaces the whole folder: no file of the earlier publication survives."""
    config, results = built
    folder = publish(config, results, tmp_path / "data")
    assert list((folder / "datasets").glob("*.nc"))
    (folder / "stale.txt").write_text("x")
    folder = publish(config, results, tmp_path / "data", datasets_limit_mb=0)
    assert not (folder / "datasets").exists() and not (folder / "stale.txt").exists()
    manifest = yaml.safe_load((folder / MANIFEST).read_text())
    assert len(manifest["datasets_left_out"]["points"]) == 2
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["pub"]


def test_figure_without_analyses_left_out(tmp_path: Path) -> None:
    """A point without an analysis: the figures that need it are named as left out, with
    the point; the others are listed."""
    config, results = _build(tmp_path, skip_analysis="kpz_d2_L16_p1_q0_DTr_cpu_D8x8")
    manifest = yaml.safe_load((publish(config, results, tmp_path / "d") / MANIFEST).read_text())
    assert manifest["points_without_analysis"] == ["kpz_d2_L16_p1_q0_DTr_cpu_D8x8"]
    assert manifest["figures_left_out"] == [
        {"name": "paper_both", "missing": ["kpz_d2_L16_p1_q0_DTr_cpu_D8x8"]}
    ]
    assert "paper_seq_only" in {f["name"] for f in manifest["figures"]}


def test_redraw_draws_every_listed_figure(built, tmp_path: Path) -> None:
    """The redraw CLI writes a PNG and a PDF of every figure of every manifest."""
    config, results = built
    publish(config, results, tmp_path / "data")
    proc = subprocess.run(
        [sys.executable, "-m", "analysis.redraw", str(tmp_path / "data"), "--out-dir",
         str(tmp_path / "figs")], capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    listed = entries(tmp_path / "data")
    for entry in listed:
        for ext in ("png", "pdf"):
            assert (tmp_path / "figs" / "pub" / f"{entry.name}.{ext}").stat().st_size > 0
    assert f"{len(listed)} figures" in proc.stdout


@pytest.mark.parametrize(
    ("break_it", "message"),
    [
        ("delete_input", "is missing"),
        ("no_manifest", "no published data"),
        ("bad_only", "no published figure"),
    ],
)
def test_redraw_bad_input_one_line(built, tmp_path: Path, break_it: str, message: str) -> None:
    """A missing input, no manifest or an unknown --only name: exit 2, one line."""
    config, results = built
    folder = publish(config, results, tmp_path / "data")
    args = [str(tmp_path / "data"), "--out-dir", str(tmp_path / "figs")]
    if break_it == "delete_input":
        next((folder / "analysis").glob("*.nc")).unlink()
    elif break_it == "no_manifest":
        (folder / MANIFEST).unlink()
    else:
        args += ["--only", "nope"]
    proc = subprocess.run([sys.executable, "-m", "analysis.redraw", *args],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_publish_cli_errors_one_line(tmp_path: Path) -> None:
    """No results of the campaign: exit 2, one line naming the folder."""
    config = tmp_path / "pub.yaml"
    config.write_text(yaml.safe_dump({k: v for k, v in CAMPAIGN.items() if k != "paper_figures"}))
    proc = subprocess.run(
        [sys.executable, "-m", "analysis.publish", str(config), "--results", str(tmp_path / "r"),
         "--out", str(tmp_path / "d")], capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and "no results of campaign 'pub'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "d" / "pub").exists()


def test_manifest_lists_every_commit_of_a_point(tmp_path: Path) -> None:
    """An analysis whose runs were made at two commits has no common ``git_commit``; the
    manifest's commits come from its ``source_git_commits`` with those of the others."""
    from analysis.publish import _distinct

    one, two = tmp_path / "one.nc", tmp_path / "two.nc"
    xr.Dataset(attrs={"git_commit": "aaa"}).to_netcdf(one)
    xr.Dataset(attrs={"source_git_commits": ["bbb", "ccc", "bbb"]}).to_netcdf(two)
    assert _distinct([one, two], "git_commit") == ["aaa", "bbb", "ccc"]
    assert _distinct([one], "backend") == []
