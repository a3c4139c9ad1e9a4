"""From a dataset's model to the code that analyses it, and how the analysis CLIs fail.

A dataset names its model in the global attribute ``model``; simcore's registry
(:mod:`simcore.models.registry`) gives the model's spec, whose ``analysis`` names the module
with ``analyze(ds, n_groups)`` and ``draw_figures(analyses, names=None)``, which returns
the campaign figures with their provenance (:mod:`analysis.kpz`, :mod:`analysis.ea3d`,
...), and whose ``paper_figures`` name the draw
functions of the papers' figures (``"module:function"``).  Nothing here names a model: a
model registered by another package is analysed the same way.

Every failure a user can cause becomes a ``ValueError`` with a one-line message naming
the file; the CLIs (:mod:`analysis.analyze`, :mod:`analysis.figures`,
:mod:`analysis.papers`) print it as one line and exit 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import Any

from simcore.checks import ConfigError
from simcore.models import registry

__all__ = ["analysis_module", "fail", "import_function", "one_line"]


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (its class name where it has none): what a CLI
    prints after ``error:``."""
    return " ".join(str(exc).split()) or type(exc).__name__


def fail(prog: str, message: str | BaseException, status: int = 2) -> int:
    """Print ``prog: error: message`` as one line on stderr and return ``status``, the
    exit status of a CLI that refuses its input (2) or cannot write its output (1)."""
    text = one_line(message) if isinstance(message, BaseException) else message
    print(f"{prog}: error: {text}", file=sys.stderr)
    return status


def _spec(model: object, where: str) -> registry.ModelSpec:
    """The registry's spec of ``model`` (a dataset's ``model`` attribute, or None)."""
    if model is None or str(model) == "":
        raise ValueError(f"{where}: no attribute 'model': not a simcore dataset")
    try:
        return registry.get(str(model))
    except ConfigError as exc:
        raise ValueError(f"{where}: model {model!r}: {exc.reason}") from None
    except registry.RegistryError as exc:
        raise ValueError(f"{where}: {one_line(exc)}") from None


def _import(module: str, what: str) -> ModuleType:
    try:
        return import_module(module)
    except ImportError as exc:
        raise ValueError(f"{what}: cannot import {module}: {one_line(exc)}") from None


def analysis_module(model: object, where: str) -> ModuleType:
    """The analysis module of ``model`` (the ``model`` attribute of the file ``where``),
    imported.  ``ValueError`` naming ``where`` for a missing or unknown model or a module
    that does not import."""
    spec = _spec(model, where)
    if not spec.analysis:
        raise ValueError(f"{where}: model {spec.name} names no analysis module")
    return _import(spec.analysis, f"model {spec.name}")


def import_function(path: str, what: str) -> Callable[..., Any]:
    """The function ``"module:function"`` (a paper figure's ``draw``), imported; ``what``
    names its owner in messages."""
    module, _, name = path.partition(":")
    func = getattr(_import(module, what), name, None)
    if not callable(func):
        raise ValueError(f"{what}: {module} has no function {name!r}")
    return func
