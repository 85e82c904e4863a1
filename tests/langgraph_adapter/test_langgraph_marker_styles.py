"""Every marker style on a real LangGraph agent (scripted offline model, streamed in
chunks, served over HTTP): grouped, ranged, footnote and full-width markers cite each
number's source, also when a chunk ends inside the marker."""

from __future__ import annotations

from typing import Any

import pytest
from lg_chat import Say, StreamingChatModel
from lg_reader import GET_C, SEARCH, A, B, C, moca_get_node, moca_search
from lg_service import agent, app_for, post

from support import assert_valid_stream, citation_events, run_input


def cited(marker: str, *records: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"marker": marker, "record": rec} for rec in records]


ANSWERS = [
    (["Both agree [1, 2] and [3]."], [*cited("[1, 2]", A, B), *cited("[3]", C)]),
    (["Both agree [1", ", 2] and [3]."], [*cited("[1, 2]", A, B), *cited("[3]", C)]),
    (["All [1-3]."], cited("[1-3]", A, B, C)),
    (["All [2\u2013", "3] and [1]."], [*cited("[2\u20133]", B, C), *cited("[1]", A)]),
    (["Yes[^2].\n\n[^", "2]: The hive notes."], cited("[^2]", B)),
    (["See \u30101\u3011 and \u30103\u2020the ", "hive\u3011."],
     [*cited("\u30101\u3011", A), *cited("\u30103\u2020the hive\u3011", C)]),
    (["None of [1-4], [4, 5] nor \u30102:0\u2020x\u3011; only [2, 9]."], cited("[2, 9]", B)),
    (["`[1, 2]` is code, [3-1] no range, and [see [^1]](https://example.org) a link."], []),
]  # fmt: skip


@pytest.mark.parametrize(("says", "expected"), ANSWERS, ids=["".join(s) for s, _ in ANSWERS])
async def test_each_style_cites_each_number_through_langgraph(says, expected):
    script = [[SEARCH], [GET_C], [Say(text) for text in says]]
    model = StreamingChatModel(script=script)
    stream = await post(app_for(agent(model, [moca_search, moca_get_node])), run_input())
    assert_valid_stream(stream)
    *_, answer = citation_events(stream)
    assert answer["citations"] == expected
