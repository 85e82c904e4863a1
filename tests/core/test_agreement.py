"""`cite`, `moca-agui check` and `moca_agui.client.Conversation` read a stream alike: what
`cite` sends passes the checker, and a client attaches each event to the message it names."""

from __future__ import annotations

import asyncio
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    EventType,
    RawEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import moca_agui
from moca_agui.check import Finding, check_events
from moca_agui.client import Conversation, read_value
from streams import run, source, tool_call
from support import citation_events, record, ref, wire

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


# -- generated streams ---------------------------------------------------------------------

POOL = [A, B, C]
fragment = st.one_of(
    st.sampled_from([ref(r) for r in POOL]),
    st.sampled_from(["[1]", "[2]", "[3]", "[4]"]),
    st.sampled_from(["refunds", "see", "(", ")", ".", "\n"]),
)
words = st.lists(fragment, max_size=5).map(" ".join)
step = st.one_of(
    st.tuples(
        st.just("tool"),
        st.sampled_from(["moca_search", "moca_get_node", "web_search"]),
        st.lists(st.sampled_from(POOL), min_size=1, max_size=3),
    ),
    st.tuples(
        st.just("message"),
        st.sampled_from(["m1", "m2", "m3"]),  # reopened ids too
        st.sampled_from(["assistant", "assistant", "user"]),
        st.lists(words, min_size=1, max_size=3),
        st.sampled_from(["pairs", "chunks"]),
    ),
    st.tuples(st.just("continue"), words),  # a chunk without messageId
    st.tuples(st.just("between"), st.sampled_from(["step", "raw", "state", "custom"])),
    st.tuples(st.just("end"), st.sampled_from(["finished", "error"])),
)


def between(kind: str, index: int) -> list[BaseEvent]:
    if kind == "step":
        return [StepStartedEvent(step_name=f"s{index}"), StepFinishedEvent(step_name=f"s{index}")]
    if kind == "raw":
        return [RawEvent(event={"n": index})]
    if kind == "state":
        return [StateDeltaEvent(delta=[])]
    return [CustomEvent(type=EventType.CUSTOM, name="other", value=index)]


def build(steps: list[Any]) -> list[BaseEvent]:
    """Runs of the steps: a new run after each end, message ids unique to their run."""
    events: list[BaseEvent] = []
    runs = 0

    def start() -> None:
        nonlocal runs
        runs += 1
        events.append(RunStartedEvent(thread_id="t", run_id=f"r{runs}"))

    start()
    for index, (kind, *body) in enumerate(steps):
        if kind == "tool":
            name, records = body
            result = records[0] if name == "moca_get_node" else {"query": "q", "results": records}
            events.extend(tool_call(f"call-{index}", name, result))
        elif kind == "message":
            message_id, role, deltas, style = body
            message_id = f"r{runs}-{message_id}"
            if style == "pairs":
                events.append(TextMessageStartEvent(message_id=message_id, role=role))
                events.extend(TextMessageContentEvent(message_id=message_id, delta=f" {d}")
                              for d in deltas)  # fmt: skip
                events.append(TextMessageEndEvent(message_id=message_id))
            else:
                events.append(TextMessageChunkEvent(message_id=message_id, role=role,
                                                    delta=f" {deltas[0]}"))  # fmt: skip
                events.extend(TextMessageChunkEvent(delta=f" {d}") for d in deltas[1:])
        elif kind == "continue":
            events.append(TextMessageChunkEvent(delta=f" {body[0]}"))
        elif kind == "between":
            events.extend(between(body[0], index))
        else:
            end = RunFinishedEvent if body[0] == "finished" else RunErrorEvent
            events.append(end(thread_id="t", run_id=f"r{runs}") if body[0] == "finished"
                          else end(message="boom"))  # fmt: skip
            start()
    events.append(RunFinishedEvent(thread_id="t", run_id=f"r{runs}"))
    return events


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, max_size=12))
def test_what_cite_sends_passes_the_checker_and_reaches_its_message(steps: list[Any]) -> None:
    stream = cite_all(build(steps))

    assert errors(check_events(stream)) == []

    conversation = conversation_of(stream)
    for value in citation_events(stream):
        message = conversation.message(value["messageId"])
        assert message is not None, value["messageId"]
        read, problems = read_value(value)
        assert problems == [] and read is not None
        assert message.citations == read.citations
        assert len(read.citations) == len(value["citations"])  # all of them
