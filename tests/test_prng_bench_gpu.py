"""``simcore bench prng`` on a GPU (``pytest -m gpu``; skipped without CuPy and a CUDA
device): simcore's fill kernels draw, bit for bit, what the CPU twins of
:mod:`simcore.rng.classic` and :mod:`simcore.rng.philox` draw; the count kernels and
cuRAND's device API count about half of their draws odd; MTGP32's states are seeded as
cuRAND's host helper seeds them; the CLI writes one row per generator and API; the ea3d
bench writes the copy peak."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_kpz_gpu import needs_gpu

from analysis.lulli2015_tables import load_prng_bench, plot_prng_tables
from simcore.models.ea3d.prng_bench import GENERATORS, device_row
from simcore.models.ea3d.prng_curand import (
    MTGP32_HEADER,
    NO_DEVICE_API,
    curand_include_dir,
    mtgp32_seed_state,
    mtgp32_states_gpu,
    read_mtgp32_params,
)
from simcore.models.ea3d.prng_ours import TAG_BENCH, ours_u32
from simcore.rng.classic import draw_all, init_state
from simcore.rng.philox import philox4x32
from simcore.seeding import philox_key

pytestmark = [pytest.mark.gpu, needs_gpu]
needs_curand_headers = pytest.mark.skipif(curand_include_dir() is None,
                                          reason="needs cuRAND's headers")  # fmt: skip


@pytest.mark.parametrize("kind", ["minstd", "pr64", "mt19937"])
@pytest.mark.parametrize("G", [1, 77, 300])
def test_stateful_fill_equals_the_cpu_twin(kind: str, G: int) -> None:
    """Draw i of generator g lands at out[i G + g]: the fill's first draws of every thread
    are draw_all's, bit for bit (G not a multiple of the block: the tail threads too)."""
    seed, per_thread = 20150 + G, 700  # MT19937: past its first 624-word turn
    state, aux = init_state(kind, seed, G)
    expected = draw_all(kind, state, aux, per_thread)
    assert np.array_equal(ours_u32(kind, G, per_thread, seed), expected)


@pytest.mark.parametrize("G", [1, 37, 256])
def test_philox_fill_equals_the_cpu_twin(G: int) -> None:
    """Word a of call c of thread g at out[(4 c + a) G + g] = philox4x32(g, 0, c, tag)."""
    seed, per_thread = 99, 12
    k0, k1 = philox_key(seed)
    got = ours_u32("philox", G, per_thread, seed)
    for c in range(per_thread // 4):
        for g in range(G):
            words = philox4x32(g, 0, c, TAG_BENCH, k0, k1)
            assert [int(got[4 * c + a, g]) for a in range(4)] == [int(w) for w in words]


@pytest.mark.parametrize("kind", ["minstd", "pr64", "mt19937", "philox"])
def test_float_fill_is_the_draws_scaled(kind: str) -> None:
    """The float fill is r 2^-b + 2^-(b+1) of the same draws (b = 31 for MINSTD), within
    float rounding (the product may be fused), all in (0, 1)."""
    import cupy as cp

    from simcore.models.ea3d.prng_ours import fill_ours

    G, per_thread, seed = 64, 8, 5
    raw = ours_u32(kind, G, per_thread, seed).astype(np.float64)
    out = cp.empty(G * per_thread, dtype=cp.float32)
    fill_ours(kind, out, G, seed)
    scale = 2.0**-31 if kind == "minstd" else 2.0**-32
    got = cp.asnumpy(out).reshape(per_thread, G)
    np.testing.assert_allclose(got, raw * scale + scale / 2, rtol=4e-7)
    assert np.all((got > 0) & (got <= 1))


@pytest.mark.parametrize("gen", ["minstd", "pr64", "mt19937", "philox"])
def test_our_count_kernels(gen: str) -> None:
    """The device-API test of simcore's generators: about half of the draws are odd."""
    row = device_row(gen, blocks=4, threads=64, draws=1024, launches=2, seed=3)
    assert row["status"] == "ok", row["status"]
    assert abs(row["check"] - 0.5) < 0.01 and row["per_second"] > 0
    assert row["instances"] == 256 and row["numbers"] == 256 * 1024 * 2


@needs_curand_headers
@pytest.mark.parametrize("gen", ["curand_xorwow", "curand_philox", "curand_mtgp32"])
def test_curand_device_api(gen: str) -> None:
    """cuRAND's device API through NVRTC: about half of the draws odd; MT19937 has none,
    MTGP32 refuses more than 200 blocks or 256 threads (a row, not a crash)."""
    row = device_row(gen, blocks=8, threads=128, draws=1024, launches=2, seed=3)
    assert row["status"] == "ok", row["status"]
    assert abs(row["check"] - 0.5) < 0.01
    assert device_row("curand_mt19937", 8, 128, 1024, 2, 3)["status"] == NO_DEVICE_API
    too_many = device_row("curand_mtgp32", 201, 128, 1024, 2, 3)["status"]
    assert too_many.startswith("not run") and "200" in too_many


@needs_curand_headers
def test_mtgp32_states_seeded_as_curands_host_helper() -> None:
    """mtgp32_init on the GPU writes the state words cuRAND's curandMakeMTGP32KernelState
    would (:func:`mtgp32_seed_state`, checked against cuRAND's host code on the CPU)."""
    inc = curand_include_dir()
    words = read_mtgp32_params((inc / MTGP32_HEADER).read_text())
    param = words[200 : 200 + 3200].reshape(200, 16)
    got = mtgp32_states_gpu(5, 2015)
    for b in range(5):
        expected = mtgp32_seed_state(int(param[b, 4]), int(param[b, 8]), 2015, b)
        assert np.array_equal(got[b], expected), b


def test_bench_cli_writes_one_row_per_generator(tmp_path: Path) -> None:
    """``simcore bench prng --csv``: one row per (API, generator), simcore's all ok, cuRAND's
    MT19937 device row saying it has no device API; the figure draws from the table."""
    from simcore.cli import main

    table = tmp_path / "prng.csv"
    args = ["bench", "prng", "--n", str(1 << 20), "--repeats", "2", "--instances", "1024",
            "--blocks", "8", "--threads", "64", "--draws", "256", "--launches", "2",
            "--csv", str(table)]  # fmt: skip
    assert main(args) == 0
    rows = load_prng_bench(table)
    keys = [(r["api"], r["generator"]) for r in rows]
    assert sorted(keys) == sorted((api, g) for api in ("host", "device") for g in GENERATORS)
    status = {k: r["status"] for k, r in zip(keys, rows, strict=True)}
    for gen in ("minstd", "pr64", "mt19937", "philox"):
        assert status[("host", gen)] == "ok" and status[("device", gen)] == "ok", gen
    for gen in ("curand_xorwow", "curand_mtgp32", "curand_mt19937", "curand_philox"):
        assert status[("host", gen)] == "ok", (gen, status[("host", gen)])
    assert status[("device", "curand_mt19937")] == NO_DEVICE_API
    host = [r for r in rows if r["api"] == "host" and r["status"] == "ok"]
    assert all(r["t_tot_min"] <= r["t_tot"] <= r["t_tot_max"] for r in host)
    assert all(abs(r["t_tot"] - r["t_init"] - r["t_gen"]) < 0.5 * r["t_tot"] for r in host)
    assert plot_prng_tables(rows).axes


def test_ea3d_bench_writes_the_copy_peak(tmp_path: Path) -> None:
    """``simcore bench ea3d`` on the GPU measures the device-to-device copy once and writes
    it to every row (bytes read + written per second)."""
    from analysis.lulli2015 import load_ea3d_bench
    from simcore.cli import main

    table = tmp_path / "ea3d.csv"
    args = ["bench", "ea3d", "--layout", "sliced", "--L", "8", "10", "--k", "1", "--mcs", "1",
            "--repeats", "2", "--copy-mib", "256", "--csv", str(table)]  # fmt: skip
    assert main(args) == 0
    peaks = {float(r["copy_bytes_per_second"]) for r in load_ea3d_bench(table)}
    assert len(peaks) == 1 and 1e11 < peaks.pop() < 2e13
