"""The simcore command: help, bad input (one line, exit 2, nothing written), outputs."""

import shutil
import subprocess

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
