"""Numbers that cannot drift: every number the README and the reproduction pages quote from
published data (docs/data) is recomputed here from that data, formatted as quoted, and
looked up in the page that quotes it.

Each ``quotes_*`` function below reads one published source and returns the texts that it
backs, each with the page that must contain it verbatim.  Editing a quoted number (or the
data) makes the lookup fail, naming the page, the text expected and what it stands for.
To update a page after new data: run this test, and copy the expected texts it prints.

Sources, and how to regenerate each (the commands are also in docs/data/*/figures.yaml):

* docs/data/bench/*.csv: ``simcore bench ... --csv`` on an H100 (each row names its device
  and commit; docs/data/bench/figures.yaml gives the command lines);
* docs/data/<campaign>/: ``snakemake ... --configfile config/<campaign>.yaml`` then
  ``python -m analysis.publish config/<campaign>.yaml`` (the manifest names the command).
"""

from __future__ import annotations

import csv
import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

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


def quotes_kmc2d() -> list[Quote]:
    """darkins2024 Fig. 3 on an H100, n = 4096, tiles of 8: real events/s per phi and the
    speed-up over serial BKL on one core of the host."""
    rows = [r for r in table("kmc2d_bench_h100_tile8.csv") if r["n"] == "4096"]
    by_phi = {int(r["phi"]): r for r in rows}
    phis = sorted(by_phi)
    assert phis == [0, 1, 2, 3], phis
    speeds = " / ".join(sci(float(by_phi[p]["events_per_s"])) for p in phis)
    ups = " / ".join(f"{float(by_phi[p]['speedup']):.0f}" for p in phis)
    text = f"{speeds} real events/s, {ups} times BKL"
    perf = f"{speeds} real events/s at phi = 0 / 1 / 2 / 3; {ups} times our serial BKL"
    return [Quote(README, text, "kmc2d Fig. 3 row"), Quote(README, perf, "Performance")]


# ------------------------------------------------------------------------- the test

SOURCES: dict[str, Callable[[], Iterable[Quote]]] = {
    "kpz_dd": quotes_kpz_dd,
    "fcc": quotes_fcc,
    "kmc2d": quotes_kmc2d,
}


def _page(name: str) -> str:
    """A page's text with its line breaks as spaces, so a quote may wrap."""
    return " ".join((ROOT / name).read_text().split())


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_quoted_numbers_match_published_data(source: str) -> None:
    """Every text the source backs stands verbatim in its page."""
    missing = [q for q in SOURCES[source]() if " ".join(q.text.split()) not in _page(q.page)]
    for q in missing:
        print(f"{q.page}: expected {q.text!r} ({q.what})")
    assert not missing, "; ".join(f"{q.page} lacks {q.text!r} ({q.what})" for q in missing)


def test_sci_format() -> None:
    """The scientific notation of the pages."""
    assert sci(7.19879e10) == "7.2e10" and sci(3.00022e8) == "3.0e8" and sci(5.3e-4) == "5.3e-4"
    assert math.isclose(float(sci(2.66084e7).replace("e", "e+")), 2.7e7)
