"""Each event names a message the client holds when it arrives.

A MESSAGES_SNAPSHOT replaces the client's messages (`@ag-ui/client` applies it so), and
emitters may name a streamed answer otherwise there (CrewAI: a completion id streamed, a
uuid in the snapshot; ag-ui-adk: ADK event ids). The answer's event then names the
snapshot's id; an answer the snapshot leaves out, or that cannot be told apart from
another, gets none.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    MessagesSnapshotEvent,
    RunAgentInput,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route
from thread_turns import after_run

import moca_agui
import moca_agui.client
from moca_agui.asgi import CitationMiddleware
from streams import message, run, source, tool_call
from support import (
    MESSAGES_CARRY_METADATA,
    carried_by_snapshot,
    citation_events,
    collect,
    parse_sse,
    record,
    ref,
    run_input,
)

A = record("a.md")
NEEDS_METADATA = pytest.mark.skipif(
    not MESSAGES_CARRY_METADATA,
    reason="ag-ui-protocol 0.1 messages have no metadata; 1.x: nox -s tests",
)


def snapshot(*answers: tuple[str, str]) -> MessagesSnapshotEvent:
    """The thread as the emitter holds it: the question, the Reader call, and `answers`."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "moca_get_node", "arguments": "{}"},
    }
    return MessagesSnapshotEvent(
        messages=[
            UserMessage(id="u1", content="q"),
            AssistantMessage(id="call-message", tool_calls=[call]),
            ToolMessage(id="tool-c1", tool_call_id="c1", content="{}"),
            *(AssistantMessage(id=mid, content=text) for mid, text in answers),
        ]
    )


async def events_of(*parts: Any) -> list[dict[str, Any]]:
    return await collect(moca_agui.cite(source(run(tool_call("c1", "moca_get_node", A), *parts))))


def held_when_it_arrives(stream: list[dict[str, Any]]) -> list[bool]:
    """For each citation event: whether `@ag-ui/client` holds the message it names then."""
    held = []
    for at, event in enumerate(stream):
        if event.get("name") == "moca.citations":
            messages = after_run([], stream[:at])
            held.append(any(m["id"] == event["value"]["messageId"] for m in messages))
    return held


async def through_middleware(frames: list[str], body: dict[str, Any] | None = None) -> str:
    """The SSE body `CitationMiddleware` sends for a service that answers `frames`."""

    async def endpoint(request: Request) -> StreamingResponse:
        return StreamingResponse(iter(frames), media_type="text/event-stream")

    app = CitationMiddleware(Starlette(routes=[Route("/", endpoint, methods=["POST"])]))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", json=body or run_input())
    return response.text


def encoded(events: list[BaseEvent]) -> list[str]:
    encoder = EventEncoder()
    return [encoder.encode(event) for event in events]


async def test_an_answer_the_snapshot_renames_is_cited_under_the_snapshots_id():
    stream = await events_of(
        message("chatcmpl-1", "Mark the ", "queen [1]."),
        snapshot(("5580bf26", "Mark the queen [1].")),
    )
    [value] = citation_events(stream)
    assert value["messageId"] == "5580bf26"
    assert value["citations"] == [{"marker": "[1]", "record": A}]
    assert held_when_it_arrives(stream) == [True]


async def test_an_answer_the_snapshot_keeps_under_its_id_keeps_it():
    stream = await events_of(message("m1", "See [1]."), snapshot(("m1", "See [1].")))
    assert [v["messageId"] for v in citation_events(stream)] == ["m1"]


async def test_an_answer_the_snapshot_drops_is_not_cited(caplog):
    caplog.set_level(logging.INFO, "moca_agui")
    stream = await events_of(message("m1", "See [1]."), snapshot(("other", "Another answer.")))
    assert citation_events(stream) == []
    assert "message m1 is not in the snapshot; not cited" in caplog.text


async def test_two_answers_of_one_text_renamed_are_left_out_not_guessed():
    stream = await events_of(
        message("s1", "See [1]."),
        message("s2", "See [1]."),
        snapshot(("n1", "See [1]."), ("n2", "See [1].")),
    )
    assert citation_events(stream) == []


async def test_a_message_the_run_already_holds_is_never_taken_for_a_renamed_one():
    stream = await events_of(
        message("m1", "See [1]."),
        message("m2", "See [1]."),
        snapshot(("m2", "See [1]."), ("new", "See [1].")),
    )
    assert [v["messageId"] for v in citation_events(stream)] == ["new", "m2"]


async def test_the_middleware_names_the_snapshots_id_too():
    events = run(
        tool_call("c1", "moca_get_node", A),
        message("chatcmpl-1", "Mark the queen [1]."),
        snapshot(("5580bf26", "Mark the queen [1].")),
    )
    text = await through_middleware(encoded(events))
    stream = parse_sse(text)
    [value] = citation_events(stream)
    assert value["messageId"] == "5580bf26"
    assert value["citations"][0]["record"]["node"]["ref"] == ref(A)
    assert held_when_it_arrives(stream) == [True]


# -- the records ride on the message too -----------------------------------------------


def metadata_of(stream: list[dict[str, Any]], message_id: str) -> dict[str, Any] | None:
    """The metadata of `message_id` in the stream's snapshot."""
    [snap] = [event for event in stream if event["type"] == "MESSAGES_SNAPSHOT"]
    [held] = [m for m in snap["messages"] if m["id"] == message_id]
    return held.get("metadata")


async def test_the_snapshot_carries_each_answers_event_value_on_its_metadata():
    stream = await events_of(
        message("chatcmpl-1", "Mark the ", "queen [1]."),
        snapshot(("5580bf26", "Mark the queen [1].")),
    )
    [value] = citation_events(stream)
    assert metadata_of(stream, "5580bf26") == (
        {"moca.citations": value} if MESSAGES_CARRY_METADATA else None
    )
    assert [metadata_of(stream, mid) for mid in ("u1", "call-message", "tool-c1")] == [None] * 3
    kinds = [event["type"] for event in stream]
    assert kinds[-3:] == ["MESSAGES_SNAPSHOT", "CUSTOM", "RUN_FINISHED"]


@NEEDS_METADATA
async def test_a_client_that_keeps_only_the_snapshots_messages_still_has_every_source():
    stream = await events_of(
        message("s1", "Mark the queen [1]."),
        message("s2", "Again, the queen [1]."),
        snapshot(("n1", "Mark the queen [1]."), ("n2", "Again, the queen [1].")),
    )
    kept = after_run([], stream)  # what a history store restores: messages, no CUSTOM event
    carried = {m["id"]: m["metadata"]["moca.citations"] for m in kept if "metadata" in m}
    assert carried == {value["messageId"]: value for value in citation_events(stream)}
    assert set(carried) == {"n1", "n2"}
    conversation = moca_agui.client.Conversation()
    for event in stream:
        if event["type"] == "MESSAGES_SNAPSHOT":  # the snapshot alone
            conversation.feed(event)
    assert {m.id: list(m.sources) for m in conversation.messages()} == {
        "n1": [ref(A)],
        "n2": [ref(A)],
    }


@NEEDS_METADATA
async def test_the_answers_other_metadata_is_kept_and_an_open_answer_carries_nothing():
    held = snapshot(("m1", "See [1]."), ("m2", "Still writ"))
    held.messages[3].metadata = {"citations": [{"bedrock": True}]}
    stream = await collect(
        moca_agui.cite(
            source(
                run(
                    tool_call("c1", "moca_get_node", A),
                    message("m1", "See [1]."),
                    message("m2", "Still writ")[:2],  # started, not ended
                    held,
                )
            )
        )
    )
    value = metadata_of(stream, "m1")["moca.citations"]  # type: ignore[index]
    assert metadata_of(stream, "m1") == {"citations": [{"bedrock": True}], "moca.citations": value}
    assert value["citations"] == [{"marker": "[1]", "record": A}]
    assert metadata_of(stream, "m2") is None


async def test_the_middlewares_snapshot_carries_them_with_its_other_lines_kept():
    frames = encoded(
        run(
            tool_call("c1", "moca_get_node", A),
            message("chatcmpl-1", "Mark the queen [1]."),
            snapshot(("5580bf26", "Mark the queen [1].")),
        )
    )
    frames[-2] = "id: 7\n" + frames[-2]  # the snapshot, with an SSE id line
    text = await through_middleware(frames)
    assert "id: 7\ndata: {" in text
    stream = parse_sse(text.replace("id: 7\n", ""))
    [value] = citation_events(stream)
    assert metadata_of(stream, "5580bf26") == (
        {"moca.citations": value} if MESSAGES_CARRY_METADATA else None
    )
    assert [e["type"] for e in stream][-3:] == ["MESSAGES_SNAPSHOT", "CUSTOM", "RUN_FINISHED"]


# -- an answer only the snapshot carries (a model that does not stream: ag-ui-crewai) ------


def carried_only(question_id: str) -> MessagesSnapshotEvent:
    """The thread as the emitter holds it: an earlier turn's answer, then this run's
    question, the Reader call, and the answer the emitter never streamed."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "moca_get_node", "arguments": "{}"},
    }
    return MessagesSnapshotEvent(
        messages=[
            UserMessage(id="u0", content="earlier"),
            AssistantMessage(id="earlier", content="Earlier [1]."),
            UserMessage(id=question_id, content="q"),
            AssistantMessage(id="call-message", tool_calls=[call]),
            ToolMessage(id="tool-c1", tool_call_id="c1", content="{}"),
            AssistantMessage(id="uuid-answer", content="Mark the queen [1]."),
        ]
    )


async def test_an_answer_only_a_snapshot_carries_after_the_question_is_cited():
    question = run_input(run_id="run-2")["messages"][-1]
    earlier = [
        {"id": "u0", "role": "user", "content": "earlier"},
        {"id": "earlier", "role": "assistant", "content": "Earlier [1]."},
    ]
    body = run_input(run_id="run-2", history=earlier)
    events = run(tool_call("c1", "moca_get_node", A), carried_only(question["id"]))
    stream = await collect(moca_agui.cite(source(events), input=RunAgentInput.model_validate(body)))
    [value] = citation_events(stream)
    assert value["messageId"] == "uuid-answer"  # never the earlier turn's answer
    assert value["citations"] == [{"marker": "[1]", "record": A}]
    assert carried_by_snapshot(stream) == (
        {"uuid-answer": value} if MESSAGES_CARRY_METADATA else {}
    )
    # without the run's input, the question is not known: nothing is taken from the snapshot
    assert citation_events(await collect(moca_agui.cite(source(events)))) == []


async def test_the_middleware_cites_an_answer_only_a_snapshot_carries():
    body = run_input(run_id="run-2")
    events = run(tool_call("c1", "moca_get_node", A), carried_only(body["messages"][-1]["id"]))
    text = await through_middleware(encoded(events), body)
    stream = parse_sse(text)
    [value] = citation_events(stream)
    assert (value["messageId"], value["citations"]) == (
        "uuid-answer",
        [{"marker": "[1]", "record": A}],
    )
    assert carried_by_snapshot(stream) == (
        {"uuid-answer": value} if MESSAGES_CARRY_METADATA else {}
    )


def test_the_python_client_applies_a_snapshot_as_ag_ui_client_does(caplog):
    """A message the snapshot leaves out is gone, so an event naming it later is ignored (as
    `moca-agui check` says every client does); sources that came before a rename stay."""
    caplog.set_level(logging.WARNING, "moca_agui")
    value = {"version": 1, "messageId": "s1", "citations": [{"marker": "[1]", "record": A}]}
    start = [
        {"type": "TEXT_MESSAGE_START", "messageId": "s1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "s1", "delta": "See [1]."},
        {"type": "TEXT_MESSAGE_END", "messageId": "s1"},
    ]
    renamed = {"type": "MESSAGES_SNAPSHOT", "messages": [
        {"id": "n1", "role": "assistant", "content": "See [1]."},
    ]}  # fmt: skip
    cite_event = {"type": "CUSTOM", "name": "moca.citations", "value": value}
    late, early = moca_agui.client.Conversation(), moca_agui.client.Conversation()
    for event in [*start, renamed, cite_event]:
        late.feed(event)
    for event in [*start, cite_event, renamed]:
        early.feed(event)
    assert [(m.id, m.citations) for m in late.messages()] == [("n1", None)]
    assert "ignored moca.citations for 's1': no such assistant message" in caplog.text
    assert [(m.id, list(m.sources)) for m in early.messages()] == [("n1", [ref(A)])]
