"""No name the suite makes importable is a package's.

`pythonpath = ["tests"]` puts every folder and module of tests/ on the import path, and
pytest puts each folder without `__init__.py` there too. A folder named like a framework
then is a namespace package of that name where the framework is not installed (and
`import agent_framework` finds it), or merges into the framework where it is one
(`llama_index`, `langgraph`). Hence `tests/<framework>_adapter/`.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import tomllib
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from support import ROOT

TESTS = ROOT / "tests"


def importable_names() -> dict[str, Path]:
    """Each top-level name the suite makes importable, and what it imports."""
    names = {}
    for path in TESTS.iterdir():
        if path.is_dir() and not path.name.startswith(("_", ".")):
            names[path.name] = path
            if not (path / "__init__.py").exists():
                names.update({module.stem: module for module in path.glob("*.py")})
        elif path.suffix == ".py":
            names[path.stem] = path
    return names


def installed_modules() -> set[str]:
    """The top-level modules of every distribution installed in this environment."""
    return set(importlib.metadata.packages_distributions())


def requirements() -> list[str]:
    """What the project installs, here or in another environment: the requirements of
    pyproject.toml (its extras too) and each `session.install(...)` of noxfile.py."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    found = [*project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        found += extra
    noxfile = ast.parse((ROOT / "noxfile.py").read_text("utf-8"))
    for node in ast.walk(noxfile):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "install":
            found += [
                arg.value
                for arg in node.args
                if isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and not arg.value.startswith(("-", "."))
            ]
    return found


def module_names_of(requirement: str) -> set[str]:
    """The modules a distribution may be imported as, from its name alone: each leading
    run of its words (`pydantic-ai-slim`: pydantic, pydantic_ai, pydantic_ai_slim), as
    `agent-framework-core` is `agent_framework` and `strands-agents` is `strands`."""
    try:
        words = re.split(r"[-_.]+", Requirement(requirement).name.lower())
    except InvalidRequirement:  # a value of an option, such as editable_mode=strict
        return set()
    return {"_".join(words[:count]) for count in range(1, len(words) + 1)}


def taken_names() -> set[str]:
    """Names no folder or module of tests/ may have."""
    taken = installed_modules()
    for requirement in requirements():
        taken |= module_names_of(requirement)
    return taken


def test_no_folder_or_module_of_the_tests_is_named_like_a_package() -> None:
    names, taken = importable_names(), taken_names()
    # The check sees folders, top-level modules and a folder's modules...
    assert {"core", "support", "lg_chat"} <= names.keys()
    # ...and the packages of frameworks installed here, in other sessions, or by no extra.
    frameworks = {"langgraph", "llama_index", "pydantic_ai", "strands", "ag2", "google"}
    assert frameworks | {"agent_framework", "agno"} <= taken
    clashes = {name: str(names[name].relative_to(ROOT)) for name in names.keys() & taken}
    assert clashes == {}, "rename these: a package of that name is installed or required"
