"""examples/ag_ui/app.py, the docs' bare-SDK diff as a service, runs as its first lines
say, on any question; the docs' diff is the example's code."""

from __future__ import annotations

import re
import socket

import pytest
from example_runs import (
    EXAMPLES,
    QUESTIONS,
    assert_answers_like_the_demo,
    assert_serves_where_it_says,
    run,
)
from readme_code import readme_diffs


@pytest.mark.parametrize("question", QUESTIONS)
def test_it_prints_the_stream_the_demo_prints(question: str) -> None:
    assert_answers_like_the_demo("ag_ui", question)


def test_it_serves_where_its_first_lines_and_its_docs_page_say() -> None:
    assert_serves_where_it_says("ag_ui")


def test_the_docs_diff_is_the_examples_code() -> None:
    [diff] = readme_diffs("The one line", "frameworks/ag-ui.md")
    after = [line.strip() for line in diff.splitlines() if line.strip()]
    source = (EXAMPLES / "ag_ui/app.py").read_text(encoding="utf-8")
    code = [line.split("  # ")[0].strip() for line in source.splitlines()]
    assert [line for line in after if line not in code and not imported(line, code)] == []


def imported(line: str, code: list[str]) -> bool:
    """`from m import a, b` is in `code` as imports of a and b from m, maybe among others."""
    found = re.fullmatch(r"from (\S+) import (.+)", line)
    if found is None:
        return False
    module, names = found.group(1), found.group(2).split(", ")
    imports = [c for c in code if c.startswith(f"from {module} import ")]
    have = {name for c in imports for name in c.split(" import ", 1)[1].split(", ")}
    return set(names) <= have


def test_a_busy_port_is_one_line_naming_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run(str(EXAMPLES / "ag_ui/app.py"), "--port", str(port))
    assert done.returncode == 2
    assert done.stderr == (
        f"app.py: port {port} on 127.0.0.1 is already in use; choose another with --port "
        "(--port 0 takes any free port)\n"
    )
