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


def sources(root: Path) -> dict[str, ast.Module]:
    """Each module of the package (core and adapters), by its path under `root`."""
    return {
        path.relative_to(root).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for folder in ("core", "adapters")
        for path in sorted((root / folder).rglob("*.py"))
    }


def violations(root: Path) -> list[str]:
    """Where a module outside the engine drives it by hand or sets the run context."""
    found = []
    for name, module in sources(root).items():
        for node in sorted(ast.walk(module), key=lambda node: getattr(node, "lineno", 0)):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            called, owner = node.func.attr, node.func.value
            if called in ("flush", "delta_path") and name not in ENGINE:
                found.append(f"{name}:{node.lineno} calls {called}()")
            if (
                called in ("set", "reset")
                and isinstance(owner, ast.Name)
                and owner.id == CONTEXT_VAR
                and name not in SETS_CONTEXT
            ):
                found.append(f"{name}:{node.lineno} sets the run context ({CONTEXT_VAR})")
    return found


def test_no_driver_reaches_behind_push_or_sets_the_run_context() -> None:
    assert violations(ROOT) == []


def test_the_check_sees_a_driver_that_does(tmp_path: Path) -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "adapters").mkdir()
    (tmp_path / "adapters" / "_driver.py").write_text(
        "async def drive(stream, event):\n"
        "    if stream.feed(event):\n"
        "        async for extra in stream.flush():\n"
        "            yield extra\n"
        "    parts_of, parts = stream.delta_path()\n"
        "    ACTIVE_RUN.set(stream.run)\n"
    )
    assert violations(tmp_path) == [
        "adapters/_driver.py:3 calls flush()",
        "adapters/_driver.py:5 calls delta_path()",
        "adapters/_driver.py:6 sets the run context (ACTIVE_RUN)",
    ]
