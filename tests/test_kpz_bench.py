"""``simcore bench sequential``: the CSV it writes is the table the README's CPU speeds are
quoted from (docs/data/bench), so every option it accepts must reach the table."""

from __future__ import annotations

import csv
from pathlib import Path

from simcore.cli import main
from simcore.models.kpz.bench import SEQUENTIAL_CSV_FIELDS


def test_sequential_bench_writes_one_csv_row_per_repeat(tmp_path: Path) -> None:
    """Two sizes x 3 repeats in d = 1: six rows with the size, the dimension and a positive
    speed, and the markdown report appended beside them."""
    out, md = tmp_path / "seq.csv", tmp_path / "seq.md"
    args = ["bench", "sequential", "--dim", "1", "--L", "64", "128", "--mcs", "1",
            "--repeats", "3", "--warmup", "1", "--csv", str(out), "--append", str(md)]  # fmt: skip
    assert main(args) == 0
    with open(out, newline="") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames or ()) == SEQUENTIAL_CSV_FIELDS
        rows = list(reader)
    assert [(r["dim"], r["L"]) for r in rows] == [("1", "64")] * 3 + [("1", "128")] * 3
    assert all(float(r["attempts_per_ns"]) > 0 and r["threads"] == "1" for r in rows)
    assert "sequential KPZ kernel" in md.read_text()
