"""The campaign-figure CLI: the analyses of a campaign's points in, its figures out.

``python -m analysis.figures --out-dir DIR [--figure NAME ...] ANALYSIS.nc [ANALYSIS.nc ...]``

The analyses (output of :mod:`analysis.analyze`) must be of one model (their ``model``
attribute).  The model's analysis module, found through simcore's registry
(:func:`analysis.dispatch.analysis_module`), draws the figures the model's spec names in
``campaign_figures`` (or only those ``--figure`` names: the workflow draws each figure in
a job of its own, so that each gets its own report caption): with
``draw_figures(analyses, names)``, which returns them with their provenance and is saved
here, each as PNG (300 dpi) and PDF, one paper column wide, atomically and with
provenance metadata (:mod:`analysis.plotting`); or, a module of another package, with
its own ``make_figures(analyses, out_dir[, names])`` (one without ``names`` draws all of
them into a temporary folder, and only the named ones are kept).

Exit status: 0 written; 2 bad input (unreadable file, no or unknown model, analyses of
several models, a file that is not an analysis), one line on stderr.
"""

from __future__ import annotations

import argparse
import inspect
import os
import tempfile
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
    (module,) = modules.values()
    if hasattr(module, "draw_figures"):
        return save_drawn(module.draw_figures(analyses, names), out_dir)
    if names is None:
        return module.make_figures(analyses, out_dir)
    if "names" in inspect.signature(module.make_figures).parameters:
        return module.make_figures(analyses, out_dir, names=names)
    # a module without `names`: all its figures into a scratch folder, the named ones kept
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".figures-", dir=out) as scratch:
        written = [Path(p) for p in module.make_figures(analyses, scratch)]
        kept = [p.replace(out / p.name) for p in written if p.stem in names]
    missing = sorted(set(names) - {p.stem for p in kept})
    if missing:
        raise ValueError(f"no campaign figure {', '.join(missing)} drawn for these analyses")
    return kept


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
