"""Input that users write and simcore used to misread: numbers in scientific notation,
keys given twice, a campaign passed to `simcore run`, wall limits that are no limits, and
the schema path the shipped config files name.

Each test runs the real command (or the real reading function) on files a user could
have written, and checks what the user sees: the value read, or one line naming the file
or key and value with exit status 2 and nothing written."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import xarray as xr
import yaml
from conftest import run_simcore

from simcore.campaign import CampaignError, load_campaign
from simcore.config import load_run_config, load_yaml, read_yaml_mapping
from simcore.walltime import STOP_AT_ENV

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = shutil.which("snakemake")

#: A one-point campaign as a user writes it: p and a job_resources rate in scientific
#: notation, which YAML 1.1 (PyYAML, Snakemake's reader) reads as strings.
SCIENTIFIC_CAMPAIGN = """\
campaign: sci
seed: 3
model: kpz
samples: 2
samples_per_job: 2
job_resources:
  updates_per_second: 1e7
points:
  - dim: 1
    L: 32
    p: 1e-1
    q: 0
    t_max: 10
"""
SCIENTIFIC_POINT = "kpz_d1_L32_p0.1_q0_sequential_cpu"


def _snakemake(workdir: Path, *args: str | Path) -> subprocess.CompletedProcess:
    """``snakemake ARGS`` on the repository's Snakefile, in ``workdir``."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", ROOT / "Snakefile",
           "--directory", workdir, *args]  # fmt: skip
    return subprocess.run(
        list(map(str, cmd)), cwd=workdir, capture_output=True, text=True, timeout=300
    )


def _one_line(proc: subprocess.CompletedProcess) -> str:
    """The one line a refused command printed (asserting exit status 2, no traceback and
    nothing on stdout)."""
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


# ----------------------------------------------------------------- scientific notation


def test_run_config_reads_scientific_notation(tmp_path: Path) -> None:
    """`p: 1e-1` and the other exponent forms YAML 1.1 leaves as strings are numbers in a
    run config; the YAML 1.1 floats and the ints read as before, and a word stays a word."""
    text = "a: 1e-1\nb: 1e7\nc: 1.0e7\nd: -2.5E-3\ne: .5e1\nf: 1.0e+7\ng: 0.25\nh: 16\ni: 1e\n"
    assert load_yaml(text) == {
        "a": 0.1, "b": 1e7, "c": 1e7, "d": -2.5e-3, "e": 5.0, "f": 1e7, "g": 0.25, "h": 16,
        "i": "1e",
    }  # fmt: skip
    assert yaml.safe_load("a: 1e-1")["a"] == "1e-1"  # what PyYAML alone gives
    path = tmp_path / "job.yaml"
    path.write_text(
        "model: kpz\ndim: 1\nL: 32\np: 1e-1\nq: 0\nsamples: 2\nseed: 1\nt_max: 5\n"
        "waiting_times: [2]\n"
    )
    assert load_run_config(path)["p"] == 0.1
    out = tmp_path / "run.nc"
    res = run_simcore("run", path, "--out", out, "--quiet")
    assert res.returncode == 0, res.stderr
    with xr.open_dataset(out) as ds:
        assert ds.attrs["p"] == 0.1


def test_campaign_numbers_left_as_strings_are_read_as_numbers() -> None:
    """The dict Snakemake hands the workflow (its YAML 1.1 reading of the file) holds
    '1e-1' and '1e7' as strings: load_campaign reads them as the numbers, where the schema
    or the model's keys want a number, in entries, campaign-wide defaults, job_resources
    and selections; a string where a string belongs stays one, and a word where a number
    belongs is still refused by its value."""
    parsed = yaml.safe_load(SCIENTIFIC_CAMPAIGN)
    assert parsed["points"][0]["p"] == "1e-1"
    assert parsed["job_resources"]["updates_per_second"] == "1e7"
    camp = load_campaign(parsed)
    assert camp.point_names == [SCIENTIFIC_POINT]
    assert camp.point(SCIENTIFIC_POINT).settings["p"] == 0.1
    assert camp.resources["updates_per_second"] == 1e7

    wide = {**parsed, "campaign": "1e5", "q": "1e-1", "max_wall": "3e2",
            "points": [{"dim": 1, "L": 32, "p": ["5e-1", "1e-1"], "t_max": 10}],
            "paper_figures": [{"figure": "fig6", "select": {"p": "5e-1"}}]}  # fmt: skip
    camp = load_campaign(wide)
    assert camp.name == "1e5" and camp.max_wall == 300.0
    assert [camp.point(n).settings["p"] for n in camp.point_names] == [0.5, 0.1]
    assert all(camp.point(n).settings["q"] == 0.1 for n in camp.point_names)
    assert camp.figure_points("fig6") == [camp.point_names[0]]

    with pytest.raises(CampaignError, match=r"points\[0\]\.p: 'lots': must be a number"):
        load_campaign({**parsed, "points": [{"dim": 1, "L": 32, "p": "lots", "t_max": 10}]})


@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed")
def test_campaign_in_scientific_notation_through_snakemake(tmp_path: Path) -> None:
    """`snakemake -n --configfile` of a campaign with `p: 1e-1` and `updates_per_second:
    1e7` plans its point with p = 0.1 (Snakemake read the file as YAML 1.1), and `simcore
    status --config` (simcore's reader) plans the same point."""
    (tmp_path / "sci.yaml").write_text(SCIENTIFIC_CAMPAIGN)
    proc = _snakemake(tmp_path, "-n", "--configfile", "sci.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"results/sci/runs/{SCIENTIFIC_POINT}/b0.nc" in proc.stdout + proc.stderr
    (tmp_path / "results" / "sci" / "runs").mkdir(parents=True)
    status = run_simcore("status", "results/sci", "--config", "sci.yaml", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    assert status.stdout.splitlines()[2].split()[:3] == [SCIENTIFIC_POINT, "0/1", "0/2"]


# ------------------------------------------------------------------------ duplicate keys


def test_duplicate_key_in_a_run_config_is_refused(tmp_path: Path) -> None:
    """`L: 64` then `L: 128` in a run config: one line naming the file, the key and both
    lines, exit status 2, nothing written (before, L = 128 ran silently)."""
    path = tmp_path / "job.yaml"
    path.write_text("model: kpz\ndim: 1\nL: 64\nL: 128\nsamples: 1\nseed: 1\nt_max: 5\n")
    before = set(tmp_path.iterdir())
    line = _one_line(run_simcore("run", path, "--out", tmp_path / "run.nc"))
    assert line == (
        f"simcore: error: {path}: key 'L' is given twice, at lines 3 and 4 (YAML would "
        "silently keep the last): keep one"
    )
    assert set(tmp_path.iterdir()) == before


def test_duplicate_keys_are_found_at_any_depth_and_merges_are_not_duplicates(
    tmp_path: Path,
) -> None:
    """A key named three times inside a list entry is named by its path and lines; keys
    merged in with `<<` and then overridden are no duplicates (YAML's merge key)."""
    path = tmp_path / "c.yaml"
    path.write_text("points:\n  - L: 1\n  - L: 2\n    p: 1\n    L: 3\n    L: 4\n")
    with pytest.raises(Exception, match=r"key 'points\[1\]\.L' is given 3 times, at lines 3, 5 "
                       r"and 6"):  # fmt: skip
        read_yaml_mapping(path)
    merged = load_yaml("base: &b {L: 32, p: 1}\npoint:\n  <<: *b\n  L: 64\n")
    assert merged["point"] == {"L": 64, "p": 1}


@pytest.mark.skipif(SNAKEMAKE is None, reason="snakemake not installed")
def test_duplicate_key_in_a_campaign_through_snakemake(tmp_path: Path) -> None:
    """Snakemake's own reader keeps the last of two keys: the workflow checks the campaign
    files itself, so `snakemake -n` stops with one line naming the file, the key and its
    lines, exit status 2, nothing written; `simcore status --config` says the same."""
    (tmp_path / "dup.yaml").write_text(
        "campaign: dup\nseed: 1\nmodel: kpz\npoints:\n  - dim: 1\n    L: 64\n    L: 128\n"
        "    t_max: 10\n"
    )
    line = _one_line(_snakemake(tmp_path, "-n", "--configfile", tmp_path / "dup.yaml"))
    assert line == (
        "simcore: error: campaign config dup.yaml: key 'points[0].L' is given twice, at "
        "lines 6 and 7 (YAML would silently keep the last): keep one"
    )
    assert not (tmp_path / "results").exists()
    (tmp_path / "results" / "dup" / "runs").mkdir(parents=True)
    status = run_simcore("status", "results/dup", "--config", "dup.yaml", cwd=tmp_path)
    assert _one_line(status) == line


# ------------------------------------------------------------- a campaign to simcore run


def test_run_of_a_campaign_file_says_how_to_run_it(tmp_path: Path) -> None:
    """`simcore run config/config.yaml` says in one line that it is a campaign file and
    gives the snakemake command for it (before: a 'did you mean' about samples_per_job),
    exit status 2, nothing written."""
    path = tmp_path / "config.yaml"
    shutil.copy(ROOT / "config" / "config.yaml", path)
    line = _one_line(run_simcore("run", path, "--out", tmp_path / "run.nc", cwd=tmp_path))
    assert line.startswith(f"simcore: error: {path}: is a campaign file, not a run config")
    assert f"`snakemake --workflow-profile workflow/profiles/default --configfile {path}`" in line
    assert "did you mean" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml"]


# -------------------------------------------------------------------------- wall limits

#: option(s) -> (what the line names, the value it shows)
BAD_WALLS = {
    ("--max-wall", "-5"): ("--max-wall", "-5.0", "must be a finite number of seconds >= 0"),
    ("--max-wall", "nan"): ("--max-wall", "nan", "must be a finite number of seconds >= 0"),
    ("--max-wall", "inf"): ("--max-wall", "inf", "must be a finite number of seconds >= 0"),
    ("--stop-at", "nan"): ("--stop-at", "nan", "must be a time in seconds since the epoch"),
    ("--stop-at", "-1"): ("--stop-at", "-1.0", "must be a time in seconds since the epoch"),
    ("--stop-at", "3600"): ("--stop-at", "3600.0", "for seconds from now use --max-wall"),
    (STOP_AT_ENV, "inf"): (STOP_AT_ENV, "inf", "must be a time in seconds since the epoch"),
}


@pytest.mark.parametrize("given", sorted(BAD_WALLS), ids="=".join)
def test_a_wall_limit_that_is_no_limit_is_refused(
    tmp_path: Path, write_config, given: tuple[str, str]
) -> None:
    """A negative, NaN or infinite --max-wall, and a --stop-at (or $SIMCORE_STOP_AT) that
    is not finite or lies before 2000 (a duration given where a time belongs): one line
    naming the option and its value, exit status 2, nothing written."""
    import os

    from conftest import small_config

    key, value, reason = BAD_WALLS[given]
    job = write_config(small_config())
    env = dict(os.environ)
    env.pop(STOP_AT_ENV, None)
    args = ["run", job, "--out", tmp_path / "run.nc"]
    if given[0] == STOP_AT_ENV:
        env[STOP_AT_ENV] = given[1]
    else:
        args += [f"{given[0]}={given[1]}"]
    line = _one_line(run_simcore(*args, env=env))
    assert line.startswith(f"simcore: error: config key '{key}' = {value}: "), line
    assert reason in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.yaml"]


def test_a_campaign_max_wall_must_be_finite() -> None:
    """A campaign's max_wall of .nan or .inf passes the schema's minimum but is refused
    in one line before any job (each job would otherwise refuse its stop time)."""
    camp = yaml.safe_load(SCIENTIFIC_CAMPAIGN)
    for value in (math.nan, math.inf):
        with pytest.raises(CampaignError, match=r"max_wall: (nan|inf): must be a finite number"):
            load_campaign({**camp, "max_wall": value})
    assert load_campaign({**camp, "max_wall": 0}).max_wall == 0.0


# ---------------------------------------------------------------------- schema pointers


def test_schema_paths_named_in_the_shipped_config_files_exist() -> None:
    """Every schema path that a shipped config file (config/*.yaml, the workflow
    profiles) names in its comments exists in the repository; config/config.yaml, the
    template users copy, names the campaign schema."""
    files = sorted([*ROOT.glob("config/*.yaml"), *ROOT.glob("workflow/profiles/*/*.yaml")])
    named = {
        (f.relative_to(ROOT), m)
        for f in files
        for m in re.findall(r"[\w./-]*schema[\w.-]*\.(?:yaml|yml|json)", f.read_text())
    }
    missing = [(str(f), path) for f, path in named if not (ROOT / path).is_file()]
    assert missing == []
    assert (Path("config/config.yaml"), "simcore/campaign/config.schema.yaml") in named
