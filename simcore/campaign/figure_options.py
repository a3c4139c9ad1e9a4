"""The options of a campaign's paper figures: which keyword options a figure's draw
function takes, and how each value travels to ``python -m analysis.papers --set``.

A campaign's ``paper_figures`` entry may carry ``options:`` (kelling2017 Fig. 4(a) at
s = 100 is ``fig4`` with ``{s: 100}``); they are checked when the campaign is loaded, so a
misspelt option fails before any job runs, and the workflow's rule passes them on.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import math
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from simcore.campaign.schema import CampaignError
from simcore.checks import closest
from simcore.models.spec import PaperFigure

__all__ = ["check_options", "draw_option_names", "option_text"]


def option_text(value: Any) -> str:
    """The YAML text of an option value (a scalar or a list) that
    :func:`analysis.papers.parse_options` (``yaml.safe_load``) reads back equal: ``100``,
    ``s``, ``1.0e-05``, ``[1, 2]``, ``'1,1'`` (quoted where plain text would read as
    something else); ``ValueError`` for a value that cannot be written so (NaN, a
    mapping)."""
    try:
        text = yaml.safe_dump(value, default_flow_style=True, width=math.inf).strip()
    except yaml.YAMLError:  # a type YAML has no plain form for (a tuple, an object)
        raise ValueError(f"option value {value!r} cannot be passed as --set KEY=VALUE") from None
    if text.endswith("\n..."):  # the document end PyYAML writes after a plain scalar
        text = text[: -len("\n...")].strip()
    back = yaml.safe_load(text)
    same = back == value and type(back) is type(value)
    if not same or "\n" in text:
        raise ValueError(f"option value {value!r} cannot be passed as --set KEY=VALUE")
    return text


@cache
def draw_option_names(draw: str) -> tuple[str, ...] | None:
    """The keyword options of a paper figure's draw function ``"module:function"``: its
    parameters after the first (the inputs) that can be passed by keyword; ``None`` where
    it takes any (``**options``).

    Read from the module's source (its top-level ``def``) rather than by importing it: a
    campaign is loaded by every Snakemake command (and every job under Slurm), and the
    analysis modules import matplotlib and xarray (about 1.5 s).  A function the source
    does not define plainly (decorated, assigned, re-exported) is imported instead.
    ``ValueError`` where the module or function cannot be found.  Cached: a campaign names
    the same draw function in several entries, and the source is read once per process.
    """
    module, _, name = draw.partition(":")
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    origin = getattr(spec, "origin", None)
    if origin and origin.endswith(".py"):
        tree = ast.parse(Path(origin).read_text(encoding="utf-8"), origin)
        kinds = ast.FunctionDef | ast.AsyncFunctionDef
        defs = [n for n in tree.body if isinstance(n, kinds) and n.name == name]
        if defs and not defs[-1].decorator_list:
            args = defs[-1].args
            if args.kwarg is not None:
                return None
            first = (args.posonlyargs + args.args)[:1]
            named = [a for a in args.args if a not in first] + args.kwonlyargs
            return tuple(a.arg for a in named)
    try:
        func = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"draw function {draw}: cannot import it ({exc})") from None
    params = list(inspect.signature(func).parameters.values())[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def check_options(where: str, kind: str, figure: PaperFigure, options: Any) -> dict[str, Any]:
    """The ``options`` of a ``paper_figures`` entry, each one its draw function takes and
    each value one ``--set`` can pass; :class:`CampaignError` naming the option else."""
    if options is None:
        return {}
    try:
        names = draw_option_names(figure.draw)
    except ValueError as exc:
        raise CampaignError(f"{where}.figure: {kind!r}: {exc}") from None
    for key, value in options.items():
        if not str(key).isidentifier():
            raise CampaignError(f"{where}.options.{key}: {value!r}: not an option name")
        if names is not None and key not in names:
            takes = f"its options: {', '.join(names)}" if names else "it takes none"
            raise CampaignError(
                f"{where}.options.{key}: {value!r}: not an option of {kind}"
                f"{closest(key, names)} ({takes})"
            )
        try:
            option_text(value)
        except ValueError as exc:
            raise CampaignError(f"{where}.options.{key}: {value!r}: {exc}") from None
    return dict(options)
