"""The command line of a Markdown table of analysis files, and the table's assembly.

The README's tables of fits (:mod:`analysis.kpz_betafit`, :mod:`analysis.kpz_plateau_table`,
:mod:`analysis.kpz_beta_compare`, ...) read analysis files, build one row per point and
window, and print Markdown.  What they share is here: reading the files with a check that
each holds the table's variables (:func:`window_table`), and the command line that prints
the table or refuses its input on one line naming the file, exit status 2
(:func:`table_main`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence

import xarray as xr

from analysis.dispatch import fail
from analysis.plotting import load_datasets, require_variables
from analysis.tables import markdown_table

__all__ = ["table_main", "window_table"]


def window_table(
    paths: Sequence[str | os.PathLike[str]],
    variables: Sequence[str],
    what: str,
    head: Sequence[str],
    rows_of: Callable[[xr.Dataset], list[list[str]]],
) -> str:
    """The Markdown table ``head`` of the rows ``rows_of`` each analysis file of ``paths``
    gives, in the order given; ``ValueError`` naming the file for one that cannot be read
    or lacks ``variables`` (it is not ``what``)."""
    if not paths:
        raise ValueError("no analysis files given")
    datasets = load_datasets(paths)
    require_variables(datasets, variables, what)
    return "\n".join(markdown_table(head, (row for ds in datasets for row in rows_of(ds))))


def table_main(
    argv: Sequence[str] | None,
    prog: str,
    description: str,
    build: Callable[[list[str]], str],
    inputs: tuple[str, str] = ("ANALYSIS", "kpz analysis .nc files"),
) -> int:
    """The command line of a table of files (``inputs``: their metavar and help): ``build``
    of the files given, printed; exit status 0, or 2 with one line naming the file where it
    cannot be read or lacks the table's variables."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("inputs", nargs="+", metavar=inputs[0], help=inputs[1])
    args = parser.parse_args(argv)
    try:
        table = build(args.inputs)
    except (OSError, ValueError, KeyError) as exc:
        return fail(parser.prog, exc)
    print(table)
    return 0
