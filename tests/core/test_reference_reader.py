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
import moca_agui.adapter
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


async def test_a_lookup_may_change_what_reader_lookup_gave_it() -> None:
    """What it returns is the caller's: a lookup that adds to it (here, a long text) is
    measured and checked as it is then, so the event stays within its budget."""
    ref = "https://example.com/moca/support-kb@4.2.0#refund-window.md"

    async def enriched(node_ref: str) -> dict[str, Any] | None:
        record = await LOOKUP(node_ref)
        assert record is not None and type(record) is dict
        record["text"] = "y" * 5000
        return record

    citation_run = moca_agui.adapter.CitationRun(
        moca_agui.CitationOptions(lookup=enriched, max_event_bytes=3000)
    )
    citation_run.capture("moca_search", {"query": "q", "results": [{"ref": ref, "title": "A"}]})
    citation_run.add_text("m1", f"See {ref}.")
    event = await citation_run.events.event_for("m1")
    assert event is not None
    [citation] = event.value["citations"]
    assert citation["record"]["node"]["ref"] == ref and "text" not in citation["record"]
