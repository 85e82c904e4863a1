"""examples/client.py, a Python client on `moca_agui.client`, asked each question against
a served example: it prints the answer and the sources the demo cites, in their order."""

from __future__ import annotations

import pytest
from example_runs import EXAMPLES, OFF_TOPIC, QUESTIONS, demo_cited, run, serving


@pytest.fixture(scope="module")
def url() -> object:
    with serving("ag_ui") as endpoint:
        yield endpoint


@pytest.mark.parametrize("question", QUESTIONS)
def test_it_prints_the_answer_and_the_sources_it_cites(url: str, question: str) -> None:
    done = run(str(EXAMPLES / "client.py"), "--url", url, question)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    (expected,) = demo_cited(question)
    if question == OFF_TOPIC:
        assert lines[-1] == "No sources cited."
        return
    start = next(i for i, line in enumerate(lines) if line.startswith("Sources (trust as of 20"))
    sources = lines[start + 1 :: 2]  # each source: its line, then its badges
    assert [(line.split()[0], line.split()[-1]) for line in sources] == [
        (marker or "*", ref) for marker, ref in expected
    ]
    assert all(badges.startswith("      ") for badges in lines[start + 2 :: 2])
