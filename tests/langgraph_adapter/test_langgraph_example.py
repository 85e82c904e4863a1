"""examples/langgraph/app.py runs as its first lines say: on any question it prints the
stream `moca-agui demo --question` prints, and served it answers where it says."""

from __future__ import annotations

import pytest
from example_runs import QUESTIONS, assert_answers_like_the_demo, assert_serves_where_it_says


@pytest.mark.parametrize("question", QUESTIONS)
def test_it_prints_the_stream_the_demo_prints(question: str) -> None:
    assert_answers_like_the_demo("langgraph", question)


def test_it_serves_where_its_first_lines_and_its_docs_page_say() -> None:
    assert_serves_where_it_says("langgraph")
