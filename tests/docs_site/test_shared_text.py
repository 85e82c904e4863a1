"""What the README and the docs say twice is said once: each passage marked
`<!-- shared:NAME -->` ... `<!-- /shared:NAME -->` reads the same wherever it is (the
README links to the docs on GitHub, the site relatively)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import ROOT

GITHUB_DOCS = "](https://github.com/openmoca/moca-agui/blob/main/docs/"
README = ROOT / "README.md"
HOME = ROOT / "docs" / "index.md"
PAGES = [README, HOME, ROOT / "docs" / "getting-started.md"]
#: What the docs home page says as the README does: the intro, the event, the install
#: facts, the framework table and what `[all]` leaves out.
HOME_PASSAGES = {"intro", "event", "install", "frameworks", "all"}


def passages(path: Path) -> dict[str, str]:
    """The shared passages of a page, by name, README links made relative to docs/."""
    text = path.read_text(encoding="utf-8")
    found = re.findall(r"<!-- shared:([\w-]+) -->\n(.*?)<!-- /shared:\1 -->", text, re.DOTALL)
    assert len({name for name, _ in found}) == len(found), f"a passage twice in {path.name}"
    return {name: body.replace(GITHUB_DOCS, "](") for name, body in found}


def test_the_docs_home_page_and_the_readme_share_their_passages() -> None:
    assert set(passages(HOME)) == HOME_PASSAGES <= set(passages(README))


@pytest.mark.parametrize("page", PAGES[1:], ids=lambda p: p.name)
def test_a_shared_passage_reads_the_same_in_the_readme(page: Path) -> None:
    readme = passages(README)
    assert passages(page)
    for name, body in passages(page).items():
        assert body == readme[name], f"{page.name}'s {name!r} differs from the README's"


def test_the_framework_table_has_a_row_for_each_framework_page() -> None:
    table = passages(HOME)["frameworks"]
    pages = sorted(p.name for p in (ROOT / "docs" / "frameworks").glob("*.md"))
    assert sorted(re.findall(r"\]\(frameworks/([\w-]+\.md)\)", table)) == pages


def test_each_framework_page_says_which_install_line_runs_its_example() -> None:
    for page in sorted((ROOT / "docs" / "frameworks").glob("*.md")):
        install = page.read_text(encoding="utf-8").split("## Install\n", 1)[1].split("\n## ")[0]
        name = page.stem
        assert f"`moca-agui demo --framework {name}`" in install, page.name
        assert "exits with status 2" in install, page.name
