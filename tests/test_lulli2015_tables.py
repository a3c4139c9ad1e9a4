"""lulli2015 Tables 1 and 2, Figs. 5 (the L = 4m / 2(2m+1) branches), 7 and 8 on the CPU:
the figures and Markdown tables from small hand-written benchmark tables, the branching
warps against a brute-force count of the launch, the MTGP32 set-up of ``simcore bench
prng`` against cuRAND's own host code, the one-line errors of the new options, and an nvcc
compile of the new CUDA sources.  The GPU side is tests/test_prng_bench_gpu.py."""

from __future__ import annotations

import csv
import importlib.util
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import nvcc_ptx
from matplotlib.container import ErrorbarContainer
from test_figures import _means_without_errors

from analysis import lulli2015_tables as tables
from analysis.lulli2015 import load_ea3d_bench, plot_psflip_L, size_branch
from analysis.papers import make_figure
from simcore.models.ea3d.bench import BENCH_EA3D_FIELDS
from simcore.models.ea3d.prng_bench import GENERATORS, PRNG_FIELDS
from simcore.models.ea3d.prng_curand import (
    CURAND_SOURCE,
    MTGP32_HEADER,
    curand_include_dir,
    mtgp32_seed_state,
    read_mtgp32_params,
)
from simcore.models.ea3d.prng_ours import OURS_SOURCE

DEVICE = "NVIDIA H100 80GB HBM3"
NAN = float("nan")
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


# ------------------------------------------------------------------ hand-written tables
def prng_row(api: str, gen: str, value: float, status: str = "ok") -> dict:
    """One ``simcore bench prng`` row: host rows take ``value`` as t_TOT [s] (min 0.9 x,
    max 1.2 x), device rows as instances/s (min 0.8 x, max 1.1 x); NaN where not ok."""
    row = dict.fromkeys(PRNG_FIELDS, "")
    row.update(api=api, generator=gen, status=status, backend="gpu", device=DEVICE,
               commit="abc1234")  # fmt: skip
    nums = dict.fromkeys(("t_init", "t_gen", "t_tot", "t_tot_min", "t_tot_max", "per_second",
                          "per_second_min", "per_second_max", "check"), NAN)  # fmt: skip
    if status == "ok" and api == "host":
        nums.update(t_init=0.01 * value, t_gen=0.99 * value, t_tot=value, t_tot_min=0.9 * value,
                    t_tot_max=1.2 * value, per_second=2**29 / value, check=0.5)  # fmt: skip
    elif status == "ok":
        nums.update(t_init=0.001, t_gen=0.01, t_tot=0.1, per_second=value,
                    per_second_min=0.8 * value, per_second_max=1.1 * value, check=0.5)  # fmt: skip
    row.update(nums)
    return row


NO_DEVICE_API = "not available: cuRAND's MT19937 has no device API (host generator only)"


def write_prng_table(path: Path) -> Path:
    """Every generator of both tables, cuRAND's MT19937 without a device API."""
    rows = [prng_row("host", g, 0.01 * (i + 1)) for i, g in enumerate(GENERATORS)]
    for i, g in enumerate(GENERATORS):
        status = NO_DEVICE_API if g == "curand_mt19937" else "ok"
        rows.append(prng_row("device", g, 1e10 * (i + 1), status))
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=PRNG_FIELDS)
        w.writeheader()
        w.writerows(rows)
    return path


def write_ea3d_table(path: Path, entries: dict[tuple[str, int, int], list[float]],
                     copy: float | None = 3.0e12, prng: str = "philox",
                     fields: tuple[str, ...] = BENCH_EA3D_FIELDS) -> Path:  # fmt: skip
    """A ``simcore bench ea3d`` table: (layout, L, k) -> psFlip of each repeat."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for (layout, L, k), values in entries.items():
            for ps in values:
                w.writerow({"layout": layout, "L": L, "k": k, "prng": prng, "backend": "gpu",
                            "device": DEVICE, "ps_per_flip": ps,
                            "seconds_per_sweep": ps * 1e-12 * 256 * k * L**3, "commit": "abc1234",
                            "copy_bytes_per_second": "nan" if copy is None else copy})  # fmt: skip
    return path


#: (layout, L, k) -> psFlip repeats: at L = 16 the best k = 16 is tied with k = 64 (64's
#: fastest repeat 3.15 is below 16's slowest 3.2); at L = 32 the best k = 16 is resolved.
BEST_K_ENTRIES = {
    ("sliced", 16, 1): [10.0, 10.5, 11.0], ("sliced", 16, 4): [5.0, 5.2, 5.4],
    ("sliced", 16, 16): [3.0, 3.1, 3.2], ("sliced", 16, 64): [3.15, 3.3, 3.5],
    ("sliced", 32, 4): [4.0, 4.0, 4.0], ("sliced", 32, 16): [2.0, 2.05, 2.1],
    ("sliced", 32, 64): [2.5, 2.6, 2.7],
    ("standard", 16, 16): [3.0, 3.0, 3.0], ("standard", 16, 64): [2.0, 2.1, 2.2],
    ("standard", 10, 16): [4.0, 4.1, 4.2], ("standard", 10, 64): [5.0, 5.0, 5.0],
    ("bitwise", 16, 16): [3.0, 3.1, 3.2],
}  # fmt: skip


def _errorbar_axes(fig) -> list:
    return [ax for ax in fig.axes if any(isinstance(c, ErrorbarContainer) for c in ax.containers)]


# ------------------------------------------------------------------ Tables 1 and 2
def test_paper_tables_are_consistent() -> None:
    """The transcribed Table 1 adds up (t_TOT = t_INIT + t_GEN to the paper's 0.01 s) and
    both tables have every GPU of the paper; only cuRAND's MT19937 host generator lacks
    the M2090 and K20X (the paper's zeros)."""
    for gen, per_gpu in tables.PAPER_TABLE1.items():
        assert set(per_gpu) == set(tables.PAPER_T1_GPUS), gen
        for gpu, t in per_gpu.items():
            if t is None:
                assert gen == "curand_mt19937" and gpu != "GTX Titan"
                continue
            assert t[2] == pytest.approx(t[0] + t[1], abs=0.011), (gen, gpu)
    for gen, per_gpu in tables.PAPER_TABLE2.items():
        assert set(per_gpu) == set(tables.PAPER_T2_GPUS) and gen in tables.PAPER_T2_EXPONENT
    assert tables.PAPER_TABLE2["curand_xorwow"]["GTX Titan"] == pytest.approx(1.07e11)
    assert set(tables.PAPER_TABLE1) | set(tables.PAPER_TABLE2) <= set(GENERATORS)


def test_prng_tables_figure(tmp_path: Path) -> None:
    """Tables 1 and 2 as a figure: two panels, ours drawn as medians with error bars, the
    paper's GPUs beside them, "n/a" where ours has no number; the registered figure
    writes its files through the paper-figure CLI's function."""
    table = write_prng_table(tmp_path / "prng.csv")
    rows = tables.load_prng_bench(table)
    fig = tables.plot_prng_tables(rows)
    host, device = fig.axes[:2]
    assert len(_errorbar_axes(fig)) == 2 and not _means_without_errors(fig)
    for ax, gpus in ((host, tables.PAPER_T1_GPUS), (device, tables.PAPER_T2_GPUS)):
        assert ax.get_yscale() == "log"
        assert len(ax.collections) >= len(gpus)  # the paper's points, one set per GPU
    (ours,) = [c for c in device.containers if isinstance(c, ErrorbarContainer)]
    assert len(ours.lines[0].get_xdata()) == len(GENERATORS) - 1  # all but MT19937's
    assert any(t.get_text() == "n/a" for t in device.texts)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "paper, GTX Titan" in labels and f"ours, {DEVICE}" in labels
    written = make_figure("prng_tables", [table], tmp_path / "fig", name="t12")
    assert all(p.stat().st_size > 0 for p in written)
    with pytest.raises(ValueError, match="not a generator benchmark table"):
        tables.load_prng_bench(write_ea3d_table(tmp_path / "ea3d.csv", BEST_K_ENTRIES))


def test_prng_markdown_has_the_papers_numbers_beside_ours(tmp_path: Path) -> None:
    """The Markdown tables hold every number of the paper's Tables 1 and 2 (as the paper
    prints them), ours in its own column and the status of a generator ours lacks."""
    md = tables.prng_markdown(tables.load_prng_bench(write_prng_table(tmp_path / "p.csv")))
    for per_gpu in tables.PAPER_TABLE1.values():
        for t in per_gpu.values():
            if t is not None:
                assert " / ".join(f"{v:.2f}" for v in t) in md
    assert "0.09 / 12.34 / 12.43" in md and "not run (0 in the table)" in md
    for text in ("4.5·10^9", "10.7·10^10", "2.9·10^10", "14.1·10^9", "16.8·10^9", "8.9·10^10",
                 "6.7·10^10", "8.3·10^9"):  # fmt: skip
        assert text in md, text
    assert f"ours, {DEVICE}" in md and NO_DEVICE_API in md
    assert md.count("| MINSTD |") == 2 and "paper, GTX 680" in md
    assert all(line.count("|") == md.splitlines()[4].count("|")
               for line in md.splitlines()[4:14])  # fmt: skip


# ------------------------------------------------------------------ Fig. 7
def _brute_force_branching(L: int, block: int, warp: int = 32) -> int:
    """Warps of one word's x grid holding both a running and a returning thread: every
    thread of ceil(H / block) blocks enumerated, warps formed inside each block."""
    half = L**3 // 2
    n_blocks = -(-half // block)
    idx = np.arange(n_blocks * block)
    warp_id = (idx // block) * (-(-block // warp)) + (idx % block) // warp
    running = np.bincount(warp_id, weights=idx < half)
    size = np.bincount(warp_id)
    return int(np.sum((running > 0) & (running < size)))


@pytest.mark.parametrize("block", [128, 32, 96, 100, 256])
def test_branching_warps_match_a_brute_force_count(block: int) -> None:
    """The closed form against every thread of the launch, for every even L up to 100 and
    the largest sizes of the paper, at the kernel's block and other block sizes."""
    for L in [*range(2, 102, 2), 126, 128, 130, 254, 256]:
        assert tables.branching_warps(L, block) == _brute_force_branching(L, block), (L, block)


def test_branching_warps_follow_the_papers_eq_b1() -> None:
    """With the kernel's real launch (blocks of 128, the early return of threads past L^3 /
    2 in ea3d_amsc.cu) the count is the paper's App. B: 0 for L = 4m, 1 for L = 2(2m+1)."""
    from simcore.models.ea3d.gpu import CUDA_SOURCE

    assert tables.kernel_block() == 128
    assert "if (jj >= nsites) return;" in CUDA_SOURCE.read_text()
    for L in range(2, 258, 2):
        assert tables.branching_warps(L) == tables.paper_branching_warps(L), L
        assert size_branch(L) == ("L = 4m" if L % 4 == 0 else "L = 2(2m+1)")


def test_best_k_resolution_and_figure(tmp_path: Path) -> None:
    """The best k per L and layout, tied k and resolution from the repeats; the figure
    draws resolved points filled, unresolved ones open, every point with its bar of tied
    k, and the branching warps of every even L in the range."""
    table = write_ea3d_table(tmp_path / "ea3d.csv", BEST_K_ENTRIES)
    best = tables.best_k_table(load_ea3d_bench(table))
    tied = best[("sliced", DEVICE, 16)]
    assert (tied.k, tied.tied, tied.resolved, tied.largest) == (16, (16, 64), False, False)
    clear = best[("sliced", DEVICE, 32)]
    assert (clear.k, clear.tied, clear.resolved) == (16, (16,), True)
    assert best[("standard", DEVICE, 16)].largest and best[("standard", DEVICE, 16)].resolved
    assert not best[("bitwise", DEVICE, 16)].resolved  # one k measured: nothing resolved
    fig, _prov = tables.best_k([str(table)])
    upper, lower = fig.axes[:2]
    assert not _means_without_errors(fig) and upper.get_yscale() == "log"
    faces = [line.get_markerfacecolor() for line in upper.get_lines()
             if line.get_marker() not in ("None", "none", "")]  # fmt: skip
    assert "none" in faces and any(f != "none" for f in faces)
    shown = sorted({int(x) for c in lower.collections[:2] for x, _ in c.get_offsets()})
    assert shown == list(range(10, 33, 2))
    for c in lower.collections[:2]:
        for x, y in c.get_offsets():
            assert y == tables.paper_branching_warps(int(x))
    assert "not profiled" in lower.get_title()


# ------------------------------------------------------------------ Fig. 8
def test_bandwidth_traffic_model() -> None:
    """144 bytes per site and word, so bandwidth = 0.5625 B per attempt / psFlip."""
    assert tables.bytes_per_sweep(8, 2) == 144 * 2 * 512
    assert tables.achieved_bandwidth(128, 16, 0.19) == pytest.approx(0.5625 / 0.19e-12)


def test_bandwidth_figure(tmp_path: Path) -> None:
    """The best configuration's bandwidth per L and layout with error bars, the copy peak
    of the table as a horizontal line; an older table without the peak says so; a table
    without Philox rows is refused."""
    table = write_ea3d_table(tmp_path / "ea3d.csv", BEST_K_ENTRIES)
    fig, prov = tables.bandwidth([str(table)])
    ax = fig.axes[0]
    assert not _means_without_errors(fig) and "abc1234" in prov["git_commit"]
    peak = [line for line in ax.get_lines() if "copy peak" in str(line.get_label())]
    assert len(peak) == 1 and peak[0].get_ydata()[0] == pytest.approx(3000.0)
    series = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    sliced16 = next(c for c in series if c.get_label().startswith("sliced, L = 4m"))
    x, y = sliced16.lines[0].get_data()
    assert list(x) == [16, 32]
    assert y[0] == pytest.approx(0.5625 / 3.1e-12 / 1e9)  # the best k's median
    old = write_ea3d_table(tmp_path / "old.csv", BEST_K_ENTRIES,
                           fields=BENCH_EA3D_FIELDS[:-1])  # fmt: skip
    fig_old, _ = tables.bandwidth([str(old)])
    assert "no copy peak" in fig_old.get_supxlabel()
    minstd = write_ea3d_table(tmp_path / "minstd.csv", BEST_K_ENTRIES, prng="minstd")
    with pytest.raises(ValueError, match="philox"):
        tables.bandwidth([str(minstd)])
    for name in ("bandwidth", "best_k", "psflip_L"):
        assert all(p.stat().st_size > 0 for p in make_figure(name, [table], tmp_path, name=name))


# ------------------------------------------------------------------ Fig. 5 branches
def test_psflip_L_draws_the_two_branches_of_even_sizes(tmp_path: Path) -> None:
    """Fig. 5 splits each layout into L = 4m (filled, solid) and L = 2(2m+1) (open,
    dashed), the paper's L_0 and L_1."""
    entries = {(lay, L, 4): [0.3, 0.31, 0.32] for lay in ("sliced", "standard")
               for L in (8, 10, 12, 14, 16)}  # fmt: skip
    rows = load_ea3d_bench(write_ea3d_table(tmp_path / "e.csv", entries))
    fig = plot_psflip_L(rows)
    ax = fig.axes[0]
    series = {c.get_label(): c.lines[0] for c in ax.containers}
    assert all(c.has_yerr for c in ax.containers)
    assert set(series) == {f"{lay}, {b}" for lay in ("sliced", "standard")
                           for b in ("L = 4m", "L = 2(2m+1)")}  # fmt: skip
    odd = series["sliced, L = 2(2m+1)"]
    assert list(odd.get_xdata()) == [10, 14] and odd.get_markerfacecolor() == "none"
    assert odd.get_linestyle() == "--" and series["sliced, L = 4m"].get_linestyle() == "-"
    assert series["sliced, L = 4m"].get_color() != series["standard, L = 4m"].get_color()


def test_psflip_k_of_an_every_even_L_scan_keeps_the_powers_of_two(tmp_path: Path) -> None:
    """Fig. 4 drawn from the Figs. 5/7/8 scan (every even L) keeps one line per L = 2^l."""
    from analysis.lulli2015 import plot_psflip_k

    entries = {("sliced", L, k): [0.3 * k**-0.5] * 2 for L in range(8, 34, 2) for k in (1, 4, 16)}
    fig = plot_psflip_k(load_ea3d_bench(write_ea3d_table(tmp_path / "e.csv", entries)))
    labels = {c.get_label().split(",")[0] for c in fig.axes[0].containers}
    assert labels == {"L=8", "L=16", "L=32"}


# ------------------------------------------------------------------ simcore bench
def test_registry_has_the_new_figures_and_kernel() -> None:
    from simcore.models import registry

    figs = registry.paper_figures()
    assert figs["prng_tables"][1].bench == ("prng",)
    assert figs["best_k"][1].bench == ("ea3d",) and figs["bandwidth"][1].bench == ("ea3d",)
    assert all(figs[n][1].paper == "lulli2015" for n in ("prng_tables", "best_k", "bandwidth"))
    assert registry.bench_kernel("prng").name == "prng"


@pytest.mark.parametrize(
    ("args", "option"),
    [(["--draws", "6"], "--draws"), (["--n", "0"], "--n"), (["--threads", "2048"], "--threads"),
     (["--launches", "0"], "--launches"), (["--seed", "-1"], "--seed")],
)  # fmt: skip
def test_bench_prng_bad_options_are_one_line(args: list[str], option: str, capsys) -> None:
    from simcore.cli import main

    assert main(["bench", "prng", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and option in err[0]


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")
def test_bench_prng_without_a_gpu_says_so(tmp_path: Path, capsys) -> None:
    from simcore.cli import main

    assert main(["bench", "prng", "--csv", str(tmp_path / "p.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "CuPy" in err[0] and not (tmp_path / "p.csv").exists()


def test_bench_ea3d_even_sizes_and_copy_peak_on_the_cpu(tmp_path: Path, capsys) -> None:
    """Every even L runs with standard and sliced; bitwise, asked for with them, skips
    L = 2(2m+1) with one line; every row carries the copy peak; Figs. 7 and 8 draw from
    the table.  Bitwise alone at L = 6, a negative --copy-mib and appending to a table of
    other columns are one-line errors."""
    from simcore.cli import main

    table = tmp_path / "ea3d.csv"
    base = ["bench", "ea3d", "--backend", "cpu", "--k", "1", "2", "--mcs", "1", "--repeats", "2",
            "--warmup", "1", "--copy-mib", "4"]  # fmt: skip
    assert main([*base, "--layout", "sliced", "standard", "bitwise", "--L", "4", "6", "8",
                 "--csv", str(table)]) == 0  # fmt: skip
    assert "bitwise L=6: skipped" in capsys.readouterr().err
    rows = load_ea3d_bench(table)
    assert {(r["layout"], r["L"]) for r in rows} == {
        (lay, L) for lay in ("sliced", "standard") for L in (4, 6, 8)} | {
        ("bitwise", 4), ("bitwise", 8)}  # fmt: skip
    peaks = {float(r["copy_bytes_per_second"]) for r in rows}
    assert len(peaks) == 1 and math.isfinite(peak := peaks.pop()) and peak > 1e8
    for name in ("best_k", "bandwidth"):
        assert all(p.stat().st_size > 0 for p in make_figure(name, [table], tmp_path, name=name))
    for bad, option in ((["--layout", "bitwise", "--L", "6"], "--L"),
                        (["--L", "4", "--copy-mib", "-1"], "--copy-mib")):  # fmt: skip
        capsys.readouterr()
        assert main([*base, *bad, "--csv", str(tmp_path / "x.csv")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and option in err[0] and not (tmp_path / "x.csv").exists()
    old = tmp_path / "old.csv"
    old.write_text(",".join(BENCH_EA3D_FIELDS[:-1]) + "\n")
    assert main([*base, "--L", "4", "--csv", str(old)]) == 2
    assert "--csv" in capsys.readouterr().err


# ------------------------------------------------------------------ MTGP32 set-up
def _synthetic_mtgp32_header(n_sets: int) -> str:
    """A table in the header's format: set i has pos 10 + i, sh1 i, sh2 2 i, tbl[j] = 100 i +
    j, tmp_tbl 1000 + ..., flt_tmp_tbl 0x3f800000 + ..., mask 0xfff80000."""
    sets = []
    for i in range(n_sets):
        tbl = ",\n         ".join(f"(0x{100 * i + j:08x})" for j in range(16))
        tmp = ", ".join(f"({1000 + 100 * i + j})" for j in range(16))
        flt = ", ".join(f"(0x{0x3F800000 + 100 * i + j:08x})" for j in range(16))
        sha = ",".join(f"0x{b:02x}" for b in range(21))
        sets.append(f"    {{\n        /* No.{i} delta:1 weight:2 */\n        11213,\n"
                    f"        {10 + i},\n        {i},\n        {2 * i},\n        {{{tbl}}},\n"
                    f"        {{{tmp}}},\n        {{{flt}}},\n        (0xfff80000),\n"
                    f"        {{{sha}}}\n    }}")  # fmt: skip
    return ("#if (__cplusplus >= 201703L) && defined(__cpp_inline_variables)\n"
            "inline mtgp32_params_fast_t mtgp32dc_params_fast_11213[]\n#else\n"
            "static mtgp32_params_fast_t mtgp32dc_params_fast_11213[]\n#endif\n = {\n"
            + ",\n".join(sets) + "\n};\n")  # fmt: skip


def test_mtgp32_parameter_table_layout() -> None:
    """The header's parameter sets come out as mtgp32_kernel_params_t: pos, param, temper,
    single_temper tables, sh1, sh2, mask; a table of other exponents is refused."""
    words = read_mtgp32_params(_synthetic_mtgp32_header(3), n_sets=3)
    n = 3
    assert words.dtype == np.uint32 and words.size == 3 * n + 3 * 16 * n + 1
    assert list(words[:n]) == [10, 11, 12]
    param = words[n : n + 16 * n].reshape(n, 16)
    assert param[2, 5] == 205 and words[n + 16 * n + 16 + 1] == 1101  # tmp_tbl[1][1]
    assert words[n + 32 * n] == 0x3F800000  # flt_tmp_tbl[0][0]
    assert list(words[n + 48 * n : n + 48 * n + 2 * n]) == [0, 1, 2, 0, 2, 4]
    assert words[-1] == 0xFFF80000
    with pytest.raises(ValueError, match="11213"):
        read_mtgp32_params(_synthetic_mtgp32_header(2).replace("11213,", "4423,"), n_sets=2)
    with pytest.raises(ValueError, match="parameter sets"):
        read_mtgp32_params(_synthetic_mtgp32_header(2), n_sets=3)


def test_mtgp32_seeding_equals_curands_host_helper() -> None:
    """mtgp32_seed_state (the twin of the GPU's mtgp32_init) against state words that
    cuRAND's curandMakeMTGP32KernelState / mtgp32_init_state gave for seed 2015 and blocks
    0-2 of the 11213 table (built with nvcc against cuRAND 10.4's headers)."""
    reference = {  # block: (tbl[4], tbl[8]) of its parameter set, s[0], s[1], s[2], s[350]
        0: ((0x22000000, 0x000095BA), (0x7E0, 0x0CE3FB61, 0x92516736, 0x653FF584)),
        1: ((0x15500019, 0x0000D269), (0x7E1, 0xE05884DF, 0x4D133FD7, 0x6F2E08D1)),
        2: ((0x71C00027, 0x0000DD6C), (0x7E2, 0x3FC50E0C, 0x70E989C1, 0x654ADE21)),
    }
    for block, ((tbl4, tbl8), words) in reference.items():
        s = mtgp32_seed_state(tbl4, tbl8, 2015, block)
        assert s.size == 351 and (s[0], s[1], s[2], s[350]) == words, block


@pytest.mark.skipif(curand_include_dir() is None, reason="needs cuRAND's headers")
def test_mtgp32_table_of_the_installed_curand() -> None:
    """The installed header has 200 sets of exponent 11213, mask 0xfff80000, and set 0's
    tbl[4], tbl[8] are those of the seeding reference."""
    text = (curand_include_dir() / MTGP32_HEADER).read_text()
    words = read_mtgp32_params(text)
    assert words.size == 10201 and words[-1] == 0xFFF80000
    param = words[200 : 200 + 3200].reshape(200, 16)
    assert (param[0, 4], param[0, 8]) == (0x22000000, 0x95BA)


# ------------------------------------------------------------------ CUDA sources
@needs_nvcc
def test_our_generator_kernels_compile(tmp_path: Path) -> None:
    """nvcc -arch=sm_90 --ptx builds every fill and count kernel of prng_bench.cu."""
    ptx = nvcc_ptx(tmp_path, OURS_SOURCE, ())
    for kind in ("minstd", "pr64", "mt19937", "philox"):
        for name in (f"fill_{kind}_f32", f"fill_{kind}_u32", f"count_{kind}"):
            assert f".entry {name}(" in ptx, name


@needs_nvcc
@pytest.mark.skipif(curand_include_dir() is None, reason="needs cuRAND's headers")
def test_curand_device_kernels_compile(tmp_path: Path) -> None:
    """nvcc builds the cuRAND device-API kernels of curand_bench.cu."""
    ptx = nvcc_ptx(tmp_path, CURAND_SOURCE, (), (f"-I{curand_include_dir()}",))
    for name in ("state_sizes", "xorwow_init", "xorwow_count", "philox_init", "philox_count",
                 "mtgp32_init", "mtgp32_count"):  # fmt: skip
        assert f".entry {name}(" in ptx, name
