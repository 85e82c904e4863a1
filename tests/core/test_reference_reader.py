"""The reference Reader's captured answers through `cite`, as a bare AG-UI service
forwards them (the MCP result's text in TOOL_CALL_RESULT): its records are cited exactly
as it sent them; compact results only through a lookup (`moca_agui.reader_lookup` on its
own `moca_get_node` answers); errors and structure items never."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from reference_calls import LOOKUP, answer, by_get_node, expected, reference_calls

import moca_agui
from streams import message, run, source, tool_call
from support import citation_events, collect


def stream(capture: dict[str, Any]) -> list[Any]:
    text = capture["result"]["content"][0]["text"]
    args = json.dumps(capture["arguments"])
    return run(tool_call("c1", capture["tool"], text, args=args), message("m1", answer(capture)))


@reference_calls()
@pytest.mark.parametrize("lookup", [False, True], ids=["no-lookup", "lookup"])
async def test_each_captured_answer_is_cited_as_the_reader_sent_it(
    capture: dict[str, Any], lookup: bool, caplog: pytest.LogCaptureFixture
) -> None:
    options = {"lookup": LOOKUP} if lookup else {}
    with caplog.at_level(logging.DEBUG, logger="moca_agui"):
        events = await collect(moca_agui.cite(source(stream(capture)), **options))
    (value,) = citation_events(events)
    assert value["messageId"] == "m1"
    assert value["citations"] == expected(capture, lookup=lookup)
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


async def test_the_lookup_gives_the_record_or_none() -> None:
    ref = "https://example.com/moca/support-kb@4.2.0#refund-window.md"
    record = await LOOKUP(ref)
    assert record is not None and record["node"]["ref"] == ref
    assert by_get_node(ref) is not None
    assert await LOOKUP("https://example.com/moca/support-kb@4.2.0#no-such-node.md") is None

    async def missing(ref: str) -> dict[str, Any]:  # the captured isError answer, as sent
        return {"content": [{"type": "text", "text": '{"error": "no node"}'}], "isError": True}

    assert await moca_agui.reader_lookup(missing)(ref) is None
