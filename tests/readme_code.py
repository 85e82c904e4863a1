"""The code blocks of the README and of the docs pages (`docs/`), run as written.

A docs page's Python block is whole: it may not `await` at its top level nor leave a name
undefined (`docs_blocks` and `undefined_names` say which do); what is yours (a model, an
agent's run) it takes as an argument of the function it defines. The README's blocks may
still `await` at their top level and leave names for the test to give.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _text(page: str | None) -> tuple[str, str]:
    """The text of `page` (a path under docs/, e.g. "reader.md"; None: the README) and
    the name to show for it."""
    path = README if page is None else DOCS / page
    return path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))


def python_block(heading: str, page: str | None = None) -> str:
    """The first ```python block under the heading `heading` (e.g. "## LangGraph ...") of
    the docs page `page`, or of the README."""
    text, _ = _text(page)
    start = text.index(f"\n{heading}\n")
    found = re.search(r"```python\n(.*?)```", text[start:], flags=re.DOTALL)
    assert found is not None, f"no python block under {heading!r}"
    return found.group(1)


async def run_block(heading: str, page: str | None = None, **names: Any) -> dict[str, Any]:
    """Run the block under `heading` with `names` defined; the names it leaves behind.

    A docs page's block is compiled as a module is (no top-level `await`) and run under a
    module name other than `__main__`, as an import of it would be."""
    text = python_block(heading, page)
    where = f"{_text(page)[1]} ({heading})"
    if page is None:
        code = compile(text, where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    else:
        code = compile(text, where, "exec")
    namespace: dict[str, Any] = {"__name__": "docs_block", **names}
    result = eval(code, namespace)  # a coroutine when a README block awaits
    if inspect.isawaitable(result):
        await result
    return namespace


def readme_diffs(section: str, page: str | None = None) -> list[str]:
    """The 'after' side of each ```diff block: the code a user ends up with. In the
    README, those of its `## <section>` (its subsections included); in a docs page, those
    of the whole page (`section` None) or of its `## <section>`."""
    text, _ = _text(page)
    if page is None or section is not None:
        text = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [
        "".join(line[1:] + "\n" for line in diff.splitlines() if line[:1] in (" ", "+", ""))
        for diff in re.findall(r"```diff\n(.*?)```", text, flags=re.DOTALL)
    ]


def docs_pages() -> list[str]:
    """Every page of the docs site, as paths under docs/."""
    return sorted(str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md"))


def docs_blocks() -> list[tuple[str, int, str]]:
    """(page, line, code) of every ```python block of the docs."""
    found = []
    for page in docs_pages():
        text, _ = _text(page)
        for block in re.finditer(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE):
            line = text.count("\n", 0, block.start()) + 2
            found.append((page, line, block.group(1)))
    return found


def undefined_names(code: str) -> set[str]:
    """The names `code` reads that it never binds anywhere (nor are builtins): a block
    that leaves one for its reader to guess is not runnable as shown."""
    tree = ast.parse(code)
    bound = set(dir(builtins)) | {"__name__", "__file__"}
    read = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return read - bound
