"""The campaign-figure CLI: the analyses of a campaign's points in, its figures out.

``python -m analysis.figures --out-dir DIR ANALYSIS.nc [ANALYSIS.nc ...]``

The analyses (output of :mod:`analysis.analyze`) must be of one model (their ``model``
attribute); ``make_figures(analyses, out_dir)`` of the model's analysis module, found
through simcore's registry (:func:`analysis.dispatch.analysis_module`), writes the figures
the model's spec names in ``campaign_figures``, each as PNG (300 dpi) and PDF, one paper
column wide, atomically and with provenance metadata (:mod:`analysis.plotting`).

Exit status: 0 written; 2 bad input (unreadable file, no or unknown model, analyses of
several models, a file that is not an analysis), one line on stderr.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib

from analysis.dispatch import analysis_module, fail
from analysis.plotting import load_datasets, source_of
from simcore.interrupt import run_main

__all__ = ["main", "make_figures"]


def make_figures(
    paths: Sequence[str | os.PathLike[str]], out_dir: str | os.PathLike[str]
) -> list[Path]:
    """Read analysis datasets of one model and write its campaign figures into ``out_dir``
    (PNG and PDF each); returns the written paths.  ``ValueError`` for no inputs, a file
    without or with an unknown model, or analyses of several models."""
    if not paths:
        raise ValueError("no analysis datasets given")
    analyses = load_datasets(paths)
    modules = {
        str(ds.attrs.get("model")): analysis_module(ds.attrs.get("model"), source_of(ds))
        for ds in analyses
    }
    if len(modules) > 1:
        raise ValueError(f"analyses of several models ({', '.join(sorted(modules))}) in one call")
    (module,) = modules.values()
    return module.make_figures(analyses, out_dir)


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
    parser.add_argument("analyses", nargs="+", metavar="ANALYSIS.nc", help="analysis datasets")
    args = parser.parse_args(argv)
    try:
        make_figures(args.analyses, args.out_dir)
    except (OSError, ValueError, KeyError) as exc:
        return fail(parser.prog, exc)
    return 0


if __name__ == "__main__":
    run_main(main, "python -m analysis.figures")
