"""analysis.aggregate on small synthetic run files in the ARCHITECTURE.md layout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml

from analysis.aggregate import AggregationError, aggregate, main

ROOT = Path(__file__).resolve().parents[1]
TIMES = np.array([0, 1, 2, 3, 5, 8, 10, 13, 20], dtype=np.int64)
WAITING = np.array([2, 5], dtype=np.int64)


def make_run(
    path: Path,
    block: int,
    samples_per_job: int = 3,
    n_samples: int | None = None,
    *,
    sample_offset: int | None = None,
    times: np.ndarray = TIMES,
    **attr_overrides: object,
) -> Path:
    """Write one run file like `simcore run` does (dims sample, t, s; documented attrs)."""
    n = samples_per_job if n_samples is None else n_samples
    offset = block * samples_per_job if sample_offset is None else sample_offset
    sample = np.arange(offset, offset + n, dtype=np.int64)
    rng = np.random.default_rng(1000 + block)
    w2 = rng.random((n, times.size)) + sample[:, None]  # sample identifiable by value
    c = rng.random((n, WAITING.size, times.size))
    c[:, times[None, :] < WAITING[:, None]] = np.nan
    c_s = np.where(np.isnan(c), np.nan, 0.25 * c)
    config = {"model": "kpz", "block": block, "sample_offset": offset}
    attrs = {
        "Conventions": "CF-1.11",
        "title": "simcore run",
        "model": "kpz",
        "dim": 1,
        "L": 64,
        "p": 1.0,
        "q": 0.0,
        "scheme": "sequential",
        "backend": "cpu",
        "device": "cpu",
        "seed": np.uint64(2**63 + 12345678901234567 + block),
        "t_max": int(times[-1]),
        "waiting_times": WAITING,
        "campaign": "test",
        "point": "kpz_d1_L64_p1_q0_sequential_cpu",
        "block": block,
        "simcore_version": "0.1.0",
        "git_commit": "abc",
        "hostname": f"node{block}",
        "created": f"2025-01-0{block + 1}T00:00:00Z",
        "wall_seconds": 1.5 + block,
        "config": yaml.safe_dump(config),
        "point_config_keys": "model dim L p q scheme backend waiting_times t_max campaign point",
    }
    attrs.update(attr_overrides)
    ds = xr.Dataset(
        {
            "W2": (("sample", "t"), w2, {"long_name": "squared width", "units": "1"}),
            "mean_h": (("sample", "t"), w2 / 2, {"long_name": "mean height", "units": "1"}),
            "C_h": (("sample", "s", "t"), c, {"long_name": "height autocorr", "units": "1"}),
            "C_s": (("sample", "s", "t"), c_s, {"long_name": "slope autocorr", "units": "1"}),
        },
        coords={
            "sample": ("sample", sample, {"long_name": "global sample index"}),
            "t": ("t", times, {"units": "1", "model_units": "MCS", "long_name": "time"}),
            "s": ("s", WAITING, {"units": "1", "model_units": "MCS", "long_name": "waiting time"}),
        },
        attrs=attrs,
    )
    ds.to_netcdf(path, engine="netcdf4")
    return path


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "analysis.aggregate", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_concatenates_in_sample_order(tmp_path: Path) -> None:
    # blocks given out of order, last block holds a remainder of 2 samples
    paths = [
        make_run(tmp_path / "b2.nc", 2, n_samples=2),
        make_run(tmp_path / "b0.nc", 0),
        make_run(tmp_path / "b1.nc", 1),
    ]
    out = tmp_path / "out" / "point.nc"
    assert main(["--out", str(out), *map(str, paths)]) == 0
    with xr.open_dataset(out, engine="netcdf4") as ds:
        assert ds["sample"].values.tolist() == list(range(8))
        assert ds["W2"].dims == ("sample", "t")
        assert ds["C_h"].dims == ("sample", "s", "t")
        # values travel with their sample index
        with xr.open_dataset(tmp_path / "b1.nc", engine="netcdf4") as b1:
            np.testing.assert_array_equal(ds["W2"].sel(sample=[3, 4, 5]), b1["W2"])
            np.testing.assert_array_equal(ds["C_h"].sel(sample=[3, 4, 5]), b1["C_h"])
        assert np.isnan(ds["C_h"].sel(s=5, t=3)).all()
        assert ds["t"].values.tolist() == TIMES.tolist()
        assert ds["t"].attrs["units"] == "1" and ds["t"].attrs["model_units"] == "MCS"
        assert all("_FillValue" not in ds[c].encoding for c in ds.coords)  # CF: coordinates
        assert ds["W2"].attrs == {"long_name": "squared width", "units": "1"}
        a = ds.attrs
        assert a["n_runs"] == 3 and a["n_samples"] == 8
        # numbers stay numbers: the blocks and the 64-bit seeds of the runs, in sample order
        assert a["source_blocks"].tolist() == [0, 1, 2]
        assert a["source_seeds"].dtype == np.uint64
        assert a["source_seeds"].tolist() == [2**63 + 12345678901234567 + b for b in range(3)]
        assert list(np.atleast_1d(a["source_files"])) == ["b0.nc", "b1.nc", "b2.nc"]
        assert a["wall_seconds_total"] == pytest.approx(1.5 + 2.5 + 3.5)
        assert a["point"] == "kpz_d1_L64_p1_q0_sequential_cpu" and a["p"] == 1.0
        assert a["simcore_version"] == "0.1.0"
        assert "created" in a and "history" in a
        # per-run attributes are not presented as if common
        for key in ("seed", "block", "hostname", "config", "wall_seconds"):
            assert key not in a
    assert sorted(p.name for p in out.parent.iterdir()) == ["point.nc"]  # no temp left


def test_single_run(tmp_path: Path) -> None:
    ds = aggregate([make_run(tmp_path / "b0.nc", 0)])
    assert ds.sizes["sample"] == 3 and ds.attrs["n_runs"] == 1
    assert "seed" not in ds.attrs and "hostname" in ds.attrs


@pytest.mark.parametrize(("attr", "value"), [("p", 0.5), ("scheme", "checkerboard")])
def test_refuses_differing_attribute(tmp_path: Path, attr: str, value: object) -> None:
    a = make_run(tmp_path / "b0.nc", 0)
    b = make_run(tmp_path / "b1.nc", 1, **{attr: value})
    out = tmp_path / "out.nc"
    proc = run_cli("--out", out, a, b)
    assert proc.returncode == 2, proc.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [a, b] or sorted(tmp_path.iterdir()) == sorted([a, b])
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1
    assert repr(attr) in err and str(value) in err
    assert "b0.nc" in err and "b1.nc" in err


def test_refuses_differing_waiting_times_and_times(tmp_path: Path) -> None:
    a = make_run(tmp_path / "b0.nc", 0)
    b = make_run(tmp_path / "b1.nc", 1, waiting_times=np.array([2, 6]))
    with pytest.raises(AggregationError, match="'waiting_times'"):
        aggregate([a, b])
    c = make_run(tmp_path / "b2.nc", 2, times=np.array([0, 1, 2, 4, 5, 8, 10, 13, 20]))
    with pytest.raises(AggregationError, match="coordinate 't' differs"):
        aggregate([a, c])


def test_refuses_repeated_sample(tmp_path: Path) -> None:
    a = make_run(tmp_path / "b0.nc", 0)
    b = make_run(tmp_path / "b1.nc", 1, sample_offset=2)  # samples 2, 3, 4 overlap 2
    with pytest.raises(AggregationError, match="sample index 2 repeats"):
        aggregate([a, b])
    out = tmp_path / "out.nc"
    proc = run_cli("--out", out, a, b)
    assert proc.returncode == 2 and "sample index 2" in proc.stderr
    assert not out.exists()
    # the same file twice is a repeat too
    with pytest.raises(AggregationError, match="repeats"):
        aggregate([a, a])


def test_missing_file_is_refused(tmp_path: Path) -> None:
    proc = run_cli("--out", tmp_path / "out.nc", tmp_path / "nope.nc")
    assert proc.returncode == 2 and "nope.nc" in proc.stderr
    assert not (tmp_path / "out.nc").exists()


def test_help() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0 and "--out" in proc.stdout


def test_runs_of_several_commits_keep_each_commit(tmp_path: Path) -> None:
    """A point extended at a later commit: ``git_commit`` is no longer common, and each
    run's commit stays in ``source_git_commits``, in sample order."""
    paths = [make_run(tmp_path / f"b{b}.nc", b, git_commit=c)
             for b, c in [(2, "def"), (0, "abc"), (1, "def")]]  # fmt: skip
    ds = aggregate(paths)
    assert "git_commit" not in ds.attrs
    assert list(ds.attrs["source_git_commits"]) == ["abc", "def", "def"]
    assert list(aggregate(paths[1:2]).attrs["source_git_commits"]) == ["abc"]


def test_staged_aggregation_equals_single(tmp_path: Path) -> None:
    """Stages of runs, then the stages: the same data and the same source lists."""
    paths = [make_run(tmp_path / f"b{b}.nc", b) for b in range(5)]
    single = aggregate(paths)
    stage_a, stage_b = tmp_path / "s0.nc", tmp_path / "s1.nc"
    assert main(["--out", str(stage_a), *map(str, paths[:3])]) == 0
    assert main(["--out", str(stage_b), *map(str, paths[3:])]) == 0
    staged = aggregate([stage_b, stage_a])
    for var in single.data_vars:
        np.testing.assert_array_equal(single[var].values, staged[var].values)
    for key in (
        "n_runs",
        "n_samples",
        "source_files",
        "source_blocks",
        "source_seeds",
        "source_git_commits",
    ):
        assert list(np.atleast_1d(single.attrs[key])) == list(np.atleast_1d(staged.attrs[key]))
