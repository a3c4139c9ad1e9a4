"""Campaign expansion (simcore.campaign) and the Snakemake workflow at dry-run level."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import xarray as xr
import yaml

from simcore.campaign import (
    job_config_yaml,
    job_resources,
    load_campaign,
    n_blocks,
    validate_config,
)
from simcore.campaign.resources import estimate, resource_parameters
from simcore.config import validate_run_config
from simcore.models import registry
from simcore.models.spec import format_number
from simcore.seeding import job_seed

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = shutil.which("snakemake")


def tiny() -> dict[str, Any]:
    """A small campaign: 2 + 2 points, 5 samples in blocks of 2 (3 blocks, remainder 1)."""
    return {
        "campaign": "tiny",
        "seed": 42,
        "model": "kpz",
        "samples": 5,
        "samples_per_job": 2,
        "points": [
            {"dim": 1, "L": [32, 64], "t_max": 100, "waiting_times": [10, 3]},
            {"dim": 2, "L": 4, "p": [1, 0.5], "q": 0, "t_max": 20, "waiting_times": [5]},
        ],
    }


def all_configs(cfg: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    camp = load_campaign(cfg)
    return {job: camp.job_config(*job) for job in camp.jobs()}


# ----------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("x", "text"),
    [(1.0, "1"), (1, "1"), (0.5, "0.5"), (0.0, "0"), (0.25, "0.25"), (1e-5, "0.00001")],
)
def test_format_number(x: float, text: str) -> None:
    assert format_number(x) == text


def test_point_name() -> None:
    def name(**cfg) -> str:
        run = validate_run_config({"model": "kpz", "samples": 1, "seed": 0, "t_max": 9, **cfg})
        return registry.get("kpz").point_name(run)

    assert name(dim=2, L=256) == "kpz_d2_L256_p1_q0_sequential_cpu"
    assert name(dim=1, L=64, p=0.5, q=0.25) == "kpz_d1_L64_p0.5_q0.25_sequential_cpu"
    assert name(dim=2, L=256, scheme="DTrDB", backend="gpu", domain=[64, 64], border=5) == (
        "kpz_d2_L256_p1_q0_DTrDB_gpu_D64x64_tc1-1_w5"
    )


def test_expansion_names_and_order() -> None:
    camp = load_campaign(tiny())
    assert camp.name == "tiny" and camp.seed == 42
    assert camp.point_names == [
        "kpz_d1_L32_p1_q0_sequential_cpu",
        "kpz_d1_L64_p1_q0_sequential_cpu",
        "kpz_d2_L4_p1_q0_sequential_cpu",
        "kpz_d2_L4_p0.5_q0_sequential_cpu",
    ]
    pt = camp.point("kpz_d1_L64_p1_q0_sequential_cpu")
    assert pt.settings["waiting_times"] == [3, 10]  # sorted
    assert pt.points_per_decade == 10  # schema default
    with pytest.raises(KeyError, match="no point"):
        camp.point("kpz_d1_L128_p1_q0_sequential_cpu")


def test_default_campaign_file() -> None:
    camp = load_campaign(ROOT / "config" / "config.yaml")
    assert camp.name == "default"
    assert camp.point_names == [
        "kpz_d1_L1024_p1_q0_sequential_cpu",
        "kpz_d2_L128_p1_q0_sequential_cpu",
        "kpz_d2_L256_p1_q0_sequential_cpu",
    ]
    for pt in camp.points:
        assert pt.samples == 64 and pt.n_blocks == 4
        assert pt.t_max == (10000 if pt.get("dim") == 1 else 1000)


# ----------------------------------------------------------------------------- blocks


@pytest.mark.parametrize(("samples", "per_job", "blocks"), [(1, 16, 1), (16, 16, 1), (17, 16, 2)])
def test_n_blocks(samples: int, per_job: int, blocks: int) -> None:
    assert n_blocks(samples, per_job) == blocks


def test_blocks_and_remainder() -> None:
    camp = load_campaign(tiny())
    jobs = list(camp.jobs())
    assert len(jobs) == 4 * 3
    for name in camp.point_names:
        cfgs = [camp.job_config(name, b) for b in range(3)]
        assert [c["samples"] for c in cfgs] == [2, 2, 1]
        assert [c["sample_offset"] for c in cfgs] == [0, 2, 4]
        assert [c["block"] for c in cfgs] == [0, 1, 2]
    with pytest.raises(ValueError, match="block 3"):
        camp.job_config(camp.point_names[0], 3)


def test_job_config_keys_and_values() -> None:
    camp = load_campaign(tiny())
    cfg = camp.job_config("kpz_d2_L4_p0.5_q0_sequential_cpu", 1)
    expected = {
        "model": "kpz",
        "dim": 2,
        "L": 4,
        "p": 0.5,
        "q": 0.0,
        "scheme": "sequential",
        "backend": "cpu",
        "samples": 2,
        "seed": job_seed(42, "tiny", "kpz_d2_L4_p0.5_q0_sequential_cpu", 1),
        "t_max": 20,
        "waiting_times": [5],
        "points_per_decade": 10,
        "sample_offset": 2,
        "campaign": "tiny",
        "point": "kpz_d2_L4_p0.5_q0_sequential_cpu",
        "block": 1,
    }
    assert cfg == expected and tuple(cfg) == tuple(expected)  # the order written too
    assert isinstance(cfg["p"], float) and isinstance(cfg["q"], float)
    assert 0 <= cfg["seed"] < 2**64


def test_job_yaml_round_trip(tmp_path: Path) -> None:
    camp = load_campaign(tiny())
    cfg = camp.job_config(camp.point_names[0], 2)
    assert yaml.safe_load(job_config_yaml(cfg)) == cfg
    assert validate_run_config(yaml.safe_load(job_config_yaml(cfg)))["point"] == cfg["point"]


def test_seeds_distinct() -> None:
    cfg = tiny()
    cfg["samples"] = 40
    seeds = [c["seed"] for c in all_configs(cfg).values()]
    assert len(seeds) == 4 * 20 and len(set(seeds)) == len(seeds)
    other = dict(cfg, campaign="tiny2")
    assert not set(seeds) & {c["seed"] for c in all_configs(other).values()}


def test_per_entry_overrides() -> None:
    cfg = tiny()
    cfg["points"][0].update(samples=3, samples_per_job=3, points_per_decade=4)
    camp = load_campaign(cfg)
    pt = camp.point("kpz_d1_L32_p1_q0_sequential_cpu")
    assert (pt.samples, pt.samples_per_job, pt.n_blocks, pt.points_per_decade) == (3, 3, 1, 4)
    assert camp.point("kpz_d2_L4_p1_q0_sequential_cpu").n_blocks == 3


# ----------------------------------------------------------------------- incrementality


def test_adding_samples_keeps_existing_jobs() -> None:
    cfg = tiny()
    cfg["samples"] = 4  # blocks 0, 1 full
    before = all_configs(cfg)
    more = copy.deepcopy(cfg)
    more["samples"] = 9  # blocks 0..4, last one holds 1
    after = all_configs(more)
    assert set(before) < set(after)
    for job, conf in before.items():
        assert after[job] == conf, job


def test_adding_points_keeps_existing_jobs() -> None:
    cfg = tiny()
    before = all_configs(cfg)
    more = copy.deepcopy(cfg)
    more["points"][0]["L"] = [32, 64, 128]  # new point inside an entry
    more["points"].insert(0, {"dim": 2, "L": 8, "t_max": 10, "waiting_times": [2]})
    after = all_configs(more)
    assert len(after) == len(before) + 2 * 3
    for job, conf in before.items():
        assert after[job] == conf, job


def test_changing_one_entry_changes_only_its_jobs() -> None:
    cfg = tiny()
    before = all_configs(cfg)
    changed = copy.deepcopy(cfg)
    changed["points"][1]["t_max"] = 30
    after = all_configs(changed)
    diff = {job[0] for job in before if before[job] != after[job]}
    assert diff == {"kpz_d2_L4_p1_q0_sequential_cpu", "kpz_d2_L4_p0.5_q0_sequential_cpu"}


# ----------------------------------------------------------------------------- errors


def _error(cfg: dict[str, Any]) -> str:
    with pytest.raises(ValueError) as info:
        load_campaign(cfg)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def test_schema_errors_name_key_and_value() -> None:
    c = tiny()
    assert "model" in _error(dict(c, model="ising")) and "'ising'" in _error(dict(c, model="ising"))
    assert "seed" in _error(dict(c, seed=-1)) and "-1" in _error(dict(c, seed=-1))
    msg = _error(dict(c, samples_per_job=0))
    assert "samples_per_job" in msg and "0" in msg
    msg = _error(dict(c, sample=5))
    assert "sample: unknown key" in msg and "5" in msg
    msg = _error({k: v for k, v in c.items() if k != "seed"})
    assert "seed" in msg and "missing" in msg
    bad = copy.deepcopy(c)
    bad["points"][1]["scheme"] = "parallel"
    msg = _error(bad)
    assert "points[1].scheme" in msg and "'parallel'" in msg
    bad = copy.deepcopy(c)
    bad["points"][0]["L"] = [32, 2]
    msg = _error(bad)
    assert "points[0].L: 2" in msg and ">= 32" in msg
    bad["points"][0]["L"] = [32, 1]
    assert "points[0].L: 1: must be a power of two >= 32 (dim 1)" in _error(bad)
    bad = copy.deepcopy(c)
    bad["points"][0]["Lx"] = 3
    assert "points[0].Lx: unknown key" in _error(bad)
    msg = _error(dict(c, campaign="a/b"))
    assert "campaign" in msg and "'a/b'" in msg


def test_semantic_errors() -> None:
    c = tiny()
    bad = copy.deepcopy(c)
    bad["points"][0]["L"] = 48
    msg = _error(bad)
    assert "points[0].L" in msg and "48" in msg and "power of two" in msg
    bad = copy.deepcopy(c)
    bad["points"][0]["L"] = 16  # < 32 in d=1
    assert "16" in _error(bad)
    bad = copy.deepcopy(c)
    bad["points"][1].update(p=0.75, q=0.5)
    assert "p + q" in _error(bad)
    bad = copy.deepcopy(c)
    bad["points"][0]["waiting_times"] = [10, 1000]
    msg = _error(bad)
    assert "waiting_times" in msg and "1000" in msg
    bad = copy.deepcopy(c)
    del bad["points"][0]["t_max"]
    assert "t_max" in _error(bad)
    bad = copy.deepcopy(c)
    bad["points"].append({"dim": 1, "L": 64, "t_max": 50, "waiting_times": [5]})
    msg = _error(bad)
    assert "duplicate point kpz_d1_L64_p1_q0_sequential_cpu" in msg


def test_paper_figure_selection() -> None:
    """`paper_figures` entries draw the points their `select` matches; a bare name, all."""
    cfg = tiny()
    cfg["points"].append(
        {"dim": 2, "L": 32, "scheme": ["DTrDT", "DTrDB"], "tc": [[1, 1], [2, 1]],
         "domain": [16, 16], "t_max": 20, "waiting_times": [5]}
    )  # fmt: skip
    cfg["paper_figures"] = [
        "fig6",
        {"figure": "fig3b", "name": "one_d", "select": {"dim": 1}},
        {"figure": "fig4", "name": "dt", "select": {"scheme": "DTrDT", "tc": [[2, 1], [3, 2]]}},
        {"figure": "fig4", "name": "half", "select": {"p": [0.5], "L": 4}},
        {"figure": "performance", "name": "speed"},
    ]
    camp = load_campaign(cfg)
    assert [f.name for f in camp.paper_figures] == ["fig6", "one_d", "dt", "half", "speed"]
    assert camp.figure_points("fig6") == camp.point_names
    assert camp.figure_points("one_d") == [
        "kpz_d1_L32_p1_q0_sequential_cpu",
        "kpz_d1_L64_p1_q0_sequential_cpu",
    ]
    assert camp.figure_points("dt") == ["kpz_d2_L32_p1_q0_DTrDT_cpu_D16x16_tc2-1"]
    assert camp.figure_points("half") == ["kpz_d2_L4_p0.5_q0_sequential_cpu"]
    assert camp.paper_figure("speed").figure.name == "performance"
    assert camp.bench_kernels == ["dd"] and camp.bench_lines("dd") == [""]  # its defaults
    assert "1 parameter point(s): kpz_d2_L4_p0.5" in camp.summary(camp.figure_points("half"))
    with pytest.raises(KeyError, match="no paper figure 'fig3b'"):
        camp.paper_figure("fig3b")

    def error(entry: Any) -> str:
        return _error(dict(cfg, paper_figures=[entry]))

    msg = error({"figure": "fig6", "select": {"L": 8}})
    assert "paper_figures[0].select: matches no point" in msg and "'L': 8" in msg
    assert "performance is drawn from benchmarks" in error(
        {"figure": "performance", "select": {"dim": 1}}
    )
    assert "paper_figures[0].select.Lx: unknown key" in error(
        {"figure": "fig6", "select": {"Lx": 1}}
    )
    assert "'fig5'" in error("fig5")
    msg = _error(dict(cfg, paper_figures=["fig6", {"figure": "fig4", "name": "fig6"}]))
    assert "paper_figures[1].name: 'fig6' is used twice" in msg


def test_validate_fills_defaults_without_sharing() -> None:
    a = validate_config(tiny())
    b = validate_config(tiny())
    assert a["backend"] == "cpu" and a["points_per_decade"] == 10
    assert a["job_resources"]["min_runtime"] == 10
    a["job_resources"]["min_runtime"] = 99
    assert b["job_resources"]["min_runtime"] == 10
    assert "job_resources" not in tiny()  # input not modified


def test_job_resources() -> None:
    spec = registry.get("kpz")
    job = {"model": "kpz", "L": 256, "dim": 2, "t_max": 1000, "samples": 16, "backend": "cpu",
           "points_per_decade": 10, "waiting_times": [10, 30, 100]}  # fmt: skip
    res = job_resources(spec, job)
    assert res["runtime"] == 10  # 1.05e9 updates * 2 / 1e7 per s = 3.5 min -> minimum
    assert res["mem_mb"] > 1024 and res["gpu"] == 0
    big = dict(job, L=4096)  # 256x the work: 2.7e11 * 2 / 1e7 / 60 = 895 min
    assert job_resources(spec, big)["runtime"] == 895
    assert job_resources(spec, big, attempt=2)["runtime"] == 2 * 895
    faster = job_resources(spec, big, parameters={"updates_per_second": 2e7})
    assert faster["runtime"] == 448  # the campaign's job_resources set the model's rates
    with pytest.raises(ValueError, match="job_resources.flips_per_second: unknown key"):
        job_resources(spec, big, parameters={"flips_per_second": 1.0})  # another model's
    # with max_wall a job stops there and a retry resumes it: no request exceeds it + 5 min
    par = resource_parameters(spec, {})
    assert estimate(spec, big, 1, par, max_wall=3300)["runtime"] == 55 + 5
    assert estimate(spec, big, 3, par, max_wall=3300)["runtime"] == 55 + 5
    assert estimate(spec, job, 1, par, max_wall=3300)["runtime"] == 10  # shorter: unchanged


# ---------------------------------------------------------------------------- snakemake


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(workdir),
            *args,
        ],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def job_counts(output: str) -> dict[str, int]:
    """The 'Job stats' table of a dry run as {rule: count}."""
    block = output.split("Job stats:", 1)[1]
    counts = {}
    for line in block.splitlines()[3:]:
        m = re.fullmatch(r"(\w+)\s+(\d+)", line.strip())
        if not m:
            break
        counts[m.group(1)] = int(m.group(2))
    return counts


def planned_outputs(output: str, rule: str) -> set[str]:
    """Output files of the jobs of ``rule`` in a dry run."""
    outs = set()
    for chunk in re.split(r"\n(?=(?:local)?rule \w+:)", output):
        m = re.match(r"(?:local)?rule (\w+):", chunk.strip())
        if m and m.group(1) == rule:
            outs.update(re.findall(r"output: (.+)", chunk)[0].split(", "))
    return outs


def report_captions(report: Path) -> dict[str, str]:
    """Path -> caption (as plain text, one line) of every file of a Snakemake report."""
    text = report.read_text()
    results = json.loads(re.search(r"var results = (\{.*?\});\n", text, re.S).group(1))
    return {
        path: " ".join(re.sub(r"<[^>]+>", "", entry["caption"]).split())
        for path, entry in results.items()
    }


def write_campaign(path: Path, cfg: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(cfg))
    return path


needs_snakemake = pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed")


@needs_snakemake
def test_dry_run_lists_jobs(tmp_path: Path) -> None:
    conf = write_campaign(tmp_path / "tiny.yaml", tiny())
    proc = snakemake(tmp_path, "-n", "--cores", "1", "--configfile", str(conf))
    out = proc.stdout + proc.stderr
    assert job_counts(out) == {
        "simulate": 12,
        "aggregate": 4,
        "analyze": 4,
        "figure": 5,  # one job per campaign figure: each gets its own report caption
        "all": 1,
        "total": 26,
    }
    sims = planned_outputs(out, "simulate")
    assert "results/tiny/runs/kpz_d2_L4_p0.5_q0_sequential_cpu/b2.nc" in sims
    assert "results/tiny/jobs/kpz_d2_L4_p0.5_q0_sequential_cpu/b2.yaml" in sims
    assert len(sims) == 2 * 12
    assert planned_outputs(out, "figure") == {
        f"results/tiny/figures/{name}.{ext}"
        for name in registry.get("kpz").campaign_figures([])
        for ext in ("png", "pdf")
    }
    assert "results/tiny/datasets/kpz_d1_L32_p1_q0_sequential_cpu.nc" in planned_outputs(
        out, "aggregate"
    )
    # the default campaign's keys do not leak into a --configfile campaign
    assert "results/default" not in out
    assert not (ROOT / "results" / "tiny").exists()


@needs_snakemake
@pytest.mark.parametrize("conf", sorted(p.name for p in (ROOT / "config").glob("*.yaml")))
def test_every_campaign_file_builds_its_dag(conf: str, tmp_path: Path) -> None:
    """Each shipped campaign plans its jobs, and its paper figures from the selected points."""
    proc = snakemake(tmp_path, "-n", "--configfile", str(ROOT / "config" / conf))
    counts = job_counts(proc.stdout + proc.stderr)
    camp = load_campaign(ROOT / "config" / conf)
    assert counts["simulate"] == sum(pt.n_blocks for pt in camp.points)
    assert counts.get("paper_figure", 0) == len(camp.paper_figures)


@needs_snakemake
def test_papers_target_one_figure_runs_only_its_points(tmp_path: Path) -> None:
    """`papers` draws every comparison figure; naming one figure plans only its points."""
    conf = str(ROOT / "config" / "papers.yaml")
    camp = load_campaign(conf)
    assert len(camp.paper_figures) >= 4
    proc = snakemake(tmp_path, "papers", "-n", "--configfile", conf)  # targets first:
    out = proc.stdout + proc.stderr
    assert planned_outputs(out, "paper_figure") == {
        f"results/papers/figures/paper_{fig.name}.{ext}"
        for fig in camp.paper_figures
        for ext in ("png", "pdf")
    }
    target = "results/papers/figures/paper_kelling2017_fig3b.png"
    proc = snakemake(tmp_path, target, "-n", "--configfile", conf)  # --configfile takes 1+
    out = proc.stdout + proc.stderr
    runs = {o.split("/")[3] for o in planned_outputs(out, "simulate")}
    assert runs == set(camp.figure_points("kelling2017_fig3b"))
    assert all("_L1024_" in r for r in runs)
    # Fig. 3's points: L = 1024 to t = 10^4 (kelling2012 Fig. 1's snapshot point is L = 1024
    # to t = 1000, and its own figure's)
    fig3 = [pt for pt in camp.points if pt.get("L") == 1024 and pt.t_max == 10000]
    assert len(runs) == len(fig3) >= 4
    assert set(camp.figure_points("kelling2012_fig1")).isdisjoint(runs)
    assert "benchmark" not in job_counts(out)


@needs_snakemake
def test_lint_is_clean(tmp_path: Path) -> None:
    proc = snakemake(tmp_path, "--lint")
    assert "Congratulations, your workflow is in a good condition" in proc.stdout + proc.stderr


@needs_snakemake
def test_dry_run_default_campaign_from_elsewhere(tmp_path: Path) -> None:
    proc = snakemake(tmp_path, "-n", "--cores", "1", "--config", "samples=20")
    counts = job_counts(proc.stdout + proc.stderr)
    assert counts["simulate"] == 3 * 2 and counts["aggregate"] == 3  # 20 = 16 + 4


@needs_snakemake
def test_incremental_job_configs(tmp_path: Path) -> None:
    """Real simulate jobs, then a bigger campaign: only new/changed jobs are planned."""
    cfg = tiny()
    cfg["samples"] = 4
    conf = write_campaign(tmp_path / "c.yaml", cfg)
    snakemake(tmp_path, "--cores", "2", "--until", "simulate", "--configfile", str(conf))
    jobs = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.glob("results/**/*.yaml"))
    assert len(jobs) == 4 * 2
    camp = load_campaign(cfg)
    written = yaml.safe_load((tmp_path / jobs[0]).read_text())
    assert written == camp.job_config(written["point"], written["block"])

    # (`--list-changes params` is no help here: snakemake 9.27 lists every output with
    # recorded params, changed or not; the dry run's job list is what counts)
    def planned() -> set[str]:
        proc = snakemake(tmp_path, "-n", "--until", "simulate", "--configfile", str(conf))
        outs = planned_outputs(proc.stdout + proc.stderr, "simulate")
        return {o for o in outs if o.endswith(".yaml")}

    assert planned() == set()
    # one more block per point (blocks 0 and 1 unchanged), a new point, and a changed
    # parameter in the second entry (all its blocks' configs change)
    cfg["samples"] = 6
    cfg["points"].append({"dim": 1, "L": 128, "t_max": 10, "waiting_times": [2]})
    cfg["points"][1]["t_max"] = 30
    write_campaign(conf, cfg)
    expected = {f"results/tiny/jobs/kpz_d1_L{L}_p1_q0_sequential_cpu/b2.yaml" for L in (32, 64)} | {
        f"results/tiny/jobs/{point}/b{b}.yaml"
        for point in (
            "kpz_d1_L128_p1_q0_sequential_cpu",
            "kpz_d2_L4_p1_q0_sequential_cpu",
            "kpz_d2_L4_p0.5_q0_sequential_cpu",
        )
        for b in range(3)
    }
    assert planned() == expected


@needs_snakemake
@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("simcore.cli") is None, reason="engine (simcore.cli) not there yet"
)
def test_end_to_end_and_incremental(tmp_path: Path) -> None:
    """The whole pipeline on a tiny campaign with the real engine, then one more block."""
    cfg = {
        "campaign": "e2e",
        "seed": 1,
        "model": "kpz",
        "samples": 3,
        "samples_per_job": 2,
        "points": [
            {"dim": 1, "L": 32, "t_max": 20, "waiting_times": [2, 5]},
            {"dim": 2, "L": 8, "t_max": 10, "waiting_times": [2], "samples": 1},
        ],
        "paper_figures": [{"figure": "fig3b", "name": "c_s_1d", "select": {"dim": 1}}],
    }
    conf = write_campaign(tmp_path / "e2e.yaml", cfg)
    snakemake(tmp_path, "--cores", "2", "--configfile", str(conf))
    res = tmp_path / "results" / "e2e"
    point = "kpz_d1_L32_p1_q0_sequential_cpu"
    for name in ("W2", "beta_eff", "C_h", "C_s", "lambda_eff", "paper_c_s_1d"):
        assert (res / "figures" / f"{name}.png").stat().st_size > 0
    from PIL import Image

    with Image.open(res / "figures" / "paper_c_s_1d.png") as png:  # only the selected point
        keywords = png.text["points"]
    assert point in keywords and "kpz_d2" not in keywords
    with xr.open_dataset(res / "datasets" / f"{point}.nc") as ds:
        assert ds["sample"].values.tolist() == [0, 1, 2] and ds.attrs["n_runs"] == 2
        for key in ("point_config_hash", "simcore_version", "git_commit", "backend", "device"):
            assert key in ds.attrs, key
    # the report holds every figure with a caption of its own: its name, what it shows
    # (the model's spec), what ran and with which version
    proc = snakemake(tmp_path, "--configfile", str(conf), "--report", "report.html")
    assert "was never awaited" not in proc.stderr  # Snakemake's own warning, filtered
    captions = report_captions(tmp_path / "report.html")
    shows = registry.get("kpz").campaign_figures([])
    for name, text in shows.items():
        for ext in ("png", "pdf"):
            caption = captions[f"results/e2e/figures/{name}.{ext}"]
            assert caption.startswith(f"{name} (campaign e2e): {text}"), caption
            assert "3 samples to t = 20 MCS" in caption and "simcore " in caption
    assert len({captions[f"results/e2e/figures/{n}.png"] for n in shows}) == len(shows)
    paper = captions["results/e2e/figures/paper_c_s_1d.png"]
    assert paper.startswith("paper_c_s_1d (campaign e2e): kelling2017 Fig. 3(b)"), paper
    runs = {p.name: p.stat().st_mtime_ns for p in (res / "runs" / point).iterdir()}
    proc = snakemake(tmp_path, "-n", "--configfile", str(conf))
    assert "Nothing to be done" in proc.stdout + proc.stderr
    cfg["samples"] = 4
    write_campaign(conf, cfg)
    proc = snakemake(tmp_path, "-n", "--configfile", str(conf))
    out = proc.stdout + proc.stderr
    assert planned_outputs(out, "simulate") == {
        f"results/e2e/runs/{point}/b1.nc",
        f"results/e2e/jobs/{point}/b1.yaml",
    }
    assert runs == {p.name: p.stat().st_mtime_ns for p in (res / "runs" / point).iterdir()}


def test_no_model_is_a_default() -> None:
    """A campaign names its model: none is assumed, and an unknown one is named with the
    models that are registered."""
    cfg = {k: v for k, v in tiny().items() if k != "model"}
    assert "model: missing (required)" in _error(cfg)
    msg = _error(dict(tiny(), model="kpx"))
    assert "model: 'kpx': unknown model" in msg and "did you mean 'kpz'" in msg
    kmc = {"campaign": "a", "seed": 1, "model": "kmc2d", "t_max": 5,
           "points": [{"rates": "sos", "L": 24, "phi": 0}]}  # fmt: skip
    camp = load_campaign(kmc)
    assert camp.point_names == ["kmc2d_sos_L24_phi0_k21_bkl_cpu"]  # the cpu default: bkl
    assert "to t = 5 1/k2)" in camp.summary()  # the rate model's time unit


def test_keys_that_do_not_apply_to_a_point_are_left_out() -> None:
    """A key of one scheme applies to that scheme's points of an entry only; given in an
    entry none of whose points it applies to, it is an error."""
    camp = load_campaign({
        "campaign": "a", "seed": 1, "model": "kmc2d", "t_max": 5,
        "points": [{"rates": "sos", "L": 24, "phi": 0, "scheme": ["tiles", "serial"],
                    "tile": [4, 8]}]})  # fmt: skip
    assert camp.point_names == [
        "kmc2d_sos_L24_phi0_k21_tiles4_cpu",
        "kmc2d_sos_L24_phi0_k21_tiles8_cpu",
        "kmc2d_sos_L24_phi0_k21_serial_cpu",
    ]
    assert "tile" not in camp.job_config("kmc2d_sos_L24_phi0_k21_serial_cpu", 0)
    bad = copy.deepcopy(tiny())
    bad["points"][1]["tc"] = [2, 1]
    assert "points[1].tc: [2, 1]: is a key of the DD schemes, which no point" in _error(bad)
    bad = copy.deepcopy(tiny())
    bad["points"][1]["t_async"] = 0.5
    bad["points"][1]["scheme"] = ["sequential", "DTrDT"]
    bad["points"][1]["domain"] = [8, 8]
    bad["points"][1]["L"] = 32
    names = load_campaign(bad).point_names
    assert "kpz_d2_L32_p1_q0_sequential_cpu" in names
    assert "kpz_d2_L32_p1_q0_DTrDT_cpu_D8x8_tc1-1_ta0.5" in names
