"""Benchmark tables: CSV files that ``simcore bench <kernel> --csv`` writes, read by header.

The paper modules (:mod:`analysis.kelling2017`, ...) draw their performance figures from
these tables.  Each names the columns it needs with a converter per column
(:func:`read_table`); a table lacking one, holding a value that does not convert, or
holding no rows is refused with a ``ValueError`` naming the file (and row).  Columns are
found by their header, never by position, so a kernel may add columns without breaking
a figure, and no engine module is imported to know them.

Also here: the provenance of a figure drawn from tables (:func:`table_provenance`), in the
keys :func:`analysis.plotting.save_figure` writes, and the Markdown form of the tables
the analysis prints for the README (:func:`markdown_table`).
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["Row", "join_column", "markdown_table", "read_table", "table_provenance"]

#: One row of a table: every column by name, the needed ones converted.
Row = dict[str, Any]


def read_table(
    path: str | os.PathLike[str],
    columns: Mapping[str, Callable[[str], Any]],
    what: str,
) -> list[Row]:
    """The rows of the CSV table at ``path``: each a dict of every column by its header,
    the ``columns`` converted by their callables (``int``, ``float``, ``str``, ...).

    Blank lines and lines starting with ``#`` are skipped.  Raises ``ValueError`` naming
    the file for a table without a needed column ("not ``what``"), a value that does not
    convert (with its data row) or no rows.
    """
    p = os.fspath(path)
    try:
        with open(p, newline="", encoding="utf-8") as f:
            lines = [ln for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
        reader = csv.DictReader(lines, skipinitialspace=True)
        header = [h.strip() for h in (reader.fieldnames or [])]
        records = list(reader)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{p}: not a CSV text table ({exc})") from None
    missing = [c for c in columns if c not in header]
    if missing:
        raise ValueError(f"{p}: not {what}, missing column(s) {', '.join(missing)}")
    rows = []
    for i, rec in enumerate(records, start=1):
        row = {k.strip(): (v or "").strip() for k, v in rec.items() if isinstance(k, str)}
        try:
            rows.append({k: columns[k](v) if k in columns else v for k, v in row.items()})
        except ValueError as exc:
            raise ValueError(f"{p}, data row {i}: {exc}") from None
    if not rows:
        raise ValueError(f"{p}: {what} has no measurements")
    return rows


def join_column(rows: Sequence[Row], column: str, sep: str = ", ") -> str:
    """The distinct non-empty values of ``column`` in ``rows``, sorted and joined
    ("unknown" where there are none)."""
    values = sorted({str(r[column]) for r in rows if r.get(column)})
    return sep.join(values) or "unknown"


def table_provenance(
    paths: Sequence[str | os.PathLike[str]], rows: Sequence[Row], points: str, samples: str
) -> dict[str, str]:
    """Provenance of a figure drawn from benchmark tables, in the keys of
    :func:`analysis.plotting.save_figure`: the commits of the ``commit`` column (a table
    records no version: the commit names the code), backends and devices of the rows,
    ``points`` (what was measured) after the file names, and ``samples``."""
    return {
        "simcore_version": "see git_commit",
        "git_commit": join_column(rows, "commit"),
        "points": f"{', '.join(os.fspath(p) for p in paths)}: {points}",
        "samples": samples,
        "backend": join_column(rows, "backend"),
        "device": join_column(rows, "device"),
    }


def markdown_table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table: the header ``head``, its rule, then one line per row."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]
