"""Sizes that show the jobs: the run's facade is short, no class does many jobs, an adapter
module holds only its framework's quirks, and nothing is written twice."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from support import ROOT

#: The package's own code: core (`moca_agui`) and the adapters.
SOURCES = (ROOT / "core", ROOT / "adapters")
MAX_FACADE_LINES = 150  # `CitationRun`
MAX_CLASS_LINES = 300
MAX_ADAPTER_MODULE_LINES = 250
#: A function smaller than this (AST nodes of its body) may well be written twice.
MIN_COPIED_NODES = 25


def modules() -> Iterator[tuple[Path, ast.Module]]:
    for folder in SOURCES:
        for path in sorted(folder.rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"))


def classes() -> Iterator[tuple[str, ast.ClassDef]]:
    for path, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                yield f"{path.relative_to(ROOT)}:{node.name}", node


def lines(node: ast.stmt) -> int:
    return (node.end_lineno or node.lineno) - node.lineno + 1


def body_without_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Module:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.Module(body=body, type_ignores=[])


def test_the_runs_facade_is_at_most_150_lines():
    [facade] = [
        node for name, node in classes() if name.endswith("run/citation_run.py:CitationRun")
    ]
    assert lines(facade) <= MAX_FACADE_LINES


def test_no_class_is_over_300_lines():
    over = {name: lines(node) for name, node in classes() if lines(node) > MAX_CLASS_LINES}
    assert over == {}


def test_no_adapter_module_is_over_250_lines():
    sizes = {
        path.name: len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / "adapters").glob("*.py")
    }
    assert {name: size for name, size in sizes.items() if size > MAX_ADAPTER_MODULE_LINES} == {}


def test_no_function_body_is_written_twice():
    written: defaultdict[str, list[str]] = defaultdict(list)
    for path, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = body_without_docstring(node)
                if sum(1 for _ in ast.walk(body)) >= MIN_COPIED_NODES:
                    where = f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"
                    written[ast.dump(body)].append(where)
    assert [places for places in written.values() if len(places) > 1] == []
