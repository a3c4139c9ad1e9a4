"""EA3D through the shared path: run configs, campaigns, simcore run, analysis, Snakemake."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
from test_kpz_gpu import needs_gpu

from analysis.ea3d import analyze as analyze_ea3d
from analysis.ea3d import word_groups
from simcore.campaign import load_campaign
from simcore.config import ConfigError, validate_run_config
from simcore.models.ea3d.lattice import LAYOUT_ID, init_spins
from simcore.models.ea3d.observables import overlaps
from simcore.runner import run_job

ROOT = Path(__file__).resolve().parents[1]


def job(**over) -> dict:
    cfg = {"model": "ea3d", "L": 4, "T": 1.0, "samples": 128, "seed": 9, "t_max": 30}
    cfg.update(over)
    return cfg


@pytest.mark.parametrize(
    ("over", "key"),
    [({"L": 5}, "L"), ({"T": 0}, "T"), ({"samples": 100}, "samples"),
     ({"layout": "bitwise", "L": 6}, "layout"), ({"prng": "xorwow"}, "prng"),
     ({"p": 0.5}, "p"), ({"sample_offset": 10}, "sample_offset")],
)  # fmt: skip
def test_bad_ea3d_configs_name_their_key(over: dict, key: str) -> None:
    with pytest.raises(ConfigError) as err:
        validate_run_config(job(**over))
    assert err.value.key == key


def test_campaign_points_and_jobs() -> None:
    camp = load_campaign(
        {"campaign": "sg", "seed": 1, "model": "ea3d", "samples": 192, "samples_per_job": 128,
         "t_max": 50, "points": [{"L": [4, 6], "T": 1.2, "layout": ["standard", "sliced"]}]}
    )  # fmt: skip
    assert camp.point_names[0] == "ea3d_L4_T1.2_standard_philox_cpu"
    assert len(camp.point_names) == 4
    last = camp.job_config("ea3d_L6_T1.2_sliced_philox_cpu", 1)
    assert last["samples"] == 64 and last["sample_offset"] == 128
    assert "waiting_times" not in last and "dim" not in last
    validate_run_config(last)  # every job config is a valid run config


def test_run_file_and_analysis(tmp_path: Path) -> None:
    """simcore run writes energies and overlaps; the start (t = 0) has the overlaps of the
    Philox random start; the analysis has the right shapes and a sane Binder ratio."""
    cfg = validate_run_config(job())
    assert run_job(cfg, tmp_path / "r.nc", progress=False) == 0
    with xr.open_dataset(tmp_path / "r.nc") as ds:
        ds = ds.load()
    assert ds["energy"].dims == ("sample", "replica", "t") and ds.sizes["sample"] == 128
    S0 = init_spins(LAYOUT_ID["sliced"], 4, 2, 9, 0)
    np.testing.assert_allclose(ds["q"].isel(t=0).values, overlaps(S0).T)
    assert np.all(ds["energy"].values >= -3) and np.all(ds["energy"].values <= 3)
    an = analyze_ea3d(ds)
    assert an.attrs["jackknife_groups"] == 2
    assert np.all(np.isfinite(an["binder"].values[1:]))
    assert np.all(an["energy_mean"].values[1:] < an["energy_mean"].values[0])  # it cools


def test_word_groups() -> None:
    assert word_groups(64 * 12)[0] == 12
    assert word_groups(64 * 100)[0] == 25  # largest divisor of 100 that is <= 32
    assert "one coded word" in word_groups(64)[1]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("snakemake") is None, reason="snakemake not installed")
def test_ea3d_campaign_through_snakemake(tmp_path: Path) -> None:
    """A tiny spin-glass campaign from the campaign file to its three figures."""
    conf = tmp_path / "sg.yaml"
    conf.write_text(yaml.safe_dump(
        {"campaign": "sg", "seed": 4, "model": "ea3d", "samples": 128, "samples_per_job": 64,
         "t_max": 40, "points": [{"L": 4, "T": [0.9, 2.0]}]}
    ))  # fmt: skip
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "--directory", str(tmp_path), "--cores", "2", "--configfile", str(conf)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = tmp_path / "results" / "sg"
    for name in ("energy", "q2", "binder"):
        assert (res / "figures" / f"{name}.png").stat().st_size > 0
    with xr.open_dataset(res / "datasets" / "ea3d_L4_T0.9_sliced_philox_cpu.nc") as ds:
        assert ds.sizes["sample"] == 128 and ds.attrs["n_runs"] == 2
        assert ds["sample"].values.tolist() == list(range(128))


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(("layout", "prng"), [("standard", "philox"), ("sliced", "philox"),
                                              ("bitwise", "philox"), ("sliced", "mt19937"),
                                              ("standard", "minstd")])  # fmt: skip
def test_gpu_run_equals_cpu_run(tmp_path: Path, layout: str, prng: str) -> None:
    """simcore run with backend gpu writes the same energies and overlaps as the CPU."""
    out = {}
    for backend in ("cpu", "gpu"):
        cfg = validate_run_config(job(L=8, layout=layout, backend=backend, t_max=50, prng=prng))
        assert run_job(cfg, tmp_path / f"{backend}.nc", progress=False) == 0
        with xr.open_dataset(tmp_path / f"{backend}.nc") as ds:
            out[backend] = ds.load()
    for var in ("energy", "q"):
        np.testing.assert_array_equal(out["gpu"][var].values, out["cpu"][var].values)
    assert out["gpu"].attrs["device"] != out["cpu"].attrs["device"]


def test_bench_table_and_lulli_figures(tmp_path: Path) -> None:
    """`simcore bench ea3d --csv` on the CPU feeds the psFlip figures (lulli2015 Figs. 4, 5)."""
    from analysis.lulli2015 import load_ea3d_bench
    from analysis.papers import make_figure
    from simcore.cli import main

    csv_path = tmp_path / "ea3d.csv"
    args = ["bench", "ea3d", "--backend", "cpu", "--layout", "sliced", "standard", "--L", "4",
            "6", "--k", "1", "2", "4", "--mcs", "1", "--repeats", "2", "--warmup", "1",
            "--csv", str(csv_path)]  # fmt: skip
    assert main(args) == 0
    rows = load_ea3d_bench(csv_path)
    assert len(rows) == 2 * 2 * 3 * 2 and all(r["ps_per_flip"] > 0 for r in rows)
    for kind in ("psflip_k", "psflip_L", "psflip_prng"):
        written = make_figure(kind, [csv_path], tmp_path / "fig", name=kind)
        assert all(p.stat().st_size > 0 for p in written)
    odd = ["bench", "ea3d", "--backend", "cpu", "--L", "5", "--csv", str(tmp_path / "x.csv")]
    assert main(odd) == 2 and not (tmp_path / "x.csv").exists()  # odd L: one-line error


def test_benchmark_lines_per_kernel() -> None:
    camp = load_campaign(ROOT / "config" / "papers.yaml")
    assert all(line.startswith("--scheme") for line in camp.bench_lines("dd"))
    assert all(line.startswith(("--layout", "--prng")) for line in camp.bench_lines("ea3d"))
    assert all(line.startswith("--gpus") for line in camp.bench_lines("mgpu"))
    assert all(line.startswith("--L 512") for line in camp.bench_lines("fcc"))
    kernels = ("dd", "ea3d", "mgpu", "kmc2d", "fcc")
    assert sum(len(camp.bench_lines(k)) for k in kernels) == len(camp.benchmarks)


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")
@pytest.mark.parametrize("kernel", ["ea3d", "mgpu"])
def test_gpu_benchmarks_without_a_gpu_say_so(kernel: str, capsys) -> None:
    """No CuPy: a one-line error naming the key, exit 2."""
    from simcore.cli import main

    assert main(["bench", kernel, "--L", "16"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "CuPy" in err[0]


def test_strong_scaling_figures(tmp_path: Path) -> None:
    """lulli2015 Figs. 12 and 13 from a strong-scaling table (the columns the multi-GPU
    benchmark writes; the numbers here are made up, the figures' arithmetic is not)."""
    from analysis.lulli2015 import _scaling_medians, load_scaling
    from analysis.papers import make_figure
    from simcore.models.ea3d.multigpu import SCALING_FIELDS

    table = tmp_path / "scaling.csv"
    lines = [",".join(SCALING_FIELDS)]
    for L, n, ps in [(128, 1, 0.2), (128, 2, 0.4), (256, 1, 0.15), (256, 2, 0.16), (256, 2, 0.18)]:
        lines.append(f"{L},1,{n},ipc,0.001,{ps},H,abc")
    table.write_text("\n".join(lines) + "\n")
    rows = load_scaling(table)
    assert _scaling_medians(rows)[(256, 2)] == pytest.approx(0.17)
    for kind in ("strong_scaling", "scaling_collapse"):
        assert all(p.stat().st_size > 0 for p in make_figure(kind, [table], tmp_path, name=kind))
    (tmp_path / "bad.csv").write_text("L,k\n1,2\n")
    with pytest.raises(ValueError, match="not a strong-scaling table"):
        load_scaling(tmp_path / "bad.csv")


def test_strong_scaling_on_one_gpu_draws_the_recorded_table(tmp_path: Path) -> None:
    """A one-GPU machine measures N = 1 only: Fig. 12 then draws the recorded multi-GPU
    table (every N of it, an efficiency curve per N >= 2, never an empty panel), this
    machine's points over it, a note saying so, and both tables in its provenance."""
    from analysis import lulli2015
    from simcore.models.ea3d.multigpu import SCALING_FIELDS

    table = tmp_path / "one_gpu.csv"
    rows = [",".join(SCALING_FIELDS)] + [f"{L},1,1,ipc,0.001,0.17,H,abc" for L in (128, 256)]
    table.write_text("\n".join(rows) + "\n")
    fig, prov = lulli2015.strong_scaling([str(table)])
    eta, psflip = fig.axes
    recorded_ns = {r["n_gpus"] for r in lulli2015.recorded_scaling()}
    assert len(eta.get_lines()) - 1 == len(recorded_ns - {1}) >= 1  # minus the 0.9 line
    assert any(line.get_label() == "this machine, N = 1" for line in psflip.get_lines())
    assert "recorded" in fig.get_supxlabel()
    assert "abc" in prov["git_commit"] and "d5599b9" in prov["git_commit"]
    collapse, _ = lulli2015.scaling_collapse([str(table)])
    assert "recorded" in collapse.get_supxlabel()
