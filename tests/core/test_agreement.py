"""`cite`, `moca-agui check` and `moca_agui.client.Conversation` read a stream alike: what
`cite` sends passes the checker, and a client attaches each event to the message it names."""

from __future__ import annotations

import asyncio
from typing import Any

from ag_ui.core import (
    BaseEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageChunkEvent,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import moca_agui
from moca_agui.check import Finding, check_events
from moca_agui.client import Conversation, read_value
from streams import generated_run, generated_step, run, source, tool_call
from support import citation_events, record, wire

A, B, C = record("a.md"), record("b.md"), record("c.md")


def cite_all(events: list[BaseEvent]) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        return [wire(event) async for event in moca_agui.cite(source(events))]

    return asyncio.run(go())


def errors(findings: list[Finding]) -> list[Finding]:
    return [finding for finding in findings if finding.level == "error"]


def conversation_of(stream: list[dict[str, Any]]) -> Conversation:
    conversation = Conversation()
    for event in stream:
        conversation.feed(event)
    return conversation


# -- the chunk case ------------------------------------------------------------------------

CHUNK_CASE = run(
    tool_call("c1", "moca_search", {"query": "q", "results": [A]}),
    TextMessageChunkEvent(message_id="m1", role="assistant", delta="Per the handbook "),
    StepStartedEvent(step_name="think"),
    TextMessageChunkEvent(delta="[1]"),  # continues nothing: STEP_STARTED closed m1
    StepFinishedEvent(step_name="think"),
)


def test_the_chunk_case_cite_check_and_client_agree_with_ag_ui_client() -> None:
    stream = cite_all(CHUNK_CASE)
    # What @ag-ui/client shows: transformChunks ends m1 at STEP_STARTED (a synthesized
    # TEXT_MESSAGE_END), and throws "First TEXT_MESSAGE_CHUNK must have a messageId" at
    # the next chunk; so m1 reads "Per the handbook " and no message holds "[1]".
    [value] = citation_events(stream)
    assert (value["messageId"], value["citations"]) == ("m1", [])
    findings = check_events(stream)
    assert errors(findings) == []
    assert [(f.level, f.section, f.rule, f.event) for f in findings] == [
        ("warning", "AG-UI", "TEXT_MESSAGE_CHUNK", 7)
    ]
    (message,) = conversation_of(stream).messages()
    assert (message.id, message.text, message.citations) == ("m1", "Per the handbook ", ())


def test_the_chunk_case_cited_as_m1_text_is_an_error_and_shows_no_marker() -> None:
    """A service that counts [1] as m1's text (as cite once did) is told so."""
    stream = [wire(event) for event in CHUNK_CASE]
    event = {"type": "CUSTOM", "name": "moca.citations",
             "value": {"version": 1, "messageId": "m1",
                       "citations": [{"marker": "[1]", "record": A}]}}  # fmt: skip
    stream.insert(len(stream) - 1, event)
    findings = errors(check_events(stream))
    assert [(f.rule, f.event) for f in findings] == [("cited by the answer", len(stream) - 2)]
    (message,) = conversation_of(stream).messages()
    assert "[1]" not in message.text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(generated_step, max_size=12))
def test_what_cite_sends_passes_the_checker_and_reaches_its_message(steps: list[Any]) -> None:
    stream = cite_all(generated_run(steps))

    assert errors(check_events(stream)) == []

    conversation = conversation_of(stream)
    for value in citation_events(stream):
        message = conversation.message(value["messageId"])
        assert message is not None, value["messageId"]
        read, problems = read_value(value)
        assert problems == [] and read is not None
        assert message.citations == read.citations
        assert len(read.citations) == len(value["citations"])  # all of them
