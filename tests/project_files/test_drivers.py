"""Every driver uses the engine's one call per event: no module outside the engine reaches
behind `CitationStream.push`/`finish`, nor sets the run context between events.

The engine (`core/stream/engine.py`, `core/stream/citation_stream.py`) alone calls
engine internals and sets the run context (`CitationStream.running`).
"""

from __future__ import annotations

import ast
from pathlib import Path

from support import ROOT

ENGINE = {"core/stream/engine.py", "core/stream/citation_stream.py"}
#: Modules that may set the run context, and why.
SETS_CONTEXT = {
    "core/stream/citation_stream.py": "the engine's `running()`",
}
CONTEXT_VAR = "ACTIVE_RUN"
#: Where the run context is defined.
CONTEXT_MODULE = "core/context.py"
#: The engine's own calls, behind `push`/`finish` (`engine.Citing`'s).
INTERNALS = {"flush", "delta_path", "with_sources", "carries_sources", "_citing"}


def sources(root: Path) -> dict[str, ast.Module]:
    """Each module of the package (core and adapters), by its path under `root`."""
    return {
        path.relative_to(root).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for folder in ("core", "adapters")
        for path in sorted((root / folder).rglob("*.py"))
    }


def receiver(node: ast.expr) -> str:
    """The last name of what an attribute is read on (`self._stream.feed`: `_stream`)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def violations(root: Path) -> list[str]:
    """Where a module outside the engine drives it by hand, or reaches the run context
    other than to read it (`ACTIVE_RUN.get()`): a set, a reset, an alias of either."""
    found = []
    for name, module in sources(root).items():
        nodes = sorted(ast.walk(module), key=lambda node: getattr(node, "lineno", 0))
        read = {
            id(node.value)
            for node in nodes
            if isinstance(node, ast.Attribute) and node.attr == "get"
        }
        for node in nodes:
            if name not in ENGINE and isinstance(node, ast.Attribute):
                owner = receiver(node.value).lower()
                if node.attr in INTERNALS or (
                    node.attr == "feed" and ("stream" in owner or "citing" in owner)
                ):
                    found.append(f"{name}:{node.lineno} reaches behind push ({node.attr})")
            names_var = (isinstance(node, ast.Name) and node.id == CONTEXT_VAR) or (
                isinstance(node, ast.Attribute) and node.attr == CONTEXT_VAR
            )
            renamed = isinstance(node, ast.alias) and node.name == CONTEXT_VAR and node.asname
            if ((names_var and id(node) not in read) or renamed) and name not in {
                *SETS_CONTEXT,
                CONTEXT_MODULE,
            }:
                found.append(f"{name}:{node.lineno} sets the run context ({CONTEXT_VAR})")
    return found


def test_no_driver_reaches_behind_push_or_sets_the_run_context() -> None:
    assert violations(ROOT) == []


def test_the_check_sees_a_driver_that_does(tmp_path: Path) -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "adapters").mkdir()
    (tmp_path / "adapters" / "_driver.py").write_text(
        "async def drive(self, stream, event):\n"
        "    if self._stream.feed(event) or stream._citing.carries_sources:\n"
        "        async for extra in stream.flush():\n"
        "            yield extra\n"
        "    parts_of, parts = stream.delta_path()\n"
        "    ACTIVE_RUN.set(stream.run)\n"
        "    activate = ACTIVE_RUN.set\n"
        "    event = await stream.with_sources(event)\n"
        "    run = ACTIVE_RUN.get()\n"
    )
    (tmp_path / "core" / "_aliased.py").write_text(
        "from .context import ACTIVE_RUN as RUN\nimport moca_agui.context\n"
        "moca_agui.context.ACTIVE_RUN.reset(token)\n"
    )
    assert violations(tmp_path) == [
        "core/_aliased.py:1 sets the run context (ACTIVE_RUN)",
        "core/_aliased.py:3 sets the run context (ACTIVE_RUN)",
        "adapters/_driver.py:2 reaches behind push (carries_sources)",
        "adapters/_driver.py:2 reaches behind push (feed)",
        "adapters/_driver.py:2 reaches behind push (_citing)",
        "adapters/_driver.py:3 reaches behind push (flush)",
        "adapters/_driver.py:5 reaches behind push (delta_path)",
        "adapters/_driver.py:6 sets the run context (ACTIVE_RUN)",
        "adapters/_driver.py:7 sets the run context (ACTIVE_RUN)",
        "adapters/_driver.py:8 reaches behind push (with_sources)",
    ]
