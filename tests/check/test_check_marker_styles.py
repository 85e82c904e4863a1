"""`moca-agui check` reads every marker style as the layer does: a stream the layer cited
in any style passes, and a citation whose marker the answer does not show is flagged."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import moca_agui
from moca_agui.check import check_events
from streams import message, run, source, tool_call
from support import citation_events, collect, record

RECORDS = [record(f"n{number}.md") for number in range(1, 5)]
ANSWERS = [
    "Both agree [1, 2], and [3].",
    "All [1-3], then [4].",
    "These [4, 1\u20132].",
    "Yes[^2] and [^1].\n\n[^1]: The hive notes.\n[^2]: The field guide.",
    "See \u30101\u3011 and \u30102\u2020the guide\u3011.",
]


def cited_stream(answer: str) -> list[dict[str, Any]]:
    search = tool_call("c1", "moca_search", {"query": "q", "results": RECORDS})
    events = run(search, message("m1", answer))
    return asyncio.run(collect(moca_agui.cite(source(events))))


@pytest.mark.parametrize("answer", ANSWERS)
def test_a_stream_cited_in_each_style_passes(answer: str) -> None:
    stream = cited_stream(answer)
    assert len(citation_events(stream)[0]["citations"]) >= 2
    assert check_events(stream) == []


@pytest.mark.parametrize("answer", ANSWERS)
def test_a_citation_whose_marker_the_answer_does_not_show_is_flagged(answer: str) -> None:
    stream = cited_stream(answer)
    for event in stream:  # the answer loses every text of its first marker
        if event["type"] == "TEXT_MESSAGE_CONTENT":
            marker = citation_events(stream)[0]["citations"][0]["marker"]
            event["delta"] = event["delta"].replace(marker, "")
    findings = check_events(stream)
    assert findings, answer
    assert {(f.level, f.rule) for f in findings} == {("error", "cited by the answer")}


@pytest.mark.parametrize(
    ("answer", "edited"),
    [
        ("First [1], then [2]. Again [1]. Done.", "Again [1, 2]. Done."),
        ("First [^1], then \u30102\u3011. Done.", "Both [1-2]. Done."),
    ],
)
def test_a_group_names_the_citations_of_its_numbers_as_the_npm_client_opens_them(
    answer: str, edited: str
) -> None:
    """Citations whose markers are `[1]` and `[2]`, with the answer now showing only `[1, 2]`:
    the group names both, as `locateMarkers` opens both (no "not cited" finding)."""
    stream = cited_stream(answer)
    assert len(citation_events(stream)[0]["citations"]) == 2
    deltas = [e for e in stream if e["type"] == "TEXT_MESSAGE_CONTENT"]
    deltas[0]["delta"] = edited
    for event in deltas[1:]:
        event["delta"] = ""
    assert check_events(stream) == []
