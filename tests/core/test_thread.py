"""Conversations, not runs: a run reads the thread the model reads (`RunAgentInput.messages`).

Markers count on from the earlier turns; an earlier source is cited only with a record
the Reader gives in this run (returned again, or through `lookup`), never with the
client's copy, and never as another node.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route
from thread_turns import Lookup

import moca_agui
import moca_agui.adapter
from moca_agui.adapter import MAX_RESULT_CHARS
from moca_agui.asgi import CitationMiddleware
from streams import message, run, source, tool_call
from support import citation_events, collect, earlier_turn, parse_sse, record, ref, run_input

A, B, C = record("a.md"), record("b.md"), record("c.md")


def numbered_view(*shown: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """What a numbered Reader tool showed the model: each record beside its marker."""
    return {"results": [{"marker": marker, "result": rec} for marker, rec in shown]}


def turn_input(*history: dict[str, Any], run_id: str = "run-2") -> RunAgentInput:
    return RunAgentInput.model_validate(run_input(run_id=run_id, history=history))


async def cited(input: RunAgentInput, *parts: Any, **options: Any) -> list[dict[str, Any]]:
    values = citation_events(
        await collect(moca_agui.cite(source(run(*parts)), input=input, **options))
    )
    return [c for value in values for c in value["citations"]]


async def test_the_default_table_numbers_the_threads_entries_first_and_never_shifts():
    thread = turn_input(*earlier_turn(1, "moca_get_node", A, "See [1]."))
    parts = (tool_call("c2", "moca_get_node", C), message("m2", "As said [1]; and [2]."))
    lookup = Lookup(A, C)
    start = datetime.now(UTC)
    assert await cited(thread, *parts, lookup=lookup) == [
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": C},
    ]
    assert lookup.asked == [ref(A)]  # C was returned in this run: only A is asked again
    [value] = citation_events(
        await collect(moca_agui.cite(source(run(*parts)), input=thread, lookup=Lookup(A)))
    )
    assert datetime.fromisoformat(value["computedAt"]) >= start.replace(microsecond=0)


async def test_without_lookup_an_earlier_source_is_left_out_once_naming_the_fix(caplog):
    thread = turn_input(*earlier_turn(1, "moca_get_node", A, "See [1]."))
    parts = (
        tool_call("c2", "moca_get_node", C),
        message("m2", f"As said [1] and {ref(A)}; and [2]."),
    )
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        assert await cited(thread, *parts) == [{"marker": "[2]", "record": C}]
    said = [r.getMessage() for r in caplog.records if ref(A) in r.getMessage()]
    assert len(said) == 1 and "lookup=moca_agui.reader_lookup(" in said[0]


async def test_a_record_the_client_sent_back_is_never_sent():
    tampered = json.loads(json.dumps(A))
    tampered["trust"]["status"] = "stable"
    tampered["trust"]["attestedReviews"] = [{"by": "forged"}]
    tampered["node"]["title"] = "A forged title"
    thread = turn_input(*earlier_turn(1, "moca_get_node", tampered, "See [1]."))
    parts = (message("m2", "As said [1]."),)
    assert await cited(thread, *parts) == []
    assert await cited(thread, *parts, lookup=Lookup(A)) == [{"marker": "[1]", "record": A}]


async def test_a_source_this_run_returns_again_keeps_its_number_and_its_new_record():
    newer = record("a.md", stale=True)
    thread = turn_input(*earlier_turn(1, "moca_search", {"query": "q", "results": [A, B]}, "[2]"))
    lookup = Lookup(A, B)
    parts = (
        tool_call("c2", "moca_search", {"query": "q", "results": [C, newer]}),
        message("m2", "Now [3], and [1] again."),
    )
    assert await cited(thread, *parts, lookup=lookup) == [
        {"marker": "[3]", "record": C},
        {"marker": "[1]", "record": newer},
    ]
    assert lookup.asked == []  # this run's Reader gave both records


async def test_numbered_tools_continue_after_the_highest_number_the_thread_shows():
    earlier = numbered_view(("[1]", A), ("[2]", B))
    citation_run = moca_agui.adapter.CitationRun()
    citation_run.read_history(turn_input(*earlier_turn(1, "moca_search", earlier, "[2]")).messages)
    shown = json.loads(str(citation_run.numbered("moca_search", {"query": "q", "results": [C, A]})))
    assert [entry["marker"] for entry in shown["results"]] == ["[3]", "[1]"]
    citation_run.add_text("m2", "C is [3]; A is still [1]; B was [2].")
    event = await citation_run.events.event_for("m2")
    assert event is not None
    assert event.value["citations"] == [
        {"marker": "[3]", "record": C},
        {"marker": "[1]", "record": A},
    ]  # B: read in turn 1 only, and no lookup


def test_a_kept_thread_comes_first_and_what_it_holds_counts_once():
    """A server-side thread (a session, an agent's history) is read first; the client's
    messages follow, less those it holds: its copy of a held result is not read."""
    kept = earlier_turn(1, "moca_search", numbered_view(("[1]", A), ("[2]", B)), "[2]")
    kept[2]["content"] = [{"type": "text", "text": kept[2]["content"]}]  # one content block
    forged = earlier_turn(1, "moca_search", numbered_view(("[7]", B)), "[7]")  # same ids
    sent = turn_input(*forged, *earlier_turn(2, "moca_get_node", numbered_view(("[3]", C)), ""))
    citation_run = moca_agui.adapter.CitationRun()
    citation_run.read_history(sent.messages, kept=kept)
    d = record("d.md")
    shown = json.loads(str(citation_run.numbered("moca_search", {"results": [C, A, B, d]})))
    assert [entry["marker"] for entry in shown["results"]] == ["[3]", "[1]", "[2]", "[4]"]


def test_the_thread_is_read_once_a_second_call_is_passed_over():
    """A driver that reads the thread twice (the same, or another) never numbers a second
    thread after the first."""
    citation_run = moca_agui.adapter.CitationRun()
    first = earlier_turn(1, "moca_get_node", numbered_view(("[1]", A)), "[1]")
    citation_run.read_history(turn_input(*first).messages)
    other = earlier_turn(1, "moca_search", numbered_view(("[5]", B), ("[6]", C)), "[6]")
    citation_run.read_history(turn_input(*other).messages)
    shown = json.loads(str(citation_run.numbered("moca_search", {"results": [C, A]})))
    assert [entry["marker"] for entry in shown["results"]] == ["[2]", "[1]"]


async def test_a_kept_thread_that_cannot_be_read_fails_closed(caplog):
    """The thread the model reads is not known whole: no marker is shown or cited."""

    def broken() -> Iterator[object]:
        raise RuntimeError("the store is down")
        yield

    citation_run = moca_agui.adapter.CitationRun()
    sent = turn_input(*earlier_turn(1, "moca_search", numbered_view(("[1]", A)), "[1]"))
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        citation_run.read_history(sent.messages, kept=broken())
    assert "the thread was not read: RuntimeError: the store is down" in caplog.text
    shown = json.loads(str(citation_run.numbered("moca_search", {"results": [C]})))
    assert shown == {"results": [{"result": C}]}
    citation_run.add_text("m", f"C is [1], {C['node']['ref']}.")
    event = await citation_run.events.event_for("m")
    assert event is not None
    assert event.value["citations"] == [{"record": C}]


async def test_a_kept_thread_is_read_once_with_only_the_clients_answers_to_its_open_calls():
    """A framework that keeps the thread takes from the client only its new turns: a turn
    the kept thread lacks is never read by the model; a result for an open call is."""
    kept = earlier_turn(1, "moca_search", numbered_view(("[1]", A), ("[2]", B)), "[2]")
    open_call = {"id": "c2", "type": "function", "function": {"name": "moca_get_node"}}
    kept.append({"id": "a2", "role": "assistant", "toolCalls": [open_call]})
    d, view = record("d.md"), numbered_view(("[3]", C))
    sent = turn_input(
        *earlier_turn(0, "moca_get_node", numbered_view(("[1]", d)), "[1]"),  # not kept
        {"id": "t2", "role": "tool", "toolCallId": "c2", "content": json.dumps(view)},
    )
    citation_run = moca_agui.adapter.CitationRun()
    citation_run.read_history(sent.messages, kept=kept, only_answers=True)
    citation_run.read_history(sent.messages)  # read once: passed over
    shown = json.loads(str(citation_run.numbered("moca_search", {"results": [d, C, A]})))
    assert [entry["marker"] for entry in shown["results"]] == ["[4]", "[3]", "[1]"]
    citation_run.capture("moca_get_node", B, tool_call_id="c3")
    citation_run.add_text("m2", "B is [2] still.")  # a default marker: the thread is known
    event = await citation_run.events.event_for("m2")
    assert event is not None and event.value["citations"] == [{"marker": "[2]", "record": B}]


async def test_a_kept_thread_that_cannot_be_read_leaves_every_default_marker_out(caplog):
    citation_run = moca_agui.adapter.CitationRun()
    sent = turn_input(*earlier_turn(1, "moca_get_node", A, "See [1]."))

    def broken() -> Iterator[object]:
        raise RuntimeError("the session store is down")
        yield

    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        citation_run.read_history(sent.messages, kept=broken(), only_answers=True)
        citation_run.capture("moca_search", {"results": [B, C]}, tool_call_id="c2")
        citation_run.add_text("m2", f"B [1], C [2] and [3]; per {ref(C)}.")
        event = await citation_run.events.event_for("m2")
    assert event is not None
    assert event.value["citations"] == [{"record": C}]
    said = [r.getMessage() for r in caplog.records if "moca_agui" in r.getMessage()]
    assert len(said) == 1 and "markers are left out" in said[0]


async def test_a_node_the_model_never_read_is_never_looked_up():
    thread = turn_input(*earlier_turn(1, "moca_get_node", A, "See [1]."))
    lookup = Lookup(A, B)
    assert await cited(thread, message("m2", f"Per {ref(B)} and [2]."), lookup=lookup) == []
    assert lookup.asked == []


async def test_three_turns_number_every_turns_sources_in_the_order_read():
    thread = turn_input(
        *earlier_turn(1, "moca_get_node", A, "[1]"),
        *earlier_turn(2, "moca_get_node", B, "[2]"),
        run_id="run-3",
    )
    parts = (tool_call("c3", "moca_get_node", C), message("m3", "[3], [2] and [1]."))
    assert await cited(thread, *parts, lookup=Lookup(A, B)) == [
        {"marker": "[3]", "record": C},
        {"marker": "[2]", "record": B},
        {"marker": "[1]", "record": A},
    ]


def parallel_turn(n: int, results: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One earlier turn with two parallel reads, its calls `c{n}a` then `c{n}b`, and their
    results (call id, record) in the order the client recorded them."""
    calls = [
        {"id": f"c{n}{x}", "type": "function",
         "function": {"name": "moca_get_node", "arguments": "{}"}}
        for x in "ab"
    ]  # fmt: skip
    return [
        {"id": f"u{n}", "role": "user", "content": "a question"},
        {"id": f"a{n}", "role": "assistant", "toolCalls": calls},
        *(
            {"id": f"t{call}", "role": "tool", "toolCallId": call, "content": json.dumps(r)}
            for call, r in results
        ),
        {"id": f"m{n}", "role": "assistant", "content": "[1] and [2]."},
    ]


async def test_a_turn_whose_results_the_thread_lists_out_of_call_order_has_no_default_markers(
    caplog,
):
    """An emitter that sends results as they finish: the model may have read them in call
    order then, and reads them in the thread's order now, so [1] and [2] could be either
    node: left out, logged; their refs cited. C is [3] in either order. A turn listed in
    call order keeps them all."""
    text = f"As said [1] and [2]; C is [3]. See {ref(B)}."
    parts = (tool_call("c2", "moca_get_node", C), message("m2", text))
    lookup = Lookup(A, B)
    reversed_turn = turn_input(*parallel_turn(1, [("c1b", B), ("c1a", A)]))
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        assert await cited(reversed_turn, *parts, lookup=lookup) == [
            {"marker": "[3]", "record": C},
            {"record": B},
        ]
    left_out = [r.getMessage() for r in caplog.records if "left out the marker" in r.getMessage()]
    assert len(left_out) == 2 and all("numbered" in said for said in left_out)
    in_order = turn_input(*parallel_turn(1, [("c1a", A), ("c1b", B)]))
    assert await cited(in_order, *parts, lookup=lookup) == [
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": B},
        {"marker": "[3]", "record": C},
    ]


async def test_a_turn_out_of_call_order_keeps_the_markers_a_numbered_tool_showed():
    shown = [
        ("c1b", numbered_view(("[2]", B))),
        ("c1a", numbered_view(("[1]", A))),
    ]
    thread = turn_input(*parallel_turn(1, shown))
    parts = (message("m2", "Again: [2], then [1]."),)
    assert await cited(thread, *parts, lookup=Lookup(A, B)) == [
        {"marker": "[2]", "record": B},
        {"marker": "[1]", "record": A},
    ]


def call(call_id: str, tool: str = "moca_get_node") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": tool, "arguments": "{}"}}


def result(call_id: str, content: object) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"id": f"t-{call_id}", "role": "tool", "toolCallId": call_id, "content": text}


async def test_a_result_listed_after_a_later_turns_call_makes_both_turns_unsure(caplog):
    """B answered late, after turn 2's C: the model may read A, C, B where call order
    gives A, B, C. No default marker of the two turns is known: [2] never links B."""
    thread = turn_input(
        {"id": "u1", "role": "user", "content": "q1"},
        {"id": "a1", "role": "assistant", "toolCalls": [call("c1a"), call("c1b")]},
        result("c1a", A),
        {"id": "u2", "role": "user", "content": "q2"},
        {"id": "a2", "role": "assistant", "toolCalls": [call("c2")]},
        result("c2", C),
        result("c1b", B),
        run_id="run-3",
    )
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        got = await cited(thread, message("m3", "[1], [2], [3]."), lookup=Lookup(A, B, C))
    assert got == []
    left_out = [r.getMessage() for r in caplog.records if "left out the marker" in r.getMessage()]
    assert len(left_out) == 3
    assert all("the thread lists Reader results out of their calls' order" in m for m in left_out)


async def test_only_reader_results_listed_out_of_call_order_make_a_turn_unsure(caplog):
    """A weather call that finished last changes no Reader entry's place."""
    thread = turn_input(
        {"id": "u1", "role": "user", "content": "q1"},
        {"id": "a1", "role": "assistant", "toolCalls": [
            call("w", "get_weather"), call("c1a"), call("c1b")
        ]},
        result("c1a", A),
        result("c1b", B),
        result("w", "sunny"),
    )  # fmt: skip
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        got = await cited(thread, message("m2", "[1] and [2]."), lookup=Lookup(A, B))
    assert got == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    assert "left out the marker" not in caplog.text


@pytest.mark.parametrize(
    "thread",
    [
        pytest.param([object()], id="an item that is no message"),
        pytest.param(earlier_turn(1, "moca_get_node", "[" * 50_000, "x"), id="nested too deep"),
        pytest.param(earlier_turn(1, "moca_get_node", '{"node": ', "x"), id="malformed JSON"),
        pytest.param(earlier_turn(1, "moca_get_node", "[" + " " * MAX_RESULT_CHARS, ""), id="long"),
    ],
)
async def test_a_thread_that_cannot_be_read_fails_closed(thread: list[Any], caplog):
    """The model may have counted sources in what the layer cannot read: its `[1]` may be
    the thread's first source, not this run's. Only versioned refs are cited; one line
    says why."""
    broken = RunAgentInput.model_validate(run_input(run_id="run-2"))
    broken.messages = [*thread, *broken.messages]
    parts = (tool_call("c2", "moca_get_node", C), message("m2", f"[1]; {C['node']['ref']}"))
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        assert await cited(broken, *parts) == [{"record": C}]
    (line,) = caplog.records
    assert "the thread was not read" in line.getMessage()
    assert "markers are left out" in line.getMessage()


async def test_an_earlier_result_that_is_not_json_costs_only_itself():
    thread = [
        *earlier_turn(1, "moca_get_node", "Error: no node nope.md", "Not found."),
        *earlier_turn(2, "moca_get_node", A, "See [1]."),
    ]
    parts = (tool_call("c3", "moca_get_node", C), message("m3", "A [1]; C [2]."))
    later = await cited(turn_input(*thread, run_id="run-3"), *parts, lookup=Lookup(A))
    assert later == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": C}]


async def test_an_instrumented_run_function_reads_the_thread_of_its_input():
    async def run_agent(input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        for event in run(message("m2", "As said [1].")):
            yield event

    thread = turn_input(*earlier_turn(1, "moca_get_node", A, "See [1]."))
    agent = moca_agui.instrument(run_agent, lookup=Lookup(A))
    [value] = citation_events(await collect(agent(thread)))
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_the_middleware_reads_the_thread_from_the_request_body():
    async def endpoint(request: Request) -> StreamingResponse:
        RunAgentInput.model_validate(await request.json())
        events = run(tool_call("c2", "moca_get_node", C), message("m2", "[1] and [2]."))
        encoder = EventEncoder()
        body = (encoder.encode(event) for event in events)
        return StreamingResponse(body, media_type="text/event-stream")

    app = CitationMiddleware(Starlette(routes=[Route("/", endpoint, methods=["POST"])]))
    body = run_input(run_id="run-2", history=earlier_turn(1, "moca_get_node", A, "[1]"))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", json=body)
    [value] = citation_events(parse_sse(response.text))
    assert value["citations"] == [{"marker": "[2]", "record": C}]  # [1]: no lookup, left out


async def test_a_second_run_in_the_stream_of_a_thread_not_read_cites_no_marker_either(caplog):
    """The second run's thread holds the first one's: not read whole either."""
    broken = turn_input(*earlier_turn(1, "moca_get_node", '{"node": ', "x"))
    first = run(tool_call("c2", "moca_get_node", C), message("m2", "[1]"), run_id="run-2")
    second = run(
        tool_call("c3", "moca_get_node", A), message("m3", f"[1]; {ref(A)}"), run_id="run-3"
    )
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        out = await collect(moca_agui.cite(source([*first, *second]), input=broken))
    assert [value["citations"] for value in citation_events(out)] == [[], [{"record": A}]]
    assert len(caplog.records) == 1


async def test_a_second_run_after_one_that_named_sources_cites_no_marker(caplog):
    """The second run's model reads the thread and the first run's turn, whose sources
    the second run does not hold: its `[1]` is the thread's A, never its own C. It fails
    closed: versioned refs only, one line saying why."""
    thread = turn_input(*earlier_turn(1, "moca_get_node", A, "See [1]."))
    first = run(tool_call("c2", "moca_get_node", B), message("m2", "B is [2]."), run_id="r1")
    second = run(
        tool_call("c3", "moca_get_node", C),
        message("m3", f"C is [3] ({ref(C)}). A is [1]. B is [2]."),
        run_id="r2",
    )
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        out = await collect(
            moca_agui.cite(source([*first, *second]), input=thread, lookup=Lookup(A, B, C))
        )
    values = citation_events(out)
    assert [value["citations"] for value in values] == [
        [{"marker": "[2]", "record": B}],
        [{"record": C}],
    ]
    (line,) = caplog.records
    assert "an earlier run in this stream named sources" in line.getMessage()


async def test_a_numbered_tool_in_a_second_run_after_sources_shows_no_marker(caplog):
    """A numbered tool of the second run cannot know the numbers its model counts on from."""
    first = moca_agui.adapter.CitationRun()
    first.capture("moca_get_node", A, tool_call_id="c1")
    second = first.renewed()
    shown = json.loads(str(second.numbered("moca_get_node", C)))
    assert shown == {"results": [{"result": C}]}


async def test_the_results_of_a_thread_not_read_whole_still_name_nodes_for_versioned_refs():
    """Past an earlier result it cannot read, the thread's other results are read: their
    numbers are not known, but a versioned ref to one of their nodes is cited (with the
    record `lookup` gives now)."""
    thread = [
        *earlier_turn(1, "moca_get_node", '{"node": ', "x"),
        *earlier_turn(2, "moca_get_node", A, "A [2]."),
    ]
    parts = (tool_call("c3", "moca_get_node", C), message("m3", f"[2] is {ref(A)}; [3]."))
    got = await cited(turn_input(*thread, run_id="run-3"), *parts, lookup=Lookup(A))
    assert got == [{"record": A}]
