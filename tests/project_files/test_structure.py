"""Sizes that show the jobs: the run's facade is short, no class does many jobs, an adapter
module holds only its framework's quirks (no runs of its own: core's registries hold
them), and nothing is written twice."""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from support import ROOT

#: The package's own code: core (`moca_agui`) and the adapters.
SOURCES = ("core", "adapters")
MAX_FACADE_LINES = 150  # `CitationRun`
MAX_CLASS_LINES = 300
MAX_ADAPTER_MODULE_LINES = 250
#: A function smaller than this (AST nodes of its body) may well be written twice.
MIN_COPIED_NODES = 25
#: Calls that make a mutable container.
MUTABLE = {"dict", "list", "set", "defaultdict", "WeakKeyDictionary", "WeakValueDictionary"}


def modules(root: Path) -> Iterator[tuple[str, ast.Module]]:
    """Each module of the package under `root`, by its path under `root`."""
    for folder in SOURCES:
        for path in sorted((root / folder).rglob("*.py")):
            yield path.relative_to(root).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def classes(root: Path) -> Iterator[tuple[str, ast.ClassDef]]:
    for name, tree in modules(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                yield f"{name}:{node.name}", node


def lines(node: ast.stmt) -> int:
    return (node.end_lineno or node.lineno) - node.lineno + 1


def body_without_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Module:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.Module(body=body, type_ignores=[])


def facade_lines(root: Path) -> int:
    [facade] = [
        node for name, node in classes(root) if name.endswith("run/citation_run.py:CitationRun")
    ]
    return lines(facade)


def oversized_classes(root: Path) -> dict[str, int]:
    return {name: lines(node) for name, node in classes(root) if lines(node) > MAX_CLASS_LINES}


def oversized_adapter_modules(root: Path) -> dict[str, int]:
    sizes = {
        path.name: len(path.read_text(encoding="utf-8").splitlines())
        for path in (root / "adapters").glob("*.py")
    }
    return {name: size for name, size in sizes.items() if size > MAX_ADAPTER_MODULE_LINES}


def runs_kept_by_adapters(root: Path) -> list[str]:
    """Where an adapter keeps runs itself: a weak dictionary (core's registries are the
    place) or a dict, list or set made at module level."""
    kept = []
    for name, tree in modules(root):
        if not name.startswith("adapters/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and "weakref" in (
                getattr(node, "module", None),
                *(alias.name for alias in node.names),
            ):
                kept.append(f"{name}:{node.lineno} {ast.unparse(node)}")
        for node in tree.body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            made = isinstance(value, ast.Call) and getattr(value.func, "id", None) in MUTABLE
            if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
                continue
            if isinstance(value, ast.Dict | ast.List | ast.Set) or made:
                kept.append(f"{name}:{node.lineno} module-level {type(value).__name__}")
    return kept


def written_twice(root: Path) -> list[list[str]]:
    """Functions (of some size) whose bodies are the same, each group by where they are."""
    written: defaultdict[str, list[str]] = defaultdict(list)
    for name, tree in modules(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = body_without_docstring(node)
                if sum(1 for _ in ast.walk(body)) >= MIN_COPIED_NODES:
                    written[ast.dump(body)].append(f"{name}:{node.lineno} {node.name}")
    return [places for places in written.values() if len(places) > 1]


def named_twice(root: Path) -> dict[str, list[str]]:
    """Private module functions of core with one name in two modules: two rules under one
    name (or one rule written twice)."""
    defined: defaultdict[str, list[str]] = defaultdict(list)
    for name, tree in modules(root):
        for node in tree.body:
            if (
                name.startswith("core/")
                and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name.startswith("_")
                and not node.name.startswith("__")
            ):
                defined[node.name].append(f"{name}:{node.lineno}")
    return {function: places for function, places in defined.items() if len(places) > 1}


def planted(root: Path, files: dict[str, str]) -> None:
    """Write `files` (path -> text) under `root`: a tree for a check's self-test."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_runs_facade_is_at_most_150_lines():
    assert facade_lines(ROOT) <= MAX_FACADE_LINES


def test_no_class_is_over_300_lines():
    assert oversized_classes(ROOT) == {}


def test_no_adapter_module_is_over_250_lines():
    assert oversized_adapter_modules(ROOT) == {}


def test_no_adapter_keeps_runs_of_its_own():
    assert runs_kept_by_adapters(ROOT) == []


def test_no_function_body_is_written_twice():
    assert written_twice(ROOT) == []


def test_no_private_function_of_core_is_named_twice():
    assert named_twice(ROOT) == {}


def test_the_checks_see_what_they_forbid(tmp_path: Path) -> None:
    """A 151-line facade, a 301-line class, a 251-line adapter module, one body written
    twice, one name with two rules and adapters keeping runs, in a made-up package."""
    copied = (
        "def {}(items):\n"
        + "    total = 0\n    for item in items:\n"
        + ("        total = total + item * 2 - 1\n" * 3)
        + "    return total\n"
    )
    files = {
        "core/run/citation_run.py": "class CitationRun:\n" + "    x = 1\n" * 150,
        "core/stream/big.py": "class Big:\n" + "    x = 1\n" * 300,
        "core/records/a.py": copied.format("_sum") + "def _whole(x):\n    return x\n",
        "core/records/b.py": copied.format("summed") + "def _whole(x):\n    raise ValueError\n",
        "adapters/_long.py": "x = 1\n" * 251,
        "adapters/_weak.py": "from weakref import WeakKeyDictionary\n",
        "adapters/_held.py": "import weakref\n_RUNS = {}\n_MORE: list[int] = list()\n",
    }
    planted(tmp_path, files)
    assert facade_lines(tmp_path) == 151
    assert oversized_classes(tmp_path) == {"core/stream/big.py:Big": 301}
    assert oversized_adapter_modules(tmp_path) == {"_long.py": 251}
    assert written_twice(tmp_path) == [["core/records/a.py:1 _sum", "core/records/b.py:1 summed"]]
    assert named_twice(tmp_path) == {"_whole": ["core/records/a.py:8", "core/records/b.py:8"]}
    assert runs_kept_by_adapters(tmp_path) == [
        "adapters/_held.py:1 import weakref",
        "adapters/_held.py:2 module-level Dict",
        "adapters/_held.py:3 module-level Call",
        "adapters/_weak.py:1 from weakref import WeakKeyDictionary",
    ]


# -- the run context: read by the engine and its one accessor, `request_run()` -------------

#: The engine's modules: `CitationRun.current()` is defined in one, the kit's
#: `request_run()` (which hands an adapter the run as a `RunFeed`) in the other.
ENGINE = ("core/run/citation_run.py", "core/run/feed.py")
#: The adapter kit's surface, which imports `request_run` to hand it on.
KIT = "core/adapter.py"
#: The adapters that find their run with `request_run()`, and why: a hook finds its run
#: in a `RunRegistry` by the framework's own run id, or in a `RunObjectRegistry` by its
#: per-run object, where its framework hands it one (as OpenInference keys its spans by a
#: run id where it has one, and follows the context where it has none).
READS_THE_REQUEST_RUN = {
    # ag-ui-adk hands its Runner nothing one run owns (the client's run id may be shared,
    # the input is copied, ADK's invocation id is made later and reused on resume)
    "adapters/_adk.py": "the run's Runner, made in the run's background task, finds its run",
    # CrewAI's kickoff is handed no id of the request's run, only a deep copy of the flow
    "adapters/_crewai.py": "a flow's or crew's kickoff finds the middleware's run",
    # AG2 hands `dispatch` only the client's run id, which requests in flight may share
    "adapters/_ag2.py": "dispatch, called inside the request, finds the middleware's run",
}


def reads_of_the_run_context(root: Path) -> dict[str, list[int]]:
    """Where a module other than the engine reads the run context, by line: any `.current`
    (the staticmethod any `CitationRun` subclass inherits, however it is reached, called
    or not), and in an adapter any use of the context variable `ACTIVE_RUN` itself
    (imported under any name)."""
    found: defaultdict[str, list[int]] = defaultdict(list)
    for name, tree in modules(root):
        if name in ENGINE:
            continue
        for node in ast.walk(tree):
            if _names_current(node) or (name.startswith("adapters/") and _names_active_run(node)):
                found[name].append(node.lineno)
    return {name: sorted(set(lines)) for name, lines in found.items()}


def request_run_callers(root: Path) -> set[str]:
    """The modules that call `request_run()`, however it is reached: any `.request_run`,
    called or not, any call of a `request_run`, and any import of it under any name (but
    the kit's, which hands it on)."""
    return {
        name
        for name, tree in modules(root)
        if name not in (*ENGINE, KIT)
        for node in ast.walk(tree)
        if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "request_run")
        or (isinstance(node, ast.Attribute) and node.attr == "request_run")
        or (
            isinstance(node, ast.ImportFrom)
            and any(alias.name == "request_run" for alias in node.names)
        )
    }


def _names_current(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "current"


def _names_active_run(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return any(alias.name == "ACTIVE_RUN" for alias in node.names)
    return (isinstance(node, ast.Name) and node.id == "ACTIVE_RUN") or (
        isinstance(node, ast.Attribute) and node.attr == "ACTIVE_RUN"
    )


def test_only_the_engine_reads_the_run_context():
    assert reads_of_the_run_context(ROOT) == {}


def test_only_the_listed_adapters_find_their_run_by_the_request():
    assert request_run_callers(ROOT) == set(READS_THE_REQUEST_RUN)


def test_the_run_context_check_sees_what_it_forbids(tmp_path: Path) -> None:
    files = {
        ENGINE[0]: "class CitationRun:\n    def end(self):\n        CitationRun.current()\n",
        ENGINE[1]: "def request_run():\n    return CitationRun.current()\n",
        "core/asgi.py": "from .run import CitationRun\nrun = CitationRun.current()\n",
        "adapters/_new.py": "import moca_agui.adapter as kit\nkit.CitationRun.current()\n",
        "adapters/_sub.py": "from ._strands import StrandsRun\nrun = StrandsRun.current()\n",
        "adapters/_var.py": "from moca_agui.context import ACTIVE_RUN\nrun = ACTIVE_RUN.get()\n",
        "adapters/_mod.py": "import moca_agui.context as c\nrun = c.ACTIVE_RUN.get()\n",
        "adapters/_kit.py": "import moca_agui.adapter as kit\nrun = kit.request_run()\n",
        "adapters/_fn.py": "from moca_agui.adapter import request_run\nrun = request_run()\n",
        "core/stream/cite.py": "from ..context import ACTIVE_RUN\nrun = ACTIVE_RUN.get()\n",
        # bypasses: the function imported under another name, the method read, then called
        "adapters/_as.py": "from moca_agui.adapter import request_run as here\nrun = here()\n",
        "adapters/_ref.py": "import moca_agui.adapter as kit\nfind = kit.request_run\nfind()\n",
        "adapters/_cur.py": "cur = CitationRun.current\nrun = cur()\n",
        KIT: "from .run.feed import RunFeed, request_run\n",
    }
    planted(tmp_path, files)
    assert reads_of_the_run_context(tmp_path) == {
        "adapters/_new.py": [2],
        "adapters/_sub.py": [2],
        "adapters/_var.py": [1, 2],
        "adapters/_mod.py": [2],
        "adapters/_cur.py": [1],
        "core/asgi.py": [2],
    }
    assert request_run_callers(tmp_path) == {
        "adapters/_kit.py",
        "adapters/_fn.py",
        "adapters/_as.py",
        "adapters/_ref.py",
    }


# -- adapters hold a run as a `RunFeed`: they make a `CitationRun`, never extend or type it --


def runs_extended_or_typed(root: Path) -> dict[str, list[int]]:
    """Where an adapter subclasses `CitationRun` or annotates a parameter, an attribute or
    a return with it, by line (a line that only constructs one is allowed)."""
    found: defaultdict[str, list[int]] = defaultdict(list)
    for name, tree in modules(root):
        if not name.startswith("adapters/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                typed = node.bases
            elif isinstance(node, ast.arg | ast.AnnAssign):
                typed = [node.annotation] if node.annotation is not None else []
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                typed = [node.returns] if node.returns is not None else []
            else:
                continue
            if any(_names_citation_run(part) for part in typed):
                found[name].append(node.lineno)
    return {name: sorted(set(lines)) for name, lines in found.items()}


def _names_citation_run(node: ast.AST) -> bool:
    return any(
        (isinstance(part, ast.Name) and part.id == "CitationRun")
        or (isinstance(part, ast.Attribute) and part.attr == "CitationRun")
        or (isinstance(part, ast.Constant) and "CitationRun" in str(part.value))
        for part in ast.walk(node)
    )


def test_adapters_hold_their_run_as_a_run_feed():
    assert runs_extended_or_typed(ROOT) == {}


def test_the_run_feed_check_sees_what_it_forbids(tmp_path: Path) -> None:
    files = {
        "adapters/_sub.py": "import moca_agui.adapter as kit\nclass R(kit.CitationRun): ...\n",
        "adapters/_arg.py": "def f(run: 'CitationRun | None') -> None:\n    pass\n",
        "adapters/_attr.py": "class R:\n    run: CitationRun\n",
        "adapters/_ret.py": "def f() -> CitationRun:\n    return CitationRun()\n",
        "adapters/_made.py": "run = CitationRun(options)\nfeed: RunFeed = CitationRun()\n",
        "core/stream/engine.py": "class E:\n    run: CitationRun\n",
    }
    planted(tmp_path, files)
    assert runs_extended_or_typed(tmp_path) == {
        "adapters/_sub.py": [2],
        "adapters/_arg.py": [1],
        "adapters/_attr.py": [2],
        "adapters/_ret.py": [1],
    }
