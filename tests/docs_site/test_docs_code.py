"""Every code block of the docs site runs as shown: each Python block compiles as a module
(no top-level `await`), names nothing it does not define, and runs where its framework is
installed; each install line names extras that exist, each example command a file that
does; the README stays short and links every docs page it names absolutely."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
from readme_code import DOCS, README, ROOT, docs_blocks, docs_pages, undefined_names

BLOCKS = docs_blocks()
#: The sessions that run the blocks whose framework `[all]` cannot hold, by a module the
#: block imports: each session's tests run the block (`run_block`) against a Reader.
SESSION_OF = {
    "langchain_mcp_adapters": "tests-langgraph-mcp",
    "agent_framework": "tests-agent-framework",
    "agent_framework_ag_ui": "tests-agent-framework",
}
GITHUB = "https://github.com/openmoca/moca-agui/blob/main/"


def test_the_docs_have_python_blocks_to_run() -> None:
    assert len(BLOCKS) >= 6
    assert {page for page, _, _ in BLOCKS} >= {"reader.md", "clients.md"}


@pytest.mark.parametrize(("page", "line", "code"), BLOCKS, ids=[f"{p}:{n}" for p, n, _ in BLOCKS])
def test_each_python_block_runs_as_shown(page: str, line: int, code: str) -> None:
    compiled = compile(code, f"docs/{page}:{line}", "exec")  # a SyntaxError on top-level await
    assert undefined_names(code) == set()
    imported = set(re.findall(r"^(?:from|import) ([\w.]+)", code, flags=re.MULTILINE))
    missing = sorted(name for name in imported if not _installed(name))
    if missing:
        sessions = sorted(
            {SESSION_OF[name.split(".")[0]] for name in missing if name.split(".")[0] in SESSION_OF}
        )
        where = f": nox -s {' and nox -s '.join(sessions)} runs it" if sessions else ""
        pytest.skip(f"needs {', '.join(missing)}, not installed here{where}")
    exec(compiled, {"__name__": "docs_block"})


def _installed(module: str) -> bool:
    """Whether `module` (dotted: `llama_index.tools.mcp`) can be imported; a namespace
    package such as `llama_index` is installed by any of its distributions."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def _extras() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return set(project["optional-dependencies"])


def test_every_install_line_names_extras_that_exist() -> None:
    texts = [README.read_text(encoding="utf-8")]
    texts += [(DOCS / page).read_text(encoding="utf-8") for page in docs_pages()]
    named = [
        extra
        for text in texts
        for group in re.findall(r"pip install (?:-e )?'(?:\.|moca-agui)\[([^\]]+)\]'", text)
        for extra in group.split(",")
    ]
    assert named
    assert sorted(set(named) - _extras()) == []


def test_every_example_command_names_a_file_that_exists() -> None:
    for page in docs_pages():
        text = (DOCS / page).read_text(encoding="utf-8")
        for path in re.findall(r"python (examples/\S+\.py)", text):
            assert (ROOT / path).is_file(), (page, path)


@pytest.mark.parametrize(
    ("readme", "lines"), [(README, 200), (ROOT / "js/README.md", 300)], ids=["pypi", "npm"]
)
def test_the_readme_is_short_and_its_links_resolve_off_github(readme: Path, lines: int) -> None:
    text = readme.read_text(encoding="utf-8")
    assert len(text.splitlines()) < lines
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert links
    assert [link for link in links if not link.startswith(("https://", "#"))] == []
    for link in links:
        if link.startswith(GITHUB):
            assert (ROOT / link.removeprefix(GITHUB).split("#")[0]).exists(), link


def test_every_diff_block_is_applied_and_run_by_a_test() -> None:
    """A ```diff block is code a user ends up with: some test applies it (`readme_diffs`)
    and runs it against its framework, with the names the page leaves to the user."""
    tests = [path.read_text(encoding="utf-8") for path in (ROOT / "tests").rglob("test_*.py")]
    with_diffs = [page for page in docs_pages() if "```diff" in (DOCS / page).read_text("utf-8")]
    assert len(with_diffs) >= 10
    unread = [page for page in with_diffs if not any(f'"{page}")' in text for text in tests)]
    assert unread == []


def test_getting_started_names_every_framework_of_the_demo() -> None:
    from moca_agui.demo.server import FRAMEWORKS

    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    paragraph = text.split("`--framework` is ", 1)[1].split("\n\n", 1)[0]
    assert sorted(set(FRAMEWORKS) - set(re.findall(r"`([\w-]+)`", paragraph))) == []
