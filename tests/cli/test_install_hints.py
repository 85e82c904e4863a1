"""Every install hint works today: moca-agui is not on PyPI yet, so wherever the PyPI form
(`pip install 'moca-agui[...]'`) is named, the clone form is named with it and the PyPI
form is said to be for once it is released."""

from __future__ import annotations

import re

from support import ROOT

PYPI = re.compile(r"pip install 'moca-agui\[[^\]]*\]'")


def hint_lines() -> list[tuple[str, int, str]]:
    """(file, line number, the line and the one before) of each line naming the PyPI form,
    in the README and the docs pages."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for folder in ("core", "adapters", "examples"):
        files += sorted((ROOT / folder).rglob("*.py"))
    found = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for number, line in enumerate(lines, start=1):
            if PYPI.search(line):
                context = " ".join(lines[max(0, number - 2) : number])
                found.append((str(path.relative_to(ROOT)), number, context))
    return found


def test_every_pypi_hint_comes_with_the_install_from_a_clone() -> None:
    lines = hint_lines()
    assert lines  # the check sees the hints
    wrong = [
        (name, number, line)
        for name, number, line in lines
        if "once released" not in line.casefold()
        or ("pip install -e '." not in line and "pip_install(" not in line)
    ]
    assert wrong == []


def test_adapter_hints_are_built_by_one_helper() -> None:
    from moca_agui.adapter import pip_install

    assert pip_install("langgraph,demo") == (
        "pip install -e '.[langgraph,demo]' in a clone of moca-agui "
        "(once released: pip install 'moca-agui[langgraph,demo]')"
    )
