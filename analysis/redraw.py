"""Redraw every published figure from the published data alone: no simulation, no GPU.

``python -m analysis.redraw [DATA_DIR] --out-dir DIR [--only NAME ...]``

reads every manifest ``DATA_DIR/*/figures.yaml`` (default ``docs/data``; written by
:mod:`analysis.publish`, or by hand for tables measured outside a campaign) and draws each
figure it lists from the files beside it: a ``paper_figure`` through
:func:`analysis.papers.make_figure` with its options, a ``campaign_figure`` through
:func:`analysis.figures.make_figures`.  The figures land in ``DIR/<folder>/<name>.{png,pdf}``
with the same provenance metadata as the workflow's.  ``--only`` draws the named figures
(``<folder>/<name>`` or ``<name>``) alone.  One line per figure says what was drawn and how
long it took.

Exit status: 0 all drawn; 2 bad input (no manifest, a manifest that cannot be read, an
input file missing, a figure that fails), one line on stderr naming the manifest and the
figure.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import yaml

from analysis.dispatch import fail, one_line
from analysis.publish import DATA_DIR, MANIFEST
from simcore.interrupt import run_main

__all__ = ["Entry", "draw", "entries", "main"]


@dataclass(frozen=True)
class Entry:
    """One figure of a manifest: where it is listed, what it is, what it is drawn from."""

    folder: Path
    name: str
    paper_figure: str | None
    campaign_figure: str | None
    inputs: tuple[Path, ...]
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``<folder>/<name>``, unique over a data directory."""
        return f"{self.folder.name}/{self.name}"


def _entry(folder: Path, raw: Any, where: str) -> Entry:
    """A manifest entry checked for its keys; ``ValueError`` naming ``where``."""
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ValueError(f"{where}: every figure needs a 'name', got {raw!r}")
    paper, campaign = raw.get("paper_figure"), raw.get("campaign_figure")
    if (paper is None) == (campaign is None):
        raise ValueError(f"{where}: {raw['name']} needs one of paper_figure, campaign_figure")
    inputs = raw.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        raise ValueError(f"{where}: {raw['name']} needs a non-empty list of inputs")
    options = raw.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError(f"{where}: {raw['name']}: options must be a mapping, got {options!r}")
    return Entry(folder, raw["name"], paper, campaign,
                 tuple(folder / str(p) for p in inputs), dict(options))  # fmt: skip


def entries(data_dir: str | os.PathLike[str]) -> list[Entry]:
    """Every figure of every manifest under ``data_dir``, manifests in name order;
    ``ValueError`` for none or for a manifest that cannot be read."""
    manifests = sorted(Path(data_dir).glob(f"*/{MANIFEST}"))
    if not manifests:
        raise ValueError(f"no published data in {data_dir} (no */{MANIFEST})")
    out: list[Entry] = []
    for manifest in manifests:
        try:
            raw = yaml.safe_load(manifest.read_text())
        except yaml.YAMLError as exc:
            raise ValueError(f"{manifest}: not YAML ({one_line(exc)})") from None
        figures = raw.get("figures") if isinstance(raw, dict) else None
        if not isinstance(figures, list):
            raise ValueError(f"{manifest}: needs a list 'figures'")
        out.extend(_entry(manifest.parent, f, str(manifest)) for f in figures)
    return out


def draw(entry: Entry, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Draw ``entry`` into ``out_dir/<folder>/``; returns the written files.  ``ValueError``
    naming the figure for a missing input or a figure that cannot be drawn."""
    from analysis.figures import make_figures
    from analysis.papers import make_figure

    missing = [p for p in entry.inputs if not p.is_file()]
    if missing:
        raise ValueError(f"{entry.key}: input {missing[0]} is missing")
    dest = Path(out_dir) / entry.folder.name
    dest.mkdir(parents=True, exist_ok=True)
    try:
        if entry.paper_figure is not None:
            return make_figure(entry.paper_figure, entry.inputs, dest, entry.name, **entry.options)
        return make_figures(entry.inputs, dest, [str(entry.campaign_figure)])
    except (OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{entry.key}: {one_line(exc)}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 all drawn, 2 bad input)."""
    matplotlib.use("Agg")
    parser = argparse.ArgumentParser(
        prog="python -m analysis.redraw",
        description=(
            "Redraw every figure listed in the manifests (*/figures.yaml) of the published "
            "data from the files beside them: no simulation, no GPU."
        ),
    )
    parser.add_argument(
        "data_dir", nargs="?", default=DATA_DIR, metavar="DATA_DIR",
        help="the published data (default: docs/data)",
    )  # fmt: skip
    parser.add_argument("--out-dir", required=True, metavar="DIR", help="where figures go")
    parser.add_argument(
        "--only", nargs="+", default=None, metavar="NAME",
        help="draw only these figures (<folder>/<name> or <name>)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        todo = entries(args.data_dir)
        if args.only:
            known = {e.key for e in todo} | {e.name for e in todo}
            unknown = [n for n in args.only if n not in known]
            if unknown:
                raise ValueError(f"--only: no published figure {unknown[0]!r}")
            todo = [e for e in todo if e.key in args.only or e.name in args.only]
        start = time.perf_counter()
        for entry in todo:
            t0 = time.perf_counter()
            draw(entry, args.out_dir)
            print(f"{entry.key}: {time.perf_counter() - t0:.1f} s", flush=True)
    except (OSError, ValueError) as exc:
        return fail(parser.prog, exc)
    print(f"{len(todo)} figures in {time.perf_counter() - start:.0f} s -> {args.out_dir}")
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.redraw")
