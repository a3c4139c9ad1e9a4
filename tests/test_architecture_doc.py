"""ARCHITECTURE.md says how things stand: every file, module, class and function it names in
backticks exists.  Checked here: paths (a token with a slash or a source-file suffix) exist
in the tree (a bare file name somewhere in it); dotted names under ``simcore.`` or
``analysis.`` resolve to a module or an attribute of one; ``name()`` tokens are a function
or method defined in simcore/, analysis/, workflow/ or tests/; CamelCase tokens a class
(or alias) defined there."""

from __future__ import annotations

import ast
import importlib
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "ARCHITECTURE.md"
SUFFIXES = (".py", ".cu", ".cuh", ".yaml", ".smk", ".md", ".toml", ".json", ".csv", ".nc")
CODE_DIRS = ("simcore", "analysis", "workflow", "tests", "benchmarks")
#: Top folders of the tree: a token with a slash and no file suffix is a path only under one.
TOP = ("simcore/", "analysis/", "workflow/", "tests/", "config/", "docs/", "benchmarks/")
#: Names of other projects the document cites (a stdlib exception, a /proc/meminfo field,
#: a netCDF attribute, the file pip writes into an installed distribution): not ours.
EXTERNAL = {"CalledProcessError", "MemAvailable", "_FillValue", "direct_url.json"}


def _tokens() -> list[str]:
    return re.findall(r"`([^`\n]+)`", DOC.read_text())


@cache
def _files() -> frozenset[str]:
    """Every file of the tree, by its path from the root and by its name."""
    found: set[str] = set()
    for p in ROOT.rglob("*"):
        parts = p.relative_to(ROOT).parts
        if any(x.startswith(".") or x in {"build", "results", "__pycache__"} for x in parts):
            continue
        rel = "/".join(parts)
        found.update({rel, rel + "/" if p.is_dir() else rel, p.name, p.name + "/"})
    return frozenset(found)


@cache
def _definitions() -> tuple[frozenset[str], frozenset[str]]:
    """(function and method names, class names and module-level aliases) of the code."""
    funcs: set[str] = set()
    classes: set[str] = set()
    for d in CODE_DIRS:
        for p in (ROOT / d).rglob("*.py"):
            for node in ast.walk(ast.parse(p.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    funcs.add(node.name)
                elif isinstance(node, ast.ClassDef):
                    classes.add(node.name)
                elif isinstance(node, ast.Assign):
                    classes.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(funcs), frozenset(classes)


def _is_file(path: str) -> bool:
    """A file or folder of the tree: by its path from the root, or a path ending so
    (``cuda/fcc_dt.cu``, ``rules/common.smk``)."""
    p = path.rstrip("/")
    return p in _files() or any(f.endswith("/" + p) for f in _files())


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def _problem(token: str) -> str | None:
    """Why ``token`` names nothing that exists, or None."""
    t = token.strip()
    word = t.split()[0] if t.split() else t
    path = word.split(":")[0]
    if path in EXTERNAL:
        return None
    if re.fullmatch(r"[\w./-]+", path) and (
        path.endswith(SUFFIXES) or ("/" in path and path.startswith(TOP))
    ):
        return None if _is_file(path) else f"{path}: no such file"
    if re.fullmatch(r"(simcore|analysis)(\.\w+)+", word):
        return None if _resolves(word) else f"{word}: no such module or attribute"
    m = re.fullmatch(r"(\w+)\(\)", word)
    if m:
        return None if m.group(1) in _definitions()[0] else f"{word}: no such function"
    if re.fullmatch(r"_?[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+", word) and word not in EXTERNAL:
        return None if word in _definitions()[1] else f"{word}: no such class"
    return None


def test_every_name_the_architecture_cites_exists() -> None:
    problems = sorted({p for t in _tokens() if (p := _problem(t))})
    assert not problems, "ARCHITECTURE.md names what is not there: " + "; ".join(problems)


def test_the_check_can_fail() -> None:
    assert _problem("simcore/no_such_file.py")
    assert _problem("simcore.runner.no_such_function")
    assert _problem("no_such_function_anywhere()")
    assert _problem("NoSuchClassAnywhere")
    assert _problem("simcore/runner.py") is None
    assert _problem("simcore.models.registry") is None
