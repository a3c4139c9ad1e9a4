"""The layer contract of pyproject.toml ([tool.importlinter]): imports run downhill, from
the CLI and the analysis through campaigns and the runner, config, the models, backends
and random numbers, down to io, checks and the small base modules; no model imports
another.  And no two modules import each other, directly or round a loop."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# a test dependency (import-linter brings it): a machine with only the runtime skips
grimp = pytest.importorskip("grimp")

ROOT = Path(__file__).resolve().parents[1]


def test_layer_contracts_are_kept() -> None:
    """``lint-imports`` (import-linter) checks every contract; its report names each
    import that breaks one, with the file and line."""
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    adj = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(adj):
        if root in index:
            continue
        work = [(root, iter(adj[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(adj[w])))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_no_import_cycles() -> None:
    """Module by module (type-checking imports left out, as in the contract)."""
    graph = grimp.build_graph("simcore", "analysis", exclude_type_checking_imports=True)
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_loop() -> None:
    """The check above can fail: a -> b -> c -> a is found, d -> a is not part of it."""
    graph = grimp.ImportGraph()
    for importer, imported in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.d", "p.a")):
        graph.add_import(importer=importer, imported=imported)
    assert _cycles(graph) == [["p.a", "p.b", "p.c"]]
