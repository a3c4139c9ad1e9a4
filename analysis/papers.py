"""The paper-figure CLI: one comparison figure of a paper, from points or benchmark tables.

``python -m analysis.papers FIGURE --out-dir DIR [--name NAME] [--set KEY=VALUE ...] INPUTS...``

FIGURE is a name of the registry's table of paper figures (``simcore models --figures``
lists it; :func:`simcore.models.registry.paper_figures`).  Its entry says how it is drawn
(``draw``, ``"module:function"`` of a paper module: :mod:`analysis.kelling2017`,
:mod:`analysis.kelling2012`, :mod:`analysis.lulli2015`, :mod:`analysis.darkins2024`) and
from what: a figure with ``bench`` kernels takes exactly one CSV table per kernel (of
``simcore bench KERNEL --csv``), in that order; one without takes the analysis files of
its points (at least one).  ``--set KEY=VALUE`` passes an option to the draw function (the
value read as YAML: ``--set s=100``, ``--set exponent=s``).  The draw function returns
``(Figure, provenance)``; the figure is written as ``DIR/NAME.png`` (300 dpi) and
``DIR/NAME.pdf`` (NAME defaults to FIGURE), atomically and with provenance metadata
(:func:`analysis.plotting.save_figure`).  Inputs may follow the options, as the workflow
writes them.

Exit status: 0 written; 2 bad input (unknown figure or option, wrong inputs, unreadable
or refused files), one line on stderr.
"""

from __future__ import annotations

import argparse
import inspect
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import yaml

from analysis.dispatch import fail, import_function, one_line
from analysis.plotting import save_figure
from simcore.checks import closest
from simcore.interrupt import run_main
from simcore.models import registry

__all__ = ["main", "make_figure", "parse_options"]


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """The ``--set KEY=VALUE`` items as keyword options, each value read as YAML (numbers,
    strings, lists); ``ValueError`` for an item that is not ``KEY=VALUE``."""
    options: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"--set takes KEY=VALUE, got {item!r}")
        try:
            options[key.strip()] = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            first = one_line(exc).split(". ")[0]
            raise ValueError(
                f"--set {key.strip()}: {text!r} is not a YAML value ({first})"
            ) from None
    return options


def _figure(name: str) -> registry.PaperFigure:
    """The registry's entry of the paper figure ``name``; ``ValueError`` if none."""
    try:
        table = registry.paper_figures()
    except registry.RegistryError as exc:
        raise ValueError(one_line(exc)) from None
    if name not in table:
        known = sorted(table)
        raise ValueError(
            f"unknown paper figure {name!r}{closest(name, known)}; known: {', '.join(known)}"
        )
    return table[name][1]


def _check_inputs(figure: registry.PaperFigure, inputs: Sequence[str]) -> None:
    """One table per benchmark kernel of ``figure``, in order; else at least one analysis."""
    if figure.bench:
        if len(inputs) != len(figure.bench):
            tables = ", ".join(f"simcore bench {k} --csv" for k in figure.bench)
            raise ValueError(
                f"{figure.name} takes {len(figure.bench)} table(s), one per benchmark kernel, "
                f"in this order: {tables}; got {len(inputs)} input(s)"
            )
    elif not inputs:
        raise ValueError(f"{figure.name} needs the analysis files of its points; got none")


def _check_options(figure: str, draw: Callable[..., Any], options: dict[str, Any]) -> None:
    """``ValueError`` for an option the draw function does not take (its first parameter
    is the inputs)."""
    params = list(inspect.signature(draw).parameters.values())[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in options:
        if key not in names:
            takes = f"its options: {', '.join(names)}" if names else "it takes none"
            raise ValueError(f"{figure} has no option {key!r}{closest(key, names)}; {takes}")


def make_figure(
    figure: str,
    inputs: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    name: str | None = None,
    **options: Any,
) -> list[Path]:
    """Draw the paper figure ``figure`` from ``inputs`` with ``options`` and write it as
    ``out_dir/<name or figure>.{png,pdf}``; returns the written paths.  ``ValueError`` for
    an unknown figure or option or inputs that do not fit it."""
    entry = _figure(figure)
    paths = [os.fspath(p) for p in inputs]
    _check_inputs(entry, paths)
    draw = import_function(entry.draw, f"paper figure {figure}")
    _check_options(figure, draw, options)
    fig, prov = draw(paths, **options)
    return save_figure(fig, out_dir, name or figure, prov)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    matplotlib.use("Agg")
    parser = argparse.ArgumentParser(
        prog="python -m analysis.papers",
        description=(
            "Write a comparison figure of a paper (PNG 300 dpi and PDF, one column wide) from "
            "the analysis files of its points or the tables of its benchmark kernels; "
            "'simcore models --figures' lists the figures and what each is drawn from."
        ),
    )
    parser.add_argument("figure", metavar="FIGURE", help="name of the paper figure")
    parser.add_argument("--out-dir", required=True, metavar="DIR", help="output directory")
    parser.add_argument("--name", default=None, help="file stem (default: the figure name)")
    parser.add_argument(
        "--set",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the figure (value as YAML), e.g. --set s=100 --set exponent=s",
    )
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="analysis .nc files of the points, or one .csv table per benchmark kernel",
    )
    # intermixed: the inputs may come after options, as the workflow writes them
    args = parser.parse_intermixed_args(argv)
    try:
        options = parse_options(args.options)
        make_figure(args.figure, args.inputs, args.out_dir, args.name, **options)
    except (OSError, ValueError, KeyError) as exc:
        return fail(parser.prog, exc)
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.papers")
