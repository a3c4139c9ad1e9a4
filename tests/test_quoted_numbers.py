"""Numbers that cannot drift: every number the README and the reproduction pages quote from
published data (docs/data) is recomputed here from that data, formatted as quoted, and
looked up in the page that quotes it.

Each ``quotes_*`` function below reads one published source and returns the texts that it
backs, each with the page that must contain it verbatim.  Editing a quoted number (or the
data) makes the lookup fail, naming the page, the text expected and what it stands for.
To update a page after new data: run this test, and copy the expected texts it prints.
And where a campaign's datasets are published beside its analyses (every kpz point), the
analysis is recomputed from them and must equal the published one, so the fits, local
slopes and jackknife errors the quotes read are recomputed too, not only read.

Sources, and how to regenerate each (the commands are also in docs/data/*/figures.yaml):

* docs/data/bench/*.csv: ``simcore bench ... --csv`` on an H100 (each row names its device
  and commit; docs/data/bench/figures.yaml gives the command lines);
* docs/data/<campaign>/: ``snakemake ... --configfile config/<campaign>.yaml`` then
  ``python -m analysis.publish config/<campaign>.yaml`` (the manifest names the command);
* docs/data/kpz_dbs_paired/: ``simcore run`` of its two run configs (its README).
"""

from __future__ import annotations

import csv
import math
import re
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
from conftest import page_text

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "data"
README = "README.md"
REPRO = "docs/reproduction"


@dataclass(frozen=True)
class Quote:
    """A text that ``page`` must contain verbatim, and what it stands for."""

    page: str
    text: str
    what: str


def sci(x: float, digits: int = 1) -> str:
    """``x`` as the pages write it in scientific notation: 7.2e10, 3.0e8, 5.3e7."""
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def table(name: str) -> list[dict[str, str]]:
    """The rows of the published benchmark table ``docs/data/bench/<name>``."""
    with open(DATA / "bench" / name, newline="") as fh:
        return list(csv.DictReader(fh))


# ------------------------------------------------------------------ benchmark tables


def quotes_kpz_dd() -> list[Quote]:
    """kelling2017 Fig. 7 on an H100: medians of the attempts/ns at L = 2^16 and their ratio."""
    rows = table("kpz_dd_bench_h100.csv")

    def median(scheme: str, p: str) -> float:
        vals = [float(r["attempts_per_ns"]) for r in rows
                if r["scheme"] == scheme and r["p"] == p and r["L"] == "65536"]  # fmt: skip
        assert vals, f"no {scheme} p={p} rows at L = 65536"
        return statistics.median(vals)

    dt1, db1, dt6, db6 = (median("DTrDT", "1"), median("DTrDB", "1"),
                          median("DTrDT", "0.6"), median("DTrDB", "0.6"))  # fmt: skip
    text = (f"DTrDT {dt1:.1f}, DTrDB {db1:.1f} at p = 1 (DTrDB/DTrDT = {db1 / dt1:.2f}); "
            f"{dt6:.1f} and {db6:.1f} at p = 0.6, q = 0.3 ({db6 / dt6:.2f})")  # fmt: skip
    return [Quote(f"{REPRO}/kelling2017.md", text, "Fig. 7 speeds (CSV medians)")]


def quotes_fcc() -> list[Quote]:
    """kelling2012 Figs. 6/7 on an H100 and its 16-core host, L = 512: the README's fcc
    speeds, on the initial mixture (t_quench 0) and after 10^4 MCS."""
    rows = table("fcc_bench_h100.csv")

    def speed(impl: str, t: str) -> float:
        (row,) = [r for r in rows if r["implementation"] == impl and r["t_quench"] == t]
        return float(row["attempts_per_s"])

    gpu4 = [speed("GPU dt, 4 samples per launch", t) for t in ("0", "10000")]
    gpu1 = [speed("GPU dt", t) for t in ("0", "10000")]
    dd = [speed("CPU DD", t) for t in ("0", "10000")]
    seq = [speed("CPU sequential", t) for t in ("0", "10000")]
    dd16 = [speed("CPU DD (16)", t) for t in ("0", "10000")]
    return [
        Quote(README, f"runs {sci(gpu4[0])} attempts per second on the initial mixture and "
              f"{sci(gpu4[1])} after 10^4 MCS", "fcc GPU, 4 samples per launch"),
        Quote(README, f"; {sci(gpu1[0])} and {sci(gpu1[1])} with one sample)",
              "fcc GPU, one sample"),
        Quote(README, f"the cache-blocked CPU DD {sci(dd[0])} and {sci(dd[1])} on one core "
              f"of its host ({dd[0] / seq[0]:.1f}x and {dd[1] / seq[1]:.1f}x the "
              "random-sequential code", "fcc CPU DD on one core, and against sequential"),
        Quote(README, f"{sci(dd16[0])} and {sci(dd16[1])} on its 16 cores", "fcc CPU DD, 16"),
    ]  # fmt: skip


def bench_medians(
    name: str, key: Callable[[dict[str, str]], tuple], value: str
) -> dict[tuple, tuple[float, int]]:
    """Median and number of the values of column ``value`` per group ``key(row)`` of the
    published benchmark table ``docs/data/bench/<name>``."""
    groups: dict[tuple, list[float]] = {}
    for row in table(name):
        groups.setdefault(key(row), []).append(float(row[value]))
    return {k: (statistics.median(v), len(v)) for k, v in groups.items()}


def peer_lines(log: str = "peers_h100.log", **match: str) -> list[dict[str, str]]:
    """The lines ``PEER key=value ...`` of docs/data/bench/``log`` whose keys equal
    ``match``, as dicts."""
    found = []
    for line in (DATA / "bench" / log).read_text().splitlines():
        if line.startswith("PEER "):
            kv = dict(item.split("=", 1) for item in line.split()[1:])
            if all(kv.get(k) == v for k, v in match.items()):
                found.append(kv)
    return found


def peers(**match: str) -> float:
    """The measurement of the published CUDA codes (docs/data/bench/peers_h100.log) whose
    keys equal ``match``: attempts/ns (CudaKpz) or real events/s (kmc-gpu)."""
    found = peer_lines(**match)
    assert len(found) == 1, f"{len(found)} peer lines match {match}"
    (kv,) = found
    return float(kv.get("att_per_ns") or kv["real_events_per_s"])


def quotes_kpz_headline() -> list[Quote]:
    """The README's performance numbers: simcore's DTrDT and DTrDB on one H100 at L = 2^16
    (medians of 5 repeats), the published CudaKpz code in the same run on the same card,
    and DTr on the host's 16 cores."""
    rows = table("kpz_dd_headline_h100.csv")

    def median(scheme: str, p: str) -> float:
        vals = [float(r["attempts_per_ns"]) for r in rows if r["scheme"] == scheme and r["p"] == p]
        assert len(vals) == 5, f"{len(vals)} {scheme} p={p} rows"
        return statistics.median(vals)

    dt1, dt6, db1, db6 = (median("DTrDT", "1"), median("DTrDT", "0.6"),
                          median("DTrDB", "1"), median("DTrDB", "0.6"))  # fmt: skip
    pk1 = peers(code="cudakpz", path="mcs", L="65536")
    pk6 = peers(code="cudakpz", path="mcsPQ", L="65536", p="0.6")
    cpu = statistics.median(float(r["attempts_per_ns"]) for r in table("kpz_dd_cpu16_xeon.csv"))
    return [
        Quote(README, f"DTrDT {dt1:.1f} for p = 1, q = 0 and {dt6:.1f} for p = 0.6, q = 0.3; "
              f"DTrDB {db1:.1f} and {db6:.1f}", "GPU speeds"),
        Quote(README, f"in the same run on the same card: {pk1:.1f} and {pk6:.1f}", "CudaKpz"),
        Quote(README, f"DTrDT runs {dt1 / pk1:.2f}x and {dt6 / pk6:.2f}x its speed, DTrDB "
              f"{db1 / pk1:.2f}x and {db6 / pk6:.2f}x", "ratios to CudaKpz"),
        Quote(README, f"16 Xeon cores of the same host: {cpu:.2f} attempts/ns", "CPU DTr"),
    ]  # fmt: skip


def quotes_cpu() -> list[Quote]:
    """The README's CPU speeds on the 2-core development VM: the random-sequential KPZ
    kernel on one core (median and range of 5 repeats) and kmc2d's default CPU jobs on both
    cores, per core and against serial BKL on one core."""

    def seq(L: str) -> str:
        v = [float(r["attempts_per_ns"]) for r in table("kpz_sequential_vm.csv") if r["L"] == L]
        return f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f}) attempts/ns"

    both = [r for r in table("kmc2d_cpu_vm.csv") if r["how"] == "threads" and r["threads"] == "2"]
    per_core = [float(r["events_per_s_per_thread"]) for r in both]
    vs_bkl = [float(r["per_thread_vs_bkl_1"]) for r in both]
    return [
        Quote(README, f"{seq('4096')} at L = 2^12 in 2D", "sequential, 2^12"),
        Quote(README, f"{seq('16384')} at L = 2^14", "sequential, 2^14"),
        Quote(README, f"{sci(min(per_core))}-{sci(max(per_core))} real events/s per core with "
              f"both cores, {min(vs_bkl):.2f}-{max(vs_bkl):.2f} of serial BKL on one core",
              "kmc2d CPU"),
    ]  # fmt: skip


def quotes_kmc2d() -> list[Quote]:
    """darkins2024 Fig. 3 on an H100 at the paper's 10^3 events per cell, tiles of 8: real
    events/s and the speed-up over serial BKL on one core of the host at the largest n
    measured for each phi; the step densities the GPU's relaxation reached; the published
    kmc-gpu code at n = 4096, phi = 0 in the same call."""
    rows = table("kmc2d_fig3_h100_1e3.csv")
    by = {(int(r["n"]), int(r["phi"])): r for r in rows}
    parts = []
    for phi in (0, 1, 2, 3):
        n = max(n for n, f in by if f == phi)
        r = by[(n, phi)]
        parts.append(f"phi = {phi}: {sci(float(r['events_per_s']))} at n = {n} "
                     f"({float(r['speedup']):.0f} times BKL)")  # fmt: skip
    dens = " / ".join(f"{float(by[(1024, phi)]['step_density']):.2f}" for phi in (0, 1, 2, 3))
    ours = float(by[(4096, 0)]["events_per_s"])
    peer = peers(code="kmcgpu", mode="gpu", n="4096", phi="0")
    text = "; ".join(parts)
    return [
        Quote(README, text, "kmc2d Fig. 3 row and Performance"),
        Quote(README, f"step densities of the relaxed n = 1024 surfaces {dens}", "Fig. 3 relaxed"),
        Quote(README, f"the published kmc-gpu code on the same card: {sci(peer)} at n = 4096, "
              f"phi = 0, {ours / peer:.0f} times slower", "kmc-gpu"),
    ]  # fmt: skip


def quotes_kmc2d_timestep() -> list[Quote]:
    """darkins2024 Fig. 2 (CPU twin, n = 64, phi = 1): how dt grows between rejections, how
    a rejection cuts it, and how often one comes once dt has settled (from the first six
    growth steps in a row on)."""
    rows = table("kmc2d_timestep_cpu.csv")
    dt = np.array([float(r["dt"]) for r in rows])
    rejected = np.array([int(r["step"]) for r in rows if r["accepted"] == "0"])
    factor = np.round(dt[1:] / dt[:-1], 4)
    grow = float(np.median(factor[(factor > 1) & (factor < 2)]))
    cut = float(np.median(factor[factor < 1]))
    settled = next(i for i in range(factor.size) if np.all(factor[i : i + 6] == grow))
    later = rejected[rejected > settled]
    every = (later[-1] - later[0]) / (later.size - 1)
    halved = {0.5: "halved"}[cut]
    return [
        Quote(README, f"dt grows by {grow:g} until it crosses the zone, is rejected and "
              f"{halved}, about once in {every:.0f} steps", "Fig. 2 row"),
        Quote(README, f"about 1 step in {every:.0f} rejected once dt settles", "validation row"),
    ]  # fmt: skip


def quotes_kmc2d_surfaces() -> list[Quote]:
    """darkins2024 Fig. 3's surfaces (serial integrator, 10^3 events per cell): the step
    density of each phi's surface, by the model's own definition."""
    from simcore.models.kmc2d.simulation import step_density

    rows = table("kmc2d_surfaces_cpu.csv")
    dens = []
    for phi in sorted({float(r["phi"]) for r in rows}):
        cells = [r for r in rows if float(r["phi"]) == phi]
        n = int(cells[0]["n"])
        x = np.zeros((n, n), dtype=np.int64)
        for r in cells:
            x[int(r["row"]), int(r["col"])] = int(r["height"])
        dens.append(f"{step_density(x):.2f}")
    return [Quote(README, f"step densities {' / '.join(dens)}", "Fig. 3 surfaces")]


def quotes_run_hashes() -> list[Quote]:
    """The validation row of the model-interface redesign: how many data variables of the
    four CPU campaigns docs/data/run_hashes_cpu.json holds (every one was identical when
    the row was written; tests/test_kpz_snapshot.py reruns block 0 of one point against
    its four hashes in CI)."""
    import json

    n = len(json.loads((DATA / "run_hashes_cpu.json").read_text()))
    return [Quote(README, f"| {n} of {n} identical |", "run hashes")]


# ------------------------------------------------------------------ campaign data


def analyses(campaign: str, pattern: str = "*") -> dict[str, xr.Dataset]:
    """The published analyses of ``campaign`` whose point matches ``pattern``, by point."""
    paths = sorted((DATA / campaign / "analysis").glob(f"{pattern}.nc"))
    assert paths, f"no published analyses docs/data/{campaign}/analysis/{pattern}.nc"
    return {p.stem: xr.load_dataset(p) for p in paths}


def one(found: dict[str, xr.Dataset], part: str) -> xr.Dataset:
    """The one analysis whose point name contains ``part``."""
    hits = [ds for name, ds in found.items() if part in name]
    assert len(hits) == 1, f"{len(hits)} analyses match {part!r}: {sorted(found)}"
    return hits[0]


def e5(lo: float, hi: float) -> str:
    """A range of small numbers in units of 1e-5, as the Fig. 3 texts write them."""
    return f"{lo / 1e-5:.1f}-{hi / 1e-5:.1f}e-5"


def quotes_papers_fig3() -> list[Quote]:
    """kelling2017 Fig. 3 at L = 2^10 (config/papers.yaml): C_s averaged over t/s = 10..30
    at s = 100, and the noise at t/s > 30 (analysis.kelling2017_corr.noise_table)."""
    from analysis.kelling2017_corr import noise_table

    found = {n: d for n, d in analyses("papers", "kpz_d2_L1024_*").items() if "_snap" not in n}
    means, errs = {}, {}
    for name, ds in found.items():
        k = int(np.flatnonzero(ds["s"].values == 100.0)[0])
        ratio = ds["t"].values / 100.0
        inside = (ratio >= 10) & (ratio <= 30)
        means[name] = float(ds["C_s_mean"].isel(s=k).values[inside].mean())
        errs[name] = ds["C_s_err"].isel(s=k).values[inside]
    key = {n: n.split("_p1_q0_")[1] for n in found}
    by = {key[n]: n for n in found}
    cdb, dtr, seq = by["cDBDT_gpu_D64x64_tc1-1"], by["DTrDT_gpu_D64x64_tc1-1"], by["sequential_cpu"]
    dt = by["DTDT_gpu_D64x64_tc1-1"]

    def span(name: str) -> str:
        return e5(errs[name].min(), errs[name].max())

    fig3b = (f"cDB levels off at C_s = {sci(means[cdb])} (errors of single points {span(cdb)}), "
             f"while DTr ({sci(means[dtr])}, errors {span(dtr)}) and the sequential reference "
             f"({sci(means[seq])}, errors {span(seq)}) are zero within their errors")  # fmt: skip
    dt_text = f"DT with a fixed origin gives {sci(means[dt])} (errors {span(dt)})"
    rows = {r["label"].split(",")[0] + (f" {r['t_async']:g}" if r["scheme"] == "DBDT" else ""): r
            for r in noise_table(list(found.values()), 100, 30)}  # fmt: skip
    noise = (f"the noise a zero signal would give, the rms of the errors over the "
             f"{rows['sequential']['n_times']} times with t/s > 30: sequential "
             f"{sci(rows['sequential']['expected'])}, DTr {sci(rows['DTrDT']['expected'])}, "
             f"DT {sci(rows['DTDT']['expected'])}, DB with t_async 0.5 "
             f"{sci(rows['DBDT 0.5']['expected'])} and with t_async 1 "
             f"{sci(rows['DBDT 1']['expected'])}")  # fmt: skip
    cdb_noise = (f"cDB's C_s has an rms of {sci(rows['cDBDT']['rms'])} there, "
                 f"{rows['cDBDT']['ratio']:.1f} times its noise")  # fmt: skip
    return [
        Quote(README, fig3b, "Fig. 3(b) means"),
        Quote(README, dt_text, "Fig. 3(b), DT"),
        Quote(README, noise, "Fig. 3(b) noise"),
        Quote(README, cdb_noise, "cDB plateau"),
    ]


def quotes_papers_fig6() -> list[Quote]:
    """kelling2017 Fig. 6 at L = 2^12 (config/papers.yaml): beta_eff averaged over its
    values at t > 1000 per configuration, the range over the configurations."""
    averages, errors = [], []
    for ds in analyses("papers", "kpz_d2_L4096_*").values():
        late = ds["t_eff"].values > 1000
        averages.append(float(ds["beta_eff"].values[late].mean()))
        errors.append(float(np.sqrt((ds["beta_eff_err"].values[late] ** 2).sum()) / late.sum()))
    text = (f"{min(averages):.4f}-{max(averages):.4f} averaged over t > 1000, errors of the "
            f"averages {min(errors):.4f}-{max(errors):.4f}")  # fmt: skip
    return [Quote(README, text, "Fig. 6 at L = 2^12")]


def quotes_kelling2017_scale() -> list[Quote]:
    """kelling2017 at the paper's time scale (config/kelling2017_scale.yaml): the fit table
    of analysis.kpz_betafit, beta_eff at the last time and its errors, and Fig. 5(b)'s local
    slopes lambda_h/z at s = 100."""
    from analysis.kpz_betafit import beta_table
    from analysis.plotting import value_error_text as vet

    paths = sorted((DATA / "kelling2017_scale" / "analysis").glob("*.nc"))
    lines = beta_table(paths).splitlines()[2:]
    out = [Quote(README, line, "betafit table row") for line in lines]
    main = {ln.split(",")[0].strip("| "): ln.split(" | ")[3] for ln in lines if "[100," in ln}
    out.append(Quote(README, f"DTrDB gives beta = {main['DTrDB']} and DTrDT {main['DTrDT']}",
                     "the fits over t >= 100"))  # fmt: skip
    out.append(Quote(README, f"| {main['DTrDB']} / {main['DTrDT']} vs 0.2415(15)",
                     "validation row of the fits"))  # fmt: skip
    found = analyses("kelling2017_scale")
    db, dt = one(found, "DTrDB"), one(found, "DTrDT")
    last = (f"reaches {vet(db['beta_eff'].values[-1], db['beta_eff_err'].values[-1])} (DTrDB) "
            f"and {vet(dt['beta_eff'].values[-1], dt['beta_eff_err'].values[-1])} (DTrDT) at "
            f"t = {db['t_eff'].values[-1]:.0f}")  # fmt: skip
    out.append(Quote(README, last, "beta_eff at the last time"))
    late = db["t_eff"].values > 1000

    def errs(ds: xr.Dataset) -> str:
        return ", ".join(f"{e / 1e-3:.2f}" for e in ds["beta_eff_err"].values[late])

    times = ", ".join(f"{t:.0f}" for t in db["t_eff"].values[late])
    out.append(Quote(README, f"DTrDB {errs(db)}e-3; DTrDT {errs(dt)}e-3 (t = {times})",
                     "beta_eff errors at t > 1000"))  # fmt: skip

    def slopes(ds: xr.Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        at = ds["lambda_h_s"].values == 100.0
        return (ds["lambda_h_over_z_eff"].values[at], ds["lambda_h_over_z_eff_err"].values[at],
                ds["lambda_h_t_over_s"].values[at])  # fmt: skip

    v, e, mid = slopes(db)
    first = ", ".join(vet(a, b) for a, b in zip(v[:4], e[:4], strict=True))
    where = ", ".join(f"{m:.2g}" for m in mid[:4])
    out.append(Quote(README, f"DTrDB, s = 100: {first} at t/s = {where}", "Fig. 5(b) slopes"))
    v2, e2, _ = slopes(dt)
    diff = v[:3] - v2[:3]
    sig = diff / np.hypot(e[:3], e2[:3])
    out.append(Quote(README, "DTrDT lies below DTrDB at s = 100 by "
                     + ", ".join(f"{d:.3f}" for d in diff[:2]) + f" and {diff[2]:.3f} ("
                     + ", ".join(f"{z:.2g}" for z in sig[:2]) + f" and {sig[2]:.2g} errors)",
                     "Fig. 5(b): DTrDT against DTrDB"))  # fmt: skip
    return out


def quotes_kpz_dbs_paired() -> list[Quote]:
    """Snapshot hits (DTrDBs) against DTrDB on the same random numbers (docs/data/
    kpz_dbs_paired, CPU, L = 512): the paired relative difference of W2 up to t = 42, where
    it is resolved, and how far from 0 it and C_h(t, 100) lie after."""
    import warnings

    from analysis.kpz_paired import paired_differences

    ref, other = (xr.load_dataset(DATA / "kpz_dbs_paired" / f"{s}.nc") for s in ("DTrDB", "DTrDBs"))
    t = ref["t"].values
    w = paired_differences(ref, other, "W2")
    c = paired_differences(ref, other, "C_h")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # C_h is NaN before s
        z, cz = w["rel"] / w["rel_err"], c["rel"][0] / c["rel_err"][0]
    early, late = (t > 0) & (t <= 42), t >= 56
    rel, zs = 100 * w["rel"][early], np.abs(z[early])
    text = (f"W2(DTrDBs) / W2(DTrDB) - 1 is {rel.max():.3f} to {rel.min():.3f} % at t = 1-42 "
            f"({zs.min():.1f}-{zs.max():.1f} paired errors), within "
            f"{np.abs(z[late]).max():.1f} errors at t = 56-1000 (errors "
            f"{100 * w['rel_err'][late].min():.2f}-{100 * w['rel_err'][late].max():.2f} %), and "
            f"C_h(t, 100) within {np.nanmax(np.abs(cz[t > 100])):.1f} errors")  # fmt: skip
    single = 100 * w["mean_err"][early] / w["mean"][early]
    alone = (f"the relative error of W2 of either run alone is {single.min():.2f}-"
             f"{single.max():.2f} % at t = 1-42")  # fmt: skip
    return [Quote("BENCHMARKS.md", text, "DBs against DB, paired"),
            Quote("BENCHMARKS.md", alone, "DTrDB's own error of W2")]  # fmt: skip


def quotes_round4() -> list[Quote]:
    """BENCHMARKS.md "Round 4 results": the same-run A/B of the DD kernels with the published
    code beside them, the ncu instruction counts, the DBs tuning run, the kmc2d list start
    A/B (docs/data/bench/round4_h100), and DTrDBs against DTrDB on the same random numbers
    at L = 2^13 (docs/data/kpz_dbs_paired_gpu)."""
    from analysis.kpz_beta_compare import compare_table
    from analysis.kpz_paired import paired_table

    r4 = "round4_h100"
    out: list[Quote] = []

    def medians(name: str, key: Callable[[dict[str, str]], tuple], value: str) -> dict:
        return {k: m for k, (m, _) in bench_medians(f"{r4}/{name}", key, value).items()}

    def dd(row: dict[str, str]) -> tuple:
        return row["scheme"], row["p"]

    a, b = (medians(f"kpz_dd_{v}.csv", dd, "attempts_per_ns") for v in "AB")
    peer = {p: statistics.median(float(kv["att_per_ns"]) for kv in
                                 peer_lines(f"{r4}/peers_kpz.log", code="cudakpz", path=path))
            for p, path in (("1", "mcs"), ("0.6", "mcsPQ"))}  # fmt: skip
    pq = {"1": "1, 0", "0.6": "0.6, 0.3"}
    for scheme, p in (("DTrDT", "1"), ("DTrDT", "0.6"), ("DTrDB", "1"), ("DTrDB", "0.6")):
        x, y = a[scheme, p], b[scheme, p]
        out.append(
            Quote(
                "BENCHMARKS.md",
                f"| {scheme} | {pq[p]} | {x:.1f} | {y:.1f} | "
                f"{y / x:.2f}x | {peer[p]:.1f} | {y / peer[p]:.2f}x |",
                "dd A/B row",
            )
        )
    s1 = b["DTrDBs", "1"]
    s22 = medians("kpz_dd_B_tc22.csv", dd, "attempts_per_ns")["DTrDBs", "1"]
    out += [
        Quote("BENCHMARKS.md", f"| DTrDBs | 1, 0 | - | {s1:.1f} | - | {peer['1']:.1f} | "
                               f"{s1 / peer['1']:.2f}x |", "DTrDBs row"),
        Quote("BENCHMARKS.md", f"| {s22:.1f} (5 repeats) | - | {peer['1']:.1f} | "
                               f"{s22 / peer['1']:.2f}x |", "DTrDBs TC 2,2 row"),
    ]  # fmt: skip

    def ncu(scheme: str, metric: str) -> float:
        text = (DATA / "bench" / r4 / f"ncu_{scheme}.txt").read_text()
        return float(re.search(rf"{re.escape(metric)}\s+\S+\s+([\d,.]+)", text)[1].replace(",", ""))

    hits = 2**25  # warp hits in one launch: L^2 / 4 attempts, 32 per warp, L = 2^16
    inst = {k: ncu(k, "smsp__inst_executed.sum") for k in ("DTrDB", "DTrDBs")}
    cyc = {k: ncu(k, "sm__cycles_elapsed.avg") for k in ("DTrDB", "DTrDBs")}
    out += [
        Quote("BENCHMARKS.md", f"measured {s1:.1f}, with {inst['DTrDBs'] / hits:.1f} warp "
                               "instructions per hit", "DBs instructions per hit"),
        Quote("BENCHMARKS.md", f"{inst['DTrDBs']:,.0f} instructions, against DTrDB's "
                               f"{inst['DTrDB']:,.0f}, {inst['DTrDB'] / hits:.1f} per hit",
              "ncu instruction counts"),
        Quote("BENCHMARKS.md", f"{cyc['DTrDBs'] / 1e6:.2f} M cycles against "
                               f"{cyc['DTrDB'] / 1e6:.2f} M, {cyc['DTrDB'] / cyc['DTrDBs']:.2f}x, "
                               f"as the speeds ({s1:.1f} / {b['DTrDB', '1']:.1f} = "
                               f"{s1 / b['DTrDB', '1']:.2f}x)", "ncu cycles"),
    ]  # fmt: skip
    tuning: dict[str, list[float]] = {}
    for line in (DATA / "bench" / r4 / "dbs_tuning.txt").read_text().splitlines():
        m = re.match(r"round \d (DTr\w+) (domain=\d+ cpt=\d)\s+(.*?)\s+([\d.]+) att/ns", line)
        tuning.setdefault(" ".join(m.groups()[:3]).strip(), []).append(float(m[4]))

    def span(variant: str) -> str:
        v = tuning[variant]
        return f"{min(v):.1f}-{max(v):.1f}"

    out.append(Quote("BENCHMARKS.md",
        f"{span('DTrDBs domain=128 cpt=1')} against "
        f"{span('DTrDBs domain=128 cpt=1 -DSNAP_UNCOND=0')}, "
        f"so it is the default (`SNAP_UNCOND`, the same lattice). Two cells per thread: "
        f"{span('DTrDBs domain=128 cpt=2')} against {span('DTrDBs domain=128 cpt=1')} with one",
        "the DBs tuning run"))  # fmt: skip
    out.append(Quote("BENCHMARKS.md",
        f"Domains of 64: {span('DTrDBs domain=64 cpt=1')} (one cell per thread), "
        f"{span('DTrDBs domain=64 cpt=2')} (two); a register budget for 8 blocks per SM: "
        f"{span('DTrDBs domain=128 cpt=1 -DMINB=8')}", "the other DBs variants"))  # fmt: skip

    out.append(
        Quote(
            README,
            f"{s1:.1f} with one cell per thread and {s22:.1f} at TC = 2,2",
            "DTrDBs of the round-4 call in the README",
        )
    )
    out.append(Quote("BENCHMARKS.md", f"{s1:.1f} against {peer['1']:.1f} with one cell per "
                                      "thread", "DTrDBs at the top"))  # fmt: skip
    dt1 = b["DTrDT", "1"]
    out.append(Quote(f"{REPRO}/kelling2017.md", f"runs {s1:.1f} attempts/ns against DTrDT's "
                     f"{dt1:.1f} in the same run on one H100: {100 * (1 - s1 / dt1):.0f} % slower",
                     "DTrDBs against DTrDT, Fig. 7 row"))  # fmt: skip

    def kmc(row: dict[str, str]) -> tuple:
        return int(row["n"]), int(row["phi"])

    ka, kb = (medians(f"kmc2d_{v}.csv", kmc, "events_per_s") for v in "AB")
    out += [Quote("BENCHMARKS.md", f"| {n} | {phi} | {sci(ka[n, phi], 2)} | {sci(kb[n, phi], 2)} | "
                                   f"{kb[n, phi] / ka[n, phi]:.2f}x |", "kmc2d A/B row")
            for n, phi in sorted(ka)]  # fmt: skip

    pair = DATA / "kpz_dbs_paired_gpu"
    out += [
        Quote("BENCHMARKS.md", line, "paired table row")
        for line in paired_table([pair / "DTrDB.nc", pair / "DTrDBs.nc"]).splitlines()[2:]
    ]
    compare = compare_table([pair / "analysis" / "DTrDB.nc", pair / "analysis" / "DTrDBs.nc"])
    out += [Quote("BENCHMARKS.md", line, "beta_eff compare row")
            for line in compare.splitlines()[2:]]  # fmt: skip
    an = {s: xr.load_dataset(pair / "analysis" / f"{s}.nc") for s in ("DTrDB", "DTrDBs")}
    diff = an["DTrDBs"]["beta_eff"].values - an["DTrDB"]["beta_eff"].values
    errs = np.hypot(an["DTrDBs"]["beta_eff_err"].values, an["DTrDB"]["beta_eff_err"].values)
    t_eff = an["DTrDB"]["t_eff"].values

    def largest(i: np.intp) -> str:
        mant, expo = f"{abs(diff[i]):.0e}".split("e")
        return f"{abs(diff[i]) / errs[i]:.1f} errors at t = {t_eff[i]:.2g} ({mant}e{int(expo)})"

    at = an["DTrDB"]["lambda_h_s"].values == 100.0
    lam = [an[s]["lambda_h_over_z_eff" + e].values[at] for s in an for e in ("", "_err")]
    z = np.abs(lam[2] - lam[0]) / np.hypot(lam[1], lam[3])
    ts = an["DTrDB"]["lambda_h_t_over_s"].values[at]
    out.append(Quote("BENCHMARKS.md",
        f"The largest beta_eff difference in errors is {largest(np.argmax(np.abs(diff) / errs))}; "
        f"the largest in value {largest(np.argmax(np.abs(diff)))}. lambda_h/z at s = 100 "
        f"differs by at most {z.max():.1f} errors at t/s = {ts.min():.2g}-{ts.max():.2g}",
        "beta_eff and Fig. 5(b) of DBs against DB"))  # fmt: skip
    walls = {s: [float(xr.open_dataset(f).attrs["wall_seconds"])
                 for f in sorted((pair / "runs").glob(f"{s}_b*.nc"))]
             for s in ("DTrDB", "DTrDBs")}  # fmt: skip
    out.append(Quote("BENCHMARKS.md",
        f"samples took {min(walls['DTrDB']):.1f}-{max(walls['DTrDB']):.1f} s with DTrDB and "
        f"{min(walls['DTrDBs']):.1f}-{max(walls['DTrDBs']):.1f} s with DTrDBs",
        "run times"))  # fmt: skip
    return out


def quotes_round4_x2() -> list[Quote]:
    """BENCHMARKS.md "Round 4 against the round-3 baseline" and "EA3D on two H100s, round
    3": the same-run A/B of the headline kernels against 20fae06, DTrDBs at its default
    beside the published code, and the EA3D multi-GPU schedules and eta
    (docs/data/bench/round4_h100x2)."""
    r4 = "round4_h100x2"

    def medians(name: str, key: Callable[[dict[str, str]], tuple], value: str) -> dict:
        return bench_medians(f"{r4}/{name}", key, value)

    out: list[Quote] = []
    kernels = {
        "dd": (
            lambda r: (r["scheme"], "p, q = " + {"1": "1, 0"}.get(r["p"], "0.6, 0.3")),
            "attempts_per_ns",
            "{:.1f}",
        ),
        "ea3d": (lambda r: (f"L = {r['L']}, ps per flip",), "ps_per_flip", "{:.4f}"),
        "kmc2d": (lambda r: (f"n = {r['n']}, phi = {r['phi']}",), "events_per_s", "sci"),
        "fcc": (lambda r: (r["implementation"],), "attempts_per_s", "sci"),
    }
    for kernel, (key, value, fmt) in kernels.items():
        a, b = (medians(f"ab_{kernel}_{v}.csv", key, value) for v in "AB")
        for g in sorted(a):
            if g not in b or (kernel == "fcc" and not g[0].startswith("GPU")):
                continue
            (x, na), (y, nb) = a[g], b[g]
            f = (lambda v: sci(v, 2)) if fmt == "sci" else fmt.format
            out.append(
                Quote(
                    "BENCHMARKS.md",
                    f"| {kernel} | {', '.join(g)} | {f(x)} | {f(y)} | {y / x:.3f} | {na}, {nb} |",
                    "A/B row",
                )
            )
    dd = medians("kpz_dd_dbs.csv", lambda r: (r["scheme"],), "attempts_per_ns")
    peer = statistics.median(
        float(kv["att_per_ns"])
        for kv in peer_lines(f"{r4}/peers_kpz.log", code="cudakpz", path="mcs")
    )
    s, t, d = dd["DTrDBs",][0], dd["DTrDT",][0], dd["DTrDB",][0]
    out.append(
        Quote(
            "BENCHMARKS.md",
            f"DTrDBs {s:.1f}, DTrDT {t:.1f}, DTrDB {d:.1f} attempts/ns (medians of "
            f"{dd['DTrDBs',][1]}), CudaKpz {peer:.1f}: DTrDBs is {s / peer:.2f}x the published "
            f"code and {100 * (1 - s / t):.0f} % slower than DTrDT",
            "DTrDBs at its default",
        )
    )
    top = (
        f"DTrDBs (snapshot hits, its own lattice and twin) runs {s:.1f} attempts/ns against "
        f"CudaKpz's {peer:.1f} in a later same-run measurement on one H100 of a 2-GPU host, "
        f"{s / peer:.2f}x"
    )
    out += [
        Quote(README, top, "DTrDBs in the README"),
        Quote("BENCHMARKS.md", top, "DTrDBs at the top of BENCHMARKS"),
    ]

    def sweep(name: str) -> dict[int, tuple[float, int]]:
        return {
            k[0]: (v * 1e3, n)
            for k, (v, n) in medians(name, lambda r: (int(r["L"]),), "seconds_per_sweep").items()
        }

    rows = [
        ("round 2 (A)", "ae0f47a", "mgpu_split_A.csv"),
        ("split", "61a56a4", "mgpu_split_B.csv"),
        ("round 2 (A)", "ae0f47a", "mgpu_variants_A.csv"),
        ("one count node per graph", "d4d4fd3", "mgpu_variants_B0.csv"),
        ("split, one count node per graph", "d4d4fd3", "mgpu_variants_B1.csv"),
        ("round 2 (A)", "ae0f47a", "mgpu_final_A.csv"),
        ("final: one count node per graph", "56fb5e2", "mgpu_final_B.csv"),
    ]
    for label, commit, name in rows:
        m = sweep(name)
        out.append(
            Quote(
                "BENCHMARKS.md",
                f"| {label} | {commit} | "
                + " | ".join(f"{m[L][0]:.4f}" for L in (128, 256, 512))
                + f" | {m[128][1]} |",
                "schedule row",
            )
        )
    grid = {g: sweep(f"mgpu_grid_g{g}.csv") for g in (0, 4, 8, 16)}
    out.append(
        Quote(
            "BENCHMARKS.md",
            ", ".join(
                f"{f'{g} per SM' if g else 'full grid'} "
                f"{grid[g][128][0]:.4f} / {grid[g][256][0]:.4f}"
                for g in (0, 4, 8, 16)
            )
            + " ms at L = 128 / 256",
            "grid caps",
        )
    )
    ps = medians("mgpu_bench_final.csv", lambda r: (int(r["L"]), int(r["n_gpus"])), "ps_per_flip_n")
    out += [
        Quote(
            "BENCHMARKS.md",
            f"| {L} | {ps[L, 1][0]:.4f} | {ps[L, 2][0]:.4f} | {ps[L, 1][0] / ps[L, 2][0]:.2f} |",
            "eta row",
        )
        for L in (128, 256, 512)
    ]
    flips = 64 * 4 * 128**3
    t1 = ps[128, 1][0] * flips * 1e-9  # ms per sweep of one GPU
    a_final, b_final = sweep("mgpu_final_A.csv")[128][0], sweep("mgpu_final_B.csv")[128][0]
    eta_ab = ps[128, 1][0] / (b_final * 1e-3 * 2 / flips * 1e12)
    out += [
        Quote(
            "BENCHMARKS.md",
            f"One H100's sweep at L = 128 (k = 1) takes {t1:.4f} ms (psFlip_1 "
            f"{ps[128, 1][0]:.4f} ps",
            "floor",
        ),
        Quote(
            "BENCHMARKS.md",
            f"each of 2 GPUs has {t1 / 2:.4f} ms of kernels per sweep",
            "floor per GPU",
        ),
        Quote(
            "BENCHMARKS.md",
            f"eta 0.85 allows {t1 / 2 / 0.85:.4f} ms per sweep, "
            f"{(t1 / 2 / 0.85 - t1 / 2) * 500:.1f} us per colour",
            "allowance",
        ),
        Quote(
            "BENCHMARKS.md",
            f"graph schedule measured {a_final:.4f} ms (A below): "
            f"{(a_final - t1 / 2) * 500:.1f} us per colour",
            "A's overhead",
        ),
        Quote(
            "BENCHMARKS.md",
            f"B's {b_final:.4f} ms per sweep at L = 128 gives eta {eta_ab:.2f}",
            "eta over the A/B",
        ),
        Quote(
            "BENCHMARKS.md",
            f"about {(b_final - t1 / 2) * 500:.1f} us per colour over the kernels",
            "what is left",
        ),
    ]
    eta = (
        f"eta = {ps[128, 1][0] / ps[128, 2][0]:.2f} at L = 128, "
        f"{ps[256, 1][0] / ps[256, 2][0]:.2f} at 256 and "
        f"{ps[512, 1][0] / ps[512, 2][0]:.2f} at 512 with the graph schedule"
    )
    out += [Quote(f"{REPRO}/lulli2015.md", eta, "EA3D eta, round 3")]
    return out


def quotes_round4_ea3d_fused() -> list[Quote]:
    """BENCHMARKS.md "EA3D on two H100s, round 4": one kernel per colour against the graph
    schedule and one GPU in one call, blue's plane order, and eta of the final code
    (docs/data/bench/round4_ea3d_fused)."""
    r4 = "round4_ea3d_fused"

    def med(name: str, value: str) -> dict[int, float]:
        key = lambda r: (int(r["L"]),)  # noqa: E731
        return {k[0]: m for k, (m, _) in bench_medians(f"{r4}/{name}", key, value).items()}

    ms = {v: {L: x * 1e3 for L, x in med(f"ab_{v}.csv", "seconds_per_sweep").items()}
          for v in ("one", "graph", "fused")}  # fmt: skip
    ps = {v: med(f"ab_{v}.csv", "ps_per_flip_n") for v in ("one", "graph", "fused")}
    out = []
    for L in (128, 256, 512):
        cells = " | ".join(
            f"{ms[v][L]:.4f} ms, {ps[v][L]:.4f} ps" for v in ("one", "graph", "fused")
        )
        eg, ef = ps["one"][L] / ps["graph"][L], ps["one"][L] / ps["fused"][L]
        out.append(f"| {L} | {cells} | {ms['fused'][L] / ms['graph'][L]:.3f} | {eg:.2f} | "
                   f"{ef:.2f} |")  # fmt: skip
    t1 = ms["one"][128] / 2
    out += [
        f"L = 128: {ms['fused'][128]:.4f} ms per sweep, "
        f"{(ms['fused'][128] - t1) * 500:.1f} us per colour over the kernels",
        f"({t1:.4f} ms of kernels per GPU in this run)",
        f"eta {ps['one'][128] / ps['fused'][128]:.2f} (target 0.85)",
        f"fused is {100 * (ms['fused'][512] / ms['graph'][512] - 1):.1f} % slower",
    ]
    rev, mem = (med(f"order_{v}.csv", "seconds_per_sweep") for v in ("reverse", "memory"))
    out.append(f"{mem[512] * 1e3:.4f} against {rev[512] * 1e3:.4f} ms at L = 512, but "
               f"{mem[128] * 1e3:.4f} against {rev[128] * 1e3:.4f} ms at L = 128")  # fmt: skip
    rows = table(f"{r4}/mgpu_bench_auto.csv")
    fin = bench_medians(f"{r4}/mgpu_bench_auto.csv",
                        lambda r: (int(r["L"]), int(r["n_gpus"])), "ps_per_flip_n")  # fmt: skip
    eta = {L: fin[L, 1][0] / fin[L, 2][0] for L in (128, 256, 512)}
    out.append(f"eta {eta[128]:.2f} at L = 128, {eta[256]:.2f} at 256 and {eta[512]:.2f} at 512 "
               f"(psFlip_2 " + ", ".join(f"{fin[L, 2][0]:.4f}" for L in (128, 256, 512))
               + " ps)")  # fmt: skip

    def spread(name: str) -> str:
        # the repeats of L = 128 on 2 GPUs without the first of each run (graph capture)
        v, run = [], table(f"{r4}/{name}")
        for i, r in enumerate(run):
            first = i == 0 or run[i - 1]["L"] != r["L"] or run[i - 1]["n_gpus"] != r["n_gpus"]
            if r["L"] == "128" and r["n_gpus"] == "2" and not first:
                v.append(float(r["ps_per_flip_n"]))
        return f"{min(v):.3f}-{max(v):.3f}"

    out.append(f"L = 128's repeats ran {spread('mgpu_bench_auto.csv')} ps here against "
               f"{spread('ab_fused.csv')} in the A/B call")  # fmt: skip
    assert {r["exchange"] for r in rows if r["n_gpus"] == "2"} == {"ipc-fused", "ipc-graph"}
    quotes = [Quote("BENCHMARKS.md", t, "EA3D round 4") for t in out]
    readme = (f"eta = {eta[128]:.2f} at L = 128, {eta[256]:.2f} at 256 and {eta[512]:.2f} at "
              "512 on two H100s")  # fmt: skip
    quotes += [
        Quote(README, readme, "EA3D eta"),
        Quote(f"{REPRO}/lulli2015.md", readme, "EA3D eta"),
    ]
    return quotes


def quotes_kmc2d_halo() -> list[Quote]:
    """BENCHMARKS.md "Round 4 plan for kmc2d": the step length that each tile and halo
    allows (the CPU twin's largest accepted dt, docs/data/bench/kmc2d_halo_cpu.csv) and
    the prediction drawn from it with the round-3 phase table's block times."""
    groups: dict[tuple, list[float]] = {}
    for row in table("kmc2d_halo_cpu.csv"):
        if int(row["step"]) >= 10:  # the controller has settled
            key = (row["phi"], int(row["tile"]), int(row["halo"]))
            groups.setdefault(key, []).append(float(row["edge"]))
    edge = {k: statistics.median(v) for k, v in groups.items()}
    out = []
    for (phi, B, h), e in sorted(edge.items(), key=lambda kv: (kv[0][0], kv[0][1], -kv[0][2])):
        red, load = (B + 2 * h) ** 2 / B**2, (B + 2 * h + 2) ** 2 / B**2
        row = f"| {phi} | {B} | {h} | {e:.2f} | {red:.2f} | {load:.2f} |"
        out.append(Quote("BENCHMARKS.md", row, "halo table row"))
    big: dict[int, list[float]] = {}
    for row in table("kmc2d_halo_cpu_n512.csv"):
        if int(row["step"]) >= 10:
            big.setdefault(int(row["tile"]), []).append(float(row["edge"]))
    e8, e16 = statistics.median(big[8]), statistics.median(big[16])
    out.append(
        Quote(
            "BENCHMARKS.md",
            f"at n = 512 (phi = 2, halo 7, 30 steps) the median edges are "
            f"{e8:.2f} (tile 8) and {e16:.2f} (tile 16), {e16 / e8:.2f}x",
            "n = 512 check",
        )
    )
    # round 3's phase table, microseconds per live block (plan + setup + store, events)
    fixed_events = {"2": (1.5 + 6.9 + 1.7, 10.5), "3": (1.5 + 7.8 + 1.5, 8.4)}
    for phi, (fixed, ev) in fixed_events.items():
        ratio = edge[phi, 16, 7] / edge[phi, 8, 7]
        cost = fixed * (4 / 9) / ratio + ev * (3.52 / 7.56)
        out.append(Quote("BENCHMARKS.md",
            f"phi = {phi}: a step {ratio:.2f}x as long, {fixed:.1f} x 0.44 / {ratio:.2f} + "
            f"{ev:.1f} x 0.47 = {cost:.1f} us against {fixed + ev:.1f}, "
            f"{(fixed + ev) / cost:.1f}x", "prediction"))  # fmt: skip
    return out


def quotes_round4_kmc2d() -> list[Quote]:
    """BENCHMARKS.md "Round 4 for kmc2d": the tile kernel with tiles of 16 and a halo of 7
    against tiles of 8, before and after the batched load, and the final kernel against the
    round-3 kernel in one run (docs/data/bench/round4_kmc2d), with the phase profile."""
    r4 = "round4_kmc2d"

    def med(name: str) -> dict[str, tuple[float, int]]:
        found = bench_medians(f"{r4}/{name}", lambda r: (r["phi"],), "events_per_s")
        return {k[0]: v for k, v in found.items()}

    out = []
    u8, u16 = med("unbatched_h100_t8.csv"), med("unbatched_h100_t16h7.csv")
    h = [med(f"h200_{n}.csv") for n in ("A_t8", "B_t8", "B_t16h7", "B_t16h7_dpb2")]
    a, b, c = (med(f"ab_h100_{n}.csv") for n in ("A_t8", "B_t8", "B_t16h7"))
    fa, fb, fc = (med(f"final_h100_{n}.csv") for n in ("A_t8", "B_t8", "B_t16h7"))
    for phi in "0123":
        x, y = u8[phi][0], u16[phi][0]
        out.append(f"| {phi} | {sci(x, 2)} | {sci(y, 2)} | {y / x:.2f} |")
        ha, hb, hc, hd = (m[phi][0] for m in h)
        out.append(f"| {phi} | {sci(ha, 2)} | {sci(hb, 2)} | {hb / ha:.3f} | {sci(hc, 2)} "
                   f"| {hc / ha:.2f} | {sci(hd, 2)} | {hd / ha:.2f} |")  # fmt: skip
        (xa, na), (xb, nb), (xc, nc) = a[phi], b[phi], c[phi]
        out.append(f"| {phi} | {sci(xa, 2)} | {sci(xb, 2)} | {xb / xa:.3f} | {sci(xc, 2)} "
                   f"| {xc / xa:.2f} | {na}, {nb}, {nc} |")  # fmt: skip
        (xa, na), (xb, nb), (xc, nc) = fa[phi], fb[phi], fc[phi]
        out.append(f"| {phi} | {sci(xa, 2)} | {sci(xb, 2)} | {xb / xa:.3f} | {sci(xc, 2)} "
                   f"| {xc / xa:.2f} | {na}, {nb}, {nc} |")  # fmt: skip
    quotes = [Quote("BENCHMARKS.md", t, "round-4 kmc2d table row") for t in out]
    # the headline: both targets, the phi = 3 repeats, the batch's gain across cards
    rows = {r["phi"]: r for r in table(f"{r4}/final_h100_B_t16h7.csv")}
    lo, hi = float(rows["3"]["events_per_s_min"]), float(rows["3"]["events_per_s_max"])
    t2, t3 = fc["2"][0], fc["3"][0]
    r2, r3 = t2 / fa["2"][0], t3 / fa["3"][0]
    b8 = [fb[phi][0] / fa[phi][0] for phi in "0123"]
    texts = [
        f"phi = 2: {sci(t2, 2)} with tiles of 16 and a halo of 7, above 8.8e7 "
        f"({r2:.2f}x the round-3 kernel",
        f"phi = 3: {sci(t3, 2)}, above 2.8e7 by {100 * (t3 / 2.8e7 - 1):.0f} % (its 3 repeats "
        f"{sci(lo, 2)}-{sci(hi, 2)}; {sci(h[2]['3'][0], 2)} on the H200)",
        f"({h[2]['2'][0] / u16['2'][0]:.2f}x over the first build, on another card)",
    ]
    quotes += [Quote("BENCHMARKS.md", t, "round-4 kmc2d result") for t in texts]
    # the phase profile: setup per live block and resident blocks, tiles of 8 and 16
    tables, cur = [], None
    for line in (DATA / "bench" / r4 / "phases_h100_f103aa4.txt").read_text().splitlines():
        if line.startswith("phi "):
            cur = {"cols": line.split(), "rows": {}}
            tables.append(cur)
        elif cur and line.strip() and not line.startswith("#"):
            vals = line.split()
            cur["rows"][vals[0]] = dict(zip(cur["cols"], map(float, vals), strict=True))
    t8, t16 = (t["rows"] for t in tables)
    setup = lambda rows: [rows[p]["setup"] / 1e3 for p in rows]  # noqa: E731
    res = lambda rows: statistics.mean(rows[p]["resident"] for p in rows)  # noqa: E731
    text = (f"the setup of a block took {min(setup(t16)):.0f}-{max(setup(t16)):.0f} us against "
            f"{min(setup(t8)):.1f}-{max(setup(t8)):.1f} us for tiles of 8, and half as many "
            f"blocks were resident ({res(t16):.1f} against {res(t8):.1f} per SM")  # fmt: skip
    quotes.append(Quote("BENCHMARKS.md", text, "round-4 kmc2d phases"))
    texts.append(f"(B / A {min(b8):.3f}-{max(b8):.3f}, as predicted)")
    quotes += [Quote("BENCHMARKS.md", t, "round-4 kmc2d result") for t in texts[-1:]]
    readme = (f"run {sci(t2, 2)} and {sci(t3, 2)} real events/s, {r2:.2f}x and {r3:.2f}x the "
              "round-3 kernel's tiles of 8 in the same run on one H100 "
              "(docs/data/bench/round4_kmc2d); tiles of 8 stay the default, faster at "
              f"phi <= 1, and are the round-3 kernel's code, {min(b8):.3f}-{max(b8):.3f}x of "
              "it in that run")  # fmt: skip
    row = (f"tiles of 16 with a halo of 7 run phi = 2 and 3 at n = 4096 {r2:.2f}x "
           f"and {r3:.2f}x as fast as tiles of 8")  # fmt: skip
    quotes += [Quote(README, readme, "kmc2d tile 16 in the README"),
               Quote(README, row, "kmc2d tile 16 in the Fig. 3 row"),
               Quote("BENCHMARKS.md", row, "kmc2d tile 16 beside Fig. 3")]  # fmt: skip
    life = t16["2"]["life_live"] / 1e3
    quotes.append(Quote("BENCHMARKS.md", f"the life of a live block at phi = 2 from {life:.0f} "
                        "to ~25 us", "round-4 kmc2d prediction"))  # fmt: skip
    return quotes


def test_dbs_pairs_reference_runs_are_the_published_samples() -> None:
    """The DTrDB half of docs/data/kpz_dbs_paired_gpu (blocks 0-2 of the kelling2017_scale
    DTrDB point, rerun beside DTrDBs) equals the published dataset's samples 0-95 bit for
    bit: the pairing compares DBs with the DTrDB that made the published figures."""
    ref = xr.load_dataset(DATA / "kpz_dbs_paired_gpu" / "DTrDB.nc")
    pub = xr.load_dataset(
        DATA / "kelling2017_scale" / "datasets" / "kpz_d2_L8192_p1_q0_DTrDB_gpu_D128x128_tc1-1.nc"
    )
    part = pub.isel(sample=slice(0, ref.sizes["sample"]))
    for name in ("W2", "mean_h", "C_h", "C_s"):
        assert np.array_equal(ref[name].values, part[name].values, equal_nan=True), name


def quotes_kelling2017_plateau() -> list[Quote]:
    """kelling2017 Fig. 6 to t = 10^5 (config/kelling2017_plateau.yaml): the plateau, fit
    and time-by-time comparison tables, and the numbers the statement below them takes
    from those tables."""
    from analysis.kpz_beta_compare import compare_table
    from analysis.kpz_betafit import beta_table
    from analysis.kpz_plateau_table import plateau_table

    folder = DATA / "kelling2017_plateau" / "analysis"
    paths = sorted(folder.glob("*.nc"))
    ref = folder / "kpz_d2_L8192_p1_q0_DTrDB_gpu_D128x128_tc1-1.nc"
    tables = {
        "plateau": plateau_table(paths),
        "betafit": beta_table(paths),
        "compare": compare_table([ref, *(p for p in paths if p != ref)]),
    }
    out = [Quote(README, line, f"{name} table row")
           for name, text in tables.items() for line in text.splitlines()[2:]]  # fmt: skip

    def cells(name: str, point: str, window: str) -> list[str]:
        rows = [ln.strip("| ").split(" | ") for ln in tables[name].splitlines()[2:]]
        hit = [r for r in rows if r[0].startswith(point) and window in r]
        assert len(hit) == 1, f"{name}: {len(hit)} rows for {point} {window}"
        return hit[0]

    def sigmas(cell: str) -> str:
        return re.search(r"([+-]?[0-9.]+) sigma", cell).group(1).lstrip("+-")

    tc11, tc22, dt = "DTrDB, TC=1,1, L=8192", "DTrDB, TC=2,2", "DTrDT"
    late11, late22 = (cells("plateau", pt, "[3000, 78117]") for pt in (tc11, tc22))
    from1000 = [cells("plateau", pt, "[1000, 78117]") for pt in (tc11, tc22)]
    out += [
        Quote(README, f"({late11[4]} for TC = 1,1, n = 256; {late22[4]} for TC = 2,2, "
                      f"n = 128), at {late11[3]} and {late22[3]}", "the plateau over t >= 3000"),
        Quote(README, f"rises by {sigmas(from1000[0][5])} (TC = 1,1) and {sigmas(from1000[1][5])} "
                      "(TC = 2,2) errors", "the rise from t = 1000"),
        Quote(README, f"{late11[3]} is {sigmas(late11[7])} errors below 0.2415(15) and "
                      f"{sigmas(late11[8])} below 0.2414(2)", "the plateau against beta"),
        Quote(README, "has the same plateau, "
                      f"{cells('plateau', dt, '[3000, 78117]')[3]} over", "DTrDT's plateau"),
    ]  # fmt: skip
    fits = [cells("betafit", tc11, f"[{t}, 78117]") for t in (50, 100, 200)]
    out.append(Quote(README, f"gives {fits[0][3]}, {fits[1][3]} and {fits[2][3]} from t = 50, "
                             "100 and 200", "the window dependence of the fit"))  # fmt: skip
    l14 = cells("compare", "DTrDB, TC=1,1, L=16384", "all")
    dt_late, tc22_late = cells("compare", dt, ">= 1000"), cells("compare", tc22, ">= 1000")
    early = [cells("compare", pt, "all")[6].split(" sigma")[0] for pt in (dt, tc22)]
    out += [
        Quote(README, f"(chi2 per value {dt_late[4]}, p = {dt_late[5]})", "DTrDT against DTrDB"),
        Quote(README, f"so does DTrDB TC = 2,2 (p = {tc22_late[5]})", "TC 2,2 against TC 1,1"),
        Quote(README, f"({early[0].split('.')[0]} and {early[1].split('.')[0]} errors at t = 2.5)",
              "the early-time differences"),
        Quote(README, f"at all {l14[3]} times (chi2 per value {l14[4]}, p = {l14[5]}, largest "
                      f"difference {l14[6].lstrip('+-').replace(' sigma at', ' errors at t =')})",
              "L = 2^14 against 2^13"),
    ]  # fmt: skip
    return out


def quotes_ea3d_pt() -> list[Quote]:
    """The spin-glass transition (config/ea3d_pt.yaml): the g crossings of successive sizes
    against the literature T_c, the equilibration of L = 16 at the lowest T, round trips
    and exchange acceptances."""
    from analysis.ea3d_pt_crossings import T_C, crossings
    from analysis.kpz_betafit import compare
    from analysis.plotting import value_error_text as vet

    found = analyses("ea3d_pt")
    out: list[Quote] = []
    values: list[str] = []
    for r in crossings(list(found.values())):
        cells = [f"{r['L1']} / {r['L2']}", vet(r["T_cross"], r["T_cross_err"])]
        cells += [compare(r["T_cross"], r["T_cross_err"], ref) for ref in T_C]
        out.append(Quote(README, "| " + " | ".join(cells) + " |", "g crossing row"))
        values.append(cells[1])
    out.append(Quote(README, "| " + ", ".join(values) + " vs T_c = 1.1019(29)", "validation row"))
    big = max(found.values(), key=lambda d: int(d.attrs["L"]))
    lowest = big["T"].values.argmin()
    q2 = big["q2_drift_mean"].isel(T=lowest).values
    q2e = big["q2_drift_err"].isel(T=lowest).values
    en = big["energy_drift_mean"].isel(T=lowest).values
    ene = big["energy_drift_err"].isel(T=lowest).values
    drift = (f"[<q^2>] {q2[-2] / 1e-4:+.1f}({q2e[-2] / 1e-4:.1f})e-4 and e "
             f"{en[-2] / 1e-6:+.0f}({ene[-2] / 1e-6:.0f})e-6 ({abs(q2[-2] / q2e[-2]):.1f} and "
             f"{abs(en[-2] / ene[-2]):.1f} errors); the bin before that still differs "
             f"(q^2 by {q2[-3] / 1e-3:+.2f}({round(q2e[-3] / 1e-5)})e-3)")  # fmt: skip
    out.append(Quote(README, drift, "equilibration of the largest L"))
    small = [d for d in found.values() if d is not big]
    trips = [float(d["round_trips_per_config_mean"]) for d in small]
    fewest = min(int(d["round_trips_min"]) for d in small)
    out.append(Quote(README, f"at least {fewest} round trips T_min -> T_max -> T_min (mean "
                     f"{min(trips):.0f}-{max(trips):.0f}); at L = {big.attrs['L']} the mean is "
                     f"{float(big['round_trips_per_config_mean']):.0f} and the fewest "
                     f"{int(big['round_trips_min'])}", "round trips"))  # fmt: skip
    acc = [d["exchange_acceptance_mean"].values for d in found.values()]
    out.append(Quote(README, f"Exchange acceptances lie between {min(a.min() for a in acc):.2f}"
                     f" (L = {big.attrs['L']}, at T_max) and {max(a.max() for a in acc):.2f}",
                     "exchange acceptances"))  # fmt: skip
    return out


def quotes_ea3d_xi() -> list[Quote]:
    """T_c from xi_L/L (config/ea3d_xi.yaml): the xi/L crossings of successive sizes
    against the literature T_c, the g crossings of the same runs, the largest pair against
    the issue's target error of 0.02, and xi/L and [<q^2>] of the largest L in its last
    bins at the lowest T."""
    from analysis.ea3d_pt_crossings import T_C, crossings
    from analysis.kpz_betafit import compare
    from analysis.plotting import value_error_text as vet

    found = list(analyses("ea3d_xi").values())
    out: list[Quote] = []
    g_rows = {(r["L1"], r["L2"]): r for r in crossings(found)}
    for r in crossings(found, "xi_over_L"):
        g = g_rows[(r["L1"], r["L2"])]
        cells = [f"{r['L1']} / {r['L2']}", vet(r["T_cross"], r["T_cross_err"])]
        cells += [compare(r["T_cross"], r["T_cross_err"], ref) for ref in T_C]
        cells.append(vet(g["T_cross"], g["T_cross_err"]))
        out.append(Quote(README, "| " + " | ".join(cells) + " |", "xi/L crossing row"))
    last = max(crossings(found, "xi_over_L"), key=lambda r: r["L2"])
    met = "met" if last["T_cross_err"] <= 0.02 else "not met"
    tc = vet(last["T_cross"], last["T_cross_err"])
    text = f"T_c from the largest pair is {tc}: the target error of 0.02 is {met}"
    out.append(Quote(README, text, "largest pair against the target"))
    big = max(found, key=lambda d: int(d.attrs["L"]))
    lowest = big["T"].values.argmin()
    q2 = big["q2_drift_mean"].isel(T=lowest).values
    q2e = big["q2_drift_err"].isel(T=lowest).values
    text = (f"the paired difference of [<q^2>] between them is {q2[-2] / 1e-4:+.1f}"
            f"({q2e[-2] / 1e-4:.1f})e-4 ({abs(q2[-2] / q2e[-2]):.1f} errors; the bin before "
            f"differs by {q2[-3] / 1e-3:+.2f}({round(q2e[-3] / 1e-5)})e-3")  # fmt: skip
    out.append(Quote(README, text, "q^2 equilibration of the largest L"))
    xi = big["xi_over_L_bin"].isel(T=lowest).values
    err = big["xi_over_L_bin_err"].isel(T=lowest).values
    text = (f"xi_L/L of L = {big.attrs['L']} at T = {big['T'].values[lowest]:g} is "
            f"{vet(xi[-2], err[-2])} and {vet(xi[-1], err[-1])} in its last two bins")  # fmt: skip
    out.append(Quote(README, text, "xi/L equilibration"))
    return out


def quotes_lulli2015() -> list[Quote]:
    """lulli2015 on an H100 (docs/data/lulli2015_h100): Tables 1 and 2 (simcore bench
    prng), Fig. 5's two branches of L and Fig. 8's bandwidth against the copy peak
    (simcore bench ea3d over even L)."""
    from analysis import lulli2015_tables as lt
    from analysis.lulli2015 import best_over_k, load_ea3d_bench

    folder = DATA / "lulli2015_h100"
    prng = {(r["api"], r["generator"]): r for r in lt.load_prng_bench(folder / "prng_h100.csv")}

    def ms(gen: str) -> str:
        return f"{float(prng[('host', gen)]['t_tot']) * 1e3:.3g} ms"

    def rate(gen: str) -> str:
        return sci(float(prng[("device", gen)]["per_second"]))

    tables = (f"cuRAND XORWOW fills 2^29 floats in {ms('curand_xorwow')}, MTGP32 in "
              f"{ms('curand_mtgp32')}, our MINSTD in {ms('minstd')} and our MT19937 in "
              f"{ms('mt19937')}; inside a kernel XORWOW draws {rate('curand_xorwow')} numbers/s, "
              f"our MINSTD {rate('minstd')}, our MT19937 {rate('mt19937')} and MTGP32 "
              f"{rate('curand_mtgp32')}")  # fmt: skip
    rows = load_ea3d_bench(folder / "ea3d_even_L_h100.csv")
    best = lt.best_k_table(rows)
    (peak,) = lt.copy_peaks(rows).values()

    def spread(values: list[float], digits: int = 3) -> str:
        """The median and the range of ``values``, as the README quotes them."""
        return (f"{statistics.median(values):.{digits}f} "
                f"({min(values):.{digits}f}-{max(values):.{digits}f})")  # fmt: skip

    out = [Quote(README, tables, "lulli2015 Tables 1 and 2")]
    for layout in ("standard", "sliced"):
        l0 = [(L, b) for (lay, _, L), b in best.items() if lay == layout and L >= 64 and L % 4 == 0]
        l1 = [(L, b) for (lay, _, L), b in best.items() if lay == layout and L >= 64 and L % 4 == 2]
        ps = (f"{layout}: {spread([b.psflip[0] for _, b in l0])} ps for L = 4m and "
              f"{spread([b.psflip[0] for _, b in l1])} ps for L = 2(2m+1)")  # fmt: skip
        f0 = [lt.achieved_bandwidth(L, b.k, b.psflip[0]) / peak for L, b in l0]
        f1 = [lt.achieved_bandwidth(L, b.k, b.psflip[0]) / peak for L, b in l1]
        bw = f"{layout}: {spread(f0, 2)} (L = 4m) and {spread(f1, 2)} (L = 2(2m+1))"
        out += [Quote(README, ps, f"Fig. 5 branches, {layout}"),
                Quote(README, bw, f"Fig. 8 bandwidth, {layout}")]  # fmt: skip
    out.append(Quote(README, f"the {peak / 1e12:.2f} TB/s of a device-to-device copy",
                     "copy peak"))  # fmt: skip
    largest = {lay: sum(b.largest for (la, _, _), b in best.items() if la == lay)
               for lay in ("standard", "sliced")}  # fmt: skip
    sizes = len({L for (_, _, L) in best})
    out.append(Quote(README, f"the largest k measured at most L ({largest['standard']} of {sizes} "
                     f"sizes standard, {largest['sliced']} sliced)", "Fig. 7 best k"))  # fmt: skip
    k256 = max(r["L"] for r in rows if r["k"] == 256)
    out.append(Quote(README, f"k = 256 fits the card's memory up to L = {k256}", "Fig. 7 memory"))
    # Fig. 9: the best psFlip over the k both generators ran, relative to MINSTD, L >= 64
    best = best_over_k(load_ea3d_bench(folder / "ea3d_prng_h100.csv"), ("prng",))
    big = sorted({L for (_, L) in best if L >= 64})

    def rel(prng: str) -> str:
        r = [best[(prng, L)][0] / best[("minstd", L)][0] for L in big]
        return f"{min(r):.2f}-{max(r):.2f}x"

    fig9 = (f"at L = {big[0]}-{big[-1]} MT19937 costs {rel('mt19937')} MINSTD and "
            f"Parisi-Rapuano {rel('pr64')}; Philox {rel('philox')}")  # fmt: skip
    out.append(Quote(README, fig9, "Fig. 9"))
    return out


def quotes_lulli2015_mgpu() -> list[Quote]:
    """lulli2015 Fig. 12 on 8 H200s: the strong-scaling efficiency eta = psFlip_1 /
    psFlip_N (psFlip_N the time per flip of the whole lattice on N GPUs); the table is the
    package's copy, byte for byte."""
    from analysis.lulli2015 import RECORDED_SCALING, load_scaling

    path = DATA / "lulli2015_h200x8" / "mgpu_h200x8.csv"
    assert path.read_bytes() == RECORDED_SCALING.read_bytes(), "the package's copy differs"
    ps = {(r["L"], r["n_gpus"]): r["ps"] for r in load_scaling(path)}

    def eta(L: int, n: int) -> str:
        return f"{ps[(L, 1)] / ps[(L, n)]:.2f}"

    text = (f"eta = psFlip_1 / psFlip_N = {eta(256, 2)} (2 GPUs) and {eta(256, 4)} (4) at "
            f"L = 256, {eta(512, 8)} on 8 GPUs at L = 512")  # fmt: skip
    return [Quote(README, text, "Fig. 12")]


# ------------------------------------------------------------------------- the test

SOURCES: dict[str, Callable[[], Iterable[Quote]]] = {
    "kpz_dd": quotes_kpz_dd,
    "fcc": quotes_fcc,
    "kpz_headline": quotes_kpz_headline,
    "cpu": quotes_cpu,
    "kmc2d": quotes_kmc2d,
    "kmc2d_timestep": quotes_kmc2d_timestep,
    "kmc2d_surfaces": quotes_kmc2d_surfaces,
    "kmc2d_halo": quotes_kmc2d_halo,
    "run_hashes": quotes_run_hashes,
    "papers_fig3": quotes_papers_fig3,
    "papers_fig6": quotes_papers_fig6,
    "kelling2017_scale": quotes_kelling2017_scale,
    "kpz_dbs_paired": quotes_kpz_dbs_paired,
    "round4": quotes_round4,
    "round4_x2": quotes_round4_x2,
    "round4_kmc2d": quotes_round4_kmc2d,
    "round4_ea3d_fused": quotes_round4_ea3d_fused,
    "kelling2017_plateau": quotes_kelling2017_plateau,
    "ea3d_pt": quotes_ea3d_pt,
    "ea3d_xi": quotes_ea3d_xi,
    "lulli2015": quotes_lulli2015,
    "lulli2015_mgpu": quotes_lulli2015_mgpu,
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_quoted_numbers_match_published_data(source: str) -> None:
    """Every text the source backs stands verbatim in its page."""
    missing = [q for q in SOURCES[source]() if " ".join(q.text.split()) not in page_text(q.page)]
    for q in missing:
        print(f"{q.page}: expected {q.text!r} ({q.what})")
    assert not missing, "; ".join(f"{q.page} lacks {q.text!r} ({q.what})" for q in missing)


def test_sci_format() -> None:
    """The scientific notation of the pages."""
    assert sci(7.19879e10) == "7.2e10" and sci(3.00022e8) == "3.0e8" and sci(5.3e-4) == "5.3e-4"
    assert math.isclose(float(sci(2.66084e7).replace("e", "e+")), 2.7e7)


PUBLISHED_DATASETS = sorted(DATA.glob("*/datasets/*.nc"))


@pytest.mark.parametrize("dataset", PUBLISHED_DATASETS, ids=lambda p: f"{p.parts[-3]}/{p.stem}")
def test_published_analysis_recomputes_from_its_dataset(dataset: Path) -> None:
    """The analysis of a published dataset, recomputed here by the model's analysis module,
    equals the published analysis that the figures and the quotes read: every variable, to
    rounding (so the fits and their jackknife errors are recomputed, not only read)."""
    from analysis.dispatch import analysis_module

    published = xr.load_dataset(dataset.parents[1] / "analysis" / dataset.name)
    with xr.open_dataset(dataset) as ds:
        module = analysis_module(ds.attrs.get("model"), str(dataset))
        again = module.analyze(ds.load())
    assert sorted(again.data_vars) == sorted(published.data_vars)
    for name in published.data_vars:
        a, b = again[name].values, published[name].values
        if np.issubdtype(b.dtype, np.number):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=0, equal_nan=True, err_msg=name)
        else:
            assert (a == b).all(), name


#: How the reproduction pages cite the README: ``Ours (README, "section"): "quoted text"``.
README_CITATION = re.compile(r'\(README[^)]*\):? "([^"]+)"')


@pytest.mark.parametrize("paper", ["kelling2012", "kelling2017", "darkins2024", "lulli2015"])
def test_reproduction_pages_quote_the_readme_verbatim(paper: str) -> None:
    """Every text a reproduction page quotes from the README stands there verbatim, so the
    pages' copies of our numbers follow the README, which the tests above hold to the
    data."""
    readme = page_text(README)
    quotes = README_CITATION.findall(page_text(f"{REPRO}/{paper}.md"))
    stale = [q for q in quotes if q not in readme]
    assert not stale, f"{REPRO}/{paper}.md quotes what the README no longer says: {stale[0]!r}"


@pytest.mark.parametrize("paper", ["kelling2012", "kelling2017", "darkins2024", "lulli2015"])
def test_reproduction_summary_counts_each_pages_rows(paper: str) -> None:
    """The summary table of docs/reproduction/README.md gives each page's number of rows
    (a row starts with its bold figure, table or section name); a row added to a page
    without the summary, or the other way round, fails here."""
    rows = sum(line.startswith("| **") for line in (ROOT / REPRO / f"{paper}.md").open())
    summary = (ROOT / REPRO / "README.md").read_text()
    counted = re.search(rf"^\| \[{paper}\]\({paper}\.md\)[^|]*\| (\d+) \|", summary, re.M)
    assert counted, f"{REPRO}/README.md has no summary row for {paper}"
    assert int(counted.group(1)) == rows, (
        f"{paper}: summary says {counted.group(1)}, page has {rows}"
    )
