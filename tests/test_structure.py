"""The shape of the house: no room too big.  Every Python file of simcore/, analysis/ and
workflow/ (tests and benchmarks are exempt, and so are CUDA kernels) holds at most
MAX_FILE_LINES lines, and no function or method in them is longer than MAX_FUNCTION_LINES
(from its ``def`` line, decorators excluded, to its last line)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
SOURCES = sorted(p for d in ("simcore", "analysis", "workflow") for p in (ROOT / d).rglob("*.py"))


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_no_file_is_too_long(path: Path) -> None:
    """A file over the limit holds more than one job: split it along its jobs."""
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_FILE_LINES, f"{_rel(path)}: {lines} lines > {MAX_FILE_LINES}"


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_no_function_is_too_long(path: Path) -> None:
    """Every function and method of the file, nested ones included."""
    tree = ast.parse(path.read_text())
    long = [
        f"{node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, f"{_rel(path)}: " + "; ".join(long)
