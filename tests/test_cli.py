"""The simcore command: help, bad input (one line, exit 2, nothing written), outputs."""

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
from conftest import run_simcore, small_config


def test_entry_point_help():
    """The installed console script answers --help for every subcommand."""
    exe = shutil.which("simcore")
    assert exe, "the simcore console script is not installed"
    for args in ([], ["run"], ["bench"]):
        out = subprocess.run([exe, *args, "--help"], capture_output=True, text=True)
        assert out.returncode == 0 and "usage: simcore" in out.stdout


BAD = [
    ({"colour": "blue"}, "colour", "'blue'"),
    ({"L": 100}, "L", "100"),
    ({"L": 2}, "L", "2"),
    ({"p": 0.8, "q": 0.4}, "q", "0.4"),
    ({"p": -0.1}, "p", "-0.1"),
    ({"t_max": 0}, "t_max", "0"),
    ({"t_max": -5}, "t_max", "-5"),
    ({"waiting_times": [5, 100]}, "waiting_times", "100"),
    ({"samples": 0}, "samples", "0"),
    ({"dim": 3}, "dim", "3"),
    ({"model": "ising"}, "model", "'ising'"),
]


@pytest.mark.parametrize("change,key,value", BAD)
def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, write_config, change, key, value):
    cfg = small_config(**change)
    out = tmp_path / "run.nc"
    res = run_simcore("run", write_config(cfg), "--out", out, "--quiet")
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert f"'{key}'" in lines[0] and value in lines[0]
    assert list(tmp_path.iterdir()) == [tmp_path / "job.yaml"]


def test_missing_key(tmp_path, write_config):
    cfg = small_config()
    del cfg["seed"]
    res = run_simcore("run", write_config(cfg), "--out", tmp_path / "r.nc")
    assert res.returncode == 2 and "'seed'" in res.stderr and "missing" in res.stderr


def test_unwritable_output(tmp_path, write_config):
    """A folder that does not exist (or a read-only one) fails before any work."""
    res = run_simcore("run", write_config(small_config()), "--out", tmp_path / "nope" / "run.nc")
    assert res.returncode == 2
    assert len(res.stderr.strip().splitlines()) == 1 and "--out" in res.stderr
    assert not (tmp_path / "nope").exists()


def test_unreadable_config(tmp_path):
    res = run_simcore("run", tmp_path / "missing.yaml", "--out", tmp_path / "r.nc")
    assert res.returncode == 2 and "missing.yaml" in res.stderr
    assert not (tmp_path / "r.nc").exists()


def test_run_writes_cf_dataset_with_provenance(tmp_path, write_config):
    cfg = small_config(sample_offset=6, campaign="c1", point="pt", block=2)
    out = tmp_path / "run.nc"
    res = run_simcore("run", write_config(cfg), "--out", out)
    assert res.returncode == 0, res.stderr
    assert "100%" in res.stderr  # progress lines when not on a terminal
    with xr.open_dataset(out) as ds:
        assert ds.W2.dims == ("sample", "t") and ds.C_h.dims == ("sample", "s", "t")
        assert list(ds.sample.values) == [6, 7, 8]
        assert ds.t.attrs["units"] == "1" and ds.t.attrs["model_units"] == "MCS"
        assert ds.t.values[0] == 0
        assert ds.t.values[-1] == 60 and set(ds.s.values) <= set(ds.t.values)
        for v in ds.data_vars.values():
            assert v.attrs["units"] and v.attrs["long_name"]
        for key in (
            "simcore_version",
            "git_commit",
            "config",
            "seed",
            "backend",
            "hostname",
            "wall_seconds",
            "created",
            "device",
        ):
            assert key in ds.attrs
        assert ds.attrs["seed"] == 2024 and ds.attrs["seed"].dtype == np.uint64
        assert ds.attrs["point"] == "pt" and ds.attrs["L"] == 16 and ds.attrs["p"] == 1.0
        assert not {"tc", "domain", "t_async", "border"} & set(ds.attrs)  # DD keys only
        assert "scheme=sequential" in ds.attrs["title"] and "simcore" in ds.attrs["history"]
        assert np.all(ds.W2.sel(t=0) == 0.25)
        assert np.isnan(ds.C_h.sel(s=20, t=5)).all()
        np.testing.assert_array_equal(ds.C_h.sel(s=20, t=20), ds.W2.sel(t=20))
    assert not list(tmp_path.glob("*.ckpt"))


def test_status_counts_runs_samples_and_wall_time(tmp_path, write_config) -> None:
    """`simcore status` reads finished run files and the started jobs' configs."""
    from conftest import run_simcore, small_config

    res_dir = tmp_path / "results" / "c"
    point = "kpz_d2_L16_p1_q0_sequential_cpu"
    (res_dir / "runs" / point).mkdir(parents=True)
    (res_dir / "jobs" / point).mkdir(parents=True)
    for b in range(2):
        cfg = small_config(samples=2, sample_offset=2 * b, t_max=5, waiting_times=[2])
        (res_dir / "jobs" / point / f"b{b}.yaml").write_text(yaml.safe_dump(cfg))
    job0 = res_dir / "jobs" / point / "b0.yaml"
    out = run_simcore("run", str(job0), "--out", str(res_dir / "runs" / point / "b0.nc"), "--quiet")
    assert out.returncode == 0, out.stderr
    res = run_simcore("status", str(res_dir))
    assert res.returncode == 0, res.stderr
    row = next(line for line in res.stdout.splitlines() if line.startswith(point))
    assert row.split()[1:3] == ["1/2", "2/4"]
    bad = run_simcore("status", str(tmp_path))
    assert bad.returncode == 2 and "results" in bad.stderr


def _run_campaign(root, cfg: dict) -> None:
    """Every job of campaign ``cfg`` as the simulate rule runs it: its job file, then
    `simcore run JOB --out RUN` (in process)."""
    from simcore.campaign import job_config_yaml, load_campaign
    from simcore.config import load_run_config
    from simcore.runner import EXIT_OK, run_job

    camp = load_campaign(cfg)
    for point, block in camp.jobs():
        job = root / "results" / camp.name / "jobs" / point / f"b{block}.yaml"
        job.parent.mkdir(parents=True, exist_ok=True)
        job.write_text(job_config_yaml(camp.job_config(point, block)))
        run = root / "results" / camp.name / "runs" / point / f"b{block}.nc"
        run.parent.mkdir(parents=True, exist_ok=True)
        assert run_job(load_run_config(job), run, progress=False) == EXIT_OK


def test_status_counts_against_the_campaign_in_force(tmp_path) -> None:
    """`simcore status --config` after the campaign file changed: done is counted against
    the plan in force (never more than planned), and each kind of run file that does not
    fit the plan is one warning line (exit status 0)."""
    camp = {"campaign": "c", "seed": 5, "model": "kpz", "t_max": 5, "samples": 4,
            "samples_per_job": 2, "points": [{"dim": 1, "L": [32, 64]}]}  # fmt: skip
    _run_campaign(tmp_path, camp)
    p32, p64 = "kpz_d1_L32_p1_q0_sequential_cpu", "kpz_d1_L64_p1_q0_sequential_cpu"

    def status(**changes) -> tuple[dict[str, list[str]], list[str]]:
        conf = tmp_path / "campaign.yaml"
        conf.write_text(yaml.safe_dump({**camp, **changes}))
        res = run_simcore("status", "results/c", "--config", conf, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        table = [line.split() for line in res.stdout.splitlines()[2:] if line[:1] != "-"]
        rows = {words[0]: words[1:3] for words in table}
        warnings = res.stderr.splitlines()
        assert all(w.startswith("simcore: warning: ") for w in warnings), warnings
        return rows, warnings

    rows, warnings = status()
    assert rows == {p32: ["2/2", "4/4"], p64: ["2/2", "4/4"], "total": ["4/4", "8/8"]}
    assert warnings == []
    rows, warnings = status(samples=2)  # lowered: block 1 of each point is not planned
    assert rows["total"] == ["2/2", "4/4"]
    assert len(warnings) == 1
    assert (
        "2 run files (4 samples) beyond the blocks the campaign plans for 2 points" in (warnings[0])
    )
    assert "more samples done than planned" in warnings[0]
    rows, warnings = status(samples=6)  # raised: the runs so far are still the plan's
    assert rows[p32] == ["2/3", "4/6"] and rows["total"] == ["4/6", "8/12"]
    assert warnings == []
    rows, warnings = status(samples=3)  # the last block planned with 1 sample, run with 2
    assert rows[p32] == ["1/2", "2/3"]
    assert (
        len(warnings) == 1
        and "2 run files ran other job configs than the campaign" in (warnings[0])
    )
    assert (
        f"(different samples), not counted; e.g. runs/{p32}/b1.nc: samples 2 (planned 1)"
        in (warnings[0])
    )
    rows, warnings = status(t_max=6)
    assert rows["total"] == ["0/4", "0/8"]
    assert len(warnings) == 1 and "4 run files" in warnings[0]
    assert "(different t_max)" in warnings[0] and "t_max 5 (planned 6)" in warnings[0]
    rows, warnings = status(points=[{"dim": 1, "L": 32}])
    assert set(rows) == {p32, "total"} and rows["total"] == ["2/2", "4/4"]
    assert warnings == [
        f"simcore: warning: 2 run files of 1 point not in the campaign, not counted: {p64}"
    ]
    rows, warnings = status(campaign="d")
    assert rows["total"] == ["0/4", "0/8"]
    assert len(warnings) == 2
    assert "the campaign file is campaign 'd', the results folder is 'c'" in warnings[0]
    assert "(different campaign, seed)" in warnings[1]


def test_version_prints_the_version_and_commit() -> None:
    """`simcore --version` prints the version the run files record (and the git commit of
    the source tree where there is one), exit status 0, needing no subcommand."""
    from simcore.io.provenance import git_commit, simcore_version

    res = run_simcore("--version")
    assert res.returncode == 0, res.stderr
    commit = git_commit()
    expected = f"simcore {simcore_version()}" + (f" (git commit {commit})" if commit else "")
    assert res.stdout == expected + "\n"
    assert re.fullmatch(r"simcore \S+( \(git commit [0-9a-f]{40}(-dirty)?\))?\n", res.stdout)


def _spans(line: str) -> list[tuple[int, int]]:
    """Start and end of each cell of a table line: runs of text separated by two or more
    blanks (a header may hold one blank, as "wall time")."""
    return [m.span() for m in re.finditer(r"\S+(?: \S+)*", line)]


def test_status_headers_sit_over_their_columns(tmp_path: Path) -> None:
    """`simcore status`: the dashes under each header mark its column; every header and
    every value lies inside its column's span and is aligned as the column is (point names
    to the left, the counts and times to the right), whatever the length of the point
    names (one much longer than the others here) and of the counts."""
    res_dir = tmp_path / "results" / "c"
    points = {"kpz_d2_L16_p1_q0_sequential_cpu": 1,
              "kpz_d2_L16_p1_q0_sequential_cpu_" + "with_a_very_long_name_" * 4: 12}  # fmt: skip
    for point, blocks in points.items():
        for b in range(blocks):
            job = res_dir / "jobs" / point / f"b{b}.yaml"
            job.parent.mkdir(parents=True, exist_ok=True)
            job.write_text(yaml.safe_dump(small_config(samples=2, sample_offset=2 * b)))
    res = run_simcore("status", res_dir)
    assert res.returncode == 0, res.stderr
    head, rule, *rows = res.stdout.splitlines()
    assert rows[-2] == rule
    rows = rows[:-2] + rows[-1:]
    assert [row.split()[0] for row in rows] == [*sorted(points), "total"]
    columns = _spans(rule)  # the span of each column
    assert len(columns) == 4 and set(rule) == {"-", " "}
    for line in [head, *rows]:
        cells = _spans(line)
        assert len(cells) == 4, line
        for k, ((a, b), (start, end)) in enumerate(zip(cells, columns, strict=True)):
            assert start <= a and b <= end, (line, k)  # inside its column
            assert (a == start) if k == 0 else (b == end), (line, k)  # aligned as the column
    assert [head[a:b] for a, b in _spans(head)] == ["point", "runs", "samples", "wall time"]
    assert rows[1].split()[1:3] == ["0/12", "0/24"] and rows[2].split()[1:3] == ["0/13", "0/26"]
