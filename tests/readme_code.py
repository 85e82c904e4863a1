"""The README's Python blocks, run as written: a block may `await` at its top level, and
the names it leaves undefined (`model`, `llm`, ...) are given by the test."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[1] / "README.md"


def python_block(heading: str) -> str:
    """The first ```python block under the README heading `heading` (e.g. "### LangGraph")."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    found = re.search(r"```python\n(.*?)```", text[start:], flags=re.DOTALL)
    assert found is not None, f"no python block under {heading!r}"
    return found.group(1)


async def run_block(heading: str, **names: Any) -> dict[str, Any]:
    """Run the block under `heading` with `names` defined; the names it leaves behind."""
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    code = compile(python_block(heading), f"README.md ({heading})", "exec", flags=flags)
    namespace: dict[str, Any] = dict(names)
    result = eval(code, namespace)  # a coroutine when the block awaits
    if inspect.isawaitable(result):
        await result
    return namespace


def readme_diffs(section: str) -> list[str]:
    """The 'after' side of each ```diff block in the README's `## <section>` (its
    subsections included): the code a user ends up with."""
    text = README.read_text(encoding="utf-8").split(f"\n## {section}\n", 1)[1]
    return [
        "".join(line[1:] + "\n" for line in diff.splitlines() if line[:1] in (" ", "+", ""))
        for diff in re.findall(r"```diff\n(.*?)```", text.split("\n## ", 1)[0], flags=re.DOTALL)
    ]
