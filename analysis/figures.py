"""The campaign-figure CLI: the analyses of a campaign's points in, its figures out.

``python -m analysis.figures --out-dir DIR [--figure NAME ...] ANALYSIS.nc [ANALYSIS.nc ...]``

The analyses (output of :mod:`analysis.analyze`) must be of one model (their ``model``
attribute).  The model's analysis module, found through simcore's registry
(:func:`analysis.dispatch.analysis_module`), draws the figures the model's spec names in
``campaign_figures`` (or only those ``--figure`` names: the workflow draws each figure in
a job of its own, so that each gets its own report caption) with its
``draw_figures(analyses, names=None)``, which returns them with their provenance
(``{name: (Figure, provenance)}``, :func:`analysis.plotting.draw_campaign_figures`); they
are saved here, each as PNG (300 dpi) and PDF, one paper column wide, atomically and with
provenance metadata (:mod:`analysis.plotting`).  That is the one protocol of every
model's analysis module, simcore's and a plug-in's alike.

Exit status: 0 written; 2 bad input (unreadable file, no or unknown model, analyses of
several models, a file that is not an analysis, a model module without
``draw_figures``), one line on stderr.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Collection, Sequence
from pathlib import Path

import matplotlib

from analysis.dispatch import analysis_module, fail
from analysis.plotting import load_datasets, save_drawn, source_of
from simcore.interrupt import run_main

__all__ = ["main", "make_figures"]


def make_figures(
    paths: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    names: Collection[str] | None = None,
) -> list[Path]:
    """Read analysis datasets of one model and write its campaign figures (only ``names``,
    if given) into ``out_dir`` (PNG and PDF each); returns the written paths.
    ``ValueError`` for no inputs, a file without or with an unknown model, analyses of
    several models, or a name the model does not draw for them."""
    if not paths:
        raise ValueError("no analysis datasets given")
    analyses = load_datasets(paths)
    modules = {
        str(ds.attrs.get("model")): analysis_module(ds.attrs.get("model"), source_of(ds))
        for ds in analyses
    }
    if len(modules) > 1:
        raise ValueError(f"analyses of several models ({', '.join(sorted(modules))}) in one call")
    ((model, module),) = modules.items()
    draw = getattr(module, "draw_figures", None)
    if not callable(draw):
        raise ValueError(
            f"model {model}: its analysis module {module.__name__} has no function "
            "draw_figures(analyses, names=None)"
        )
    return save_drawn(draw(analyses, names), out_dir)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point; returns the exit status (0 ok, 2 bad input)."""
    matplotlib.use("Agg")
    parser = argparse.ArgumentParser(
        prog="python -m analysis.figures",
        description=(
            "Write the campaign figures (PNG 300 dpi and PDF, one paper column wide) of the "
            "analysis datasets of one model's points (analysis.analyze), by the model's "
            "analysis module; the model's spec names the figures."
        ),
    )
    parser.add_argument("--out-dir", required=True, metavar="DIR", help="output directory")
    parser.add_argument(
        "--figure", action="append", metavar="NAME", dest="names",
        help="draw only this campaign figure (repeatable; default: all)",
    )  # fmt: skip
    parser.add_argument("analyses", nargs="+", metavar="ANALYSIS.nc", help="analysis datasets")
    args = parser.parse_args(argv)
    try:
        make_figures(args.analyses, args.out_dir, args.names)
    except (OSError, ValueError, KeyError) as exc:
        return fail(parser.prog, exc)
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.figures")
