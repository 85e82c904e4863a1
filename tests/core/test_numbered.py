"""`moca_agui.numbered` on the bare SDK: the model reads each source beside its run-wide
marker, assigned by the run's ledger as the result is produced, and the event uses those
numbers. A scripted model copies what it was shown."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

import moca_agui
import moca_agui.adapter
from moca_agui.check import check_events
from streams import message, run_finished, run_started
from support import citation_events, cited_as_shown, collect, copied_answer, record, ref, wire

A, B, C, D = record("a.md"), record("b.md"), record("c.md"), record("d.md")


def reader() -> tuple[Any, Any]:
    """Numbered Reader tools; `moca_search` returns only after `moca_get_node` has."""
    got_node = asyncio.Event()

    async def moca_search(query: str) -> dict[str, Any]:
        if query == "bees":
            await got_node.wait()
            for _ in range(3):  # moca_get_node's result is taken first (no clock involved)
                await asyncio.sleep(0)
            return {"query": query, "results": [A, B]}
        return {"query": query, "results": [D, A]}

    def moca_get_node(node_id: str) -> dict[str, Any]:
        got_node.set()
        return C

    return moca_agui.numbered(moca_search), moca_agui.numbered(moca_get_node)


def call(call_id: str, name: str, args: dict[str, Any]) -> list[BaseEvent]:
    return [
        ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name),
        ToolCallArgsEvent(tool_call_id=call_id, delta=json.dumps(args)),
        ToolCallEndEvent(tool_call_id=call_id),
    ]


def result(call_id: str, content: str) -> BaseEvent:
    return ToolCallResultEvent(message_id=f"tool-{call_id}", tool_call_id=call_id, content=content)


async def agent(shown: list[str]) -> AsyncIterator[BaseEvent]:
    """A bare AG-UI agent: one response with two parallel calls (results sent as they
    finish, the first call last), then a second search, then an answer that copies
    the numbers of everything it read, in the order it read it (call order)."""
    moca_search, moca_get_node = reader()
    yield run_started()
    calls = {"c1": (moca_search, {"query": "bees"}), "c2": (moca_get_node, {"node_id": ref(C)})}
    for call_id, (tool, args) in calls.items():
        for event in call(call_id, tool.__name__, args):
            yield event

    async def execute(call_id: str) -> tuple[str, str]:
        tool, args = calls[call_id]
        answer = tool(**args)
        return call_id, await answer if asyncio.iscoroutine(answer) else answer

    texts: dict[str, str] = {}
    for finished in asyncio.as_completed([asyncio.create_task(execute(c)) for c in calls]):
        call_id, text = await finished
        texts[call_id] = text
        yield result(call_id, text)
    for event in call("c3", "moca_search", {"query": "mites"}):
        yield event
    texts["c3"] = await moca_search(query="mites")
    yield result("c3", texts["c3"])
    shown.extend(texts[c] for c in ("c1", "c2", "c3"))  # the model's history: call order
    for event in message("m1", copied_answer(shown)):
        yield event
    yield run_finished()


async def test_the_model_cites_the_numbers_it_was_shown():
    shown: list[str] = []
    stream = await collect(moca_agui.cite(agent(shown)))

    results = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert [e["toolCallId"] for e in results] == ["c2", "c1", "c3"]  # c1 finished last
    assert [json.loads(text) for text in shown] == [
        {"results": [{"marker": "[2]", "result": A}, {"marker": "[3]", "result": B}]},
        {"results": [{"marker": "[1]", "result": C}]},
        # The second search starts at no [1] of its own; A keeps the marker it was shown.
        {"results": [{"marker": "[4]", "result": D}, {"marker": "[2]", "result": A}]},
    ]
    assert check_events(stream) == []  # the checker reads the numbered results
    [value] = citation_events(stream)
    answer = copied_answer(shown)
    assert value["citations"] == cited_as_shown(answer, A, B, C, D)
    assert [c["marker"] for c in value["citations"]] == ["[2]", "[3]", "[1]", "[4]"]


async def test_records_sent_are_the_readers_and_only_the_model_reads_the_numbers():
    shown: list[str] = []
    stream = await collect(moca_agui.cite(agent(shown)))
    [value] = citation_events(stream)
    assert all("marker" not in json.dumps(c["record"]) for c in value["citations"])
    assert {json.dumps(c["record"]) for c in value["citations"]} == {
        json.dumps(r) for r in (A, B, C, D)
    }


async def test_outside_a_citing_run_the_result_is_shown_as_it_is(caplog):
    _, moca_get_node = reader()
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        assert moca_get_node(node_id=ref(C)) == C
    assert "ran outside a citing run" in caplog.text


async def test_a_result_with_no_source_and_a_tool_that_is_not_a_reader_are_shown_as_they_are():
    def web_fetch(url: str) -> dict[str, Any]:
        return {"query": "q", "results": [A]}

    def moca_get_node(node_id: str) -> dict[str, Any]:
        return {"error": f"no node {node_id}"}

    run = moca_agui.adapter.CitationRun()
    with moca_agui.adapter.CitationStream(run).running():
        assert moca_agui.numbered(web_fetch)(url="x") == {"query": "q", "results": [A]}
        assert moca_agui.numbered(moca_get_node)(node_id="x") == {"error": "no node x"}
    assert run.numbered("moca_search", {"query": "q", "results": []}) == {
        "query": "q",
        "results": [],
    }


def test_numbered_keeps_the_signature_and_names_a_tool_by_its_function():
    def moca_search(query: str, limit: int = 5) -> dict[str, Any]:
        """Search."""
        return {}

    wrapped = moca_agui.numbered(moca_search)
    assert wrapped.__name__ == "moca_search" and wrapped.__doc__ == "Search."
    assert inspect.signature(wrapped) == inspect.signature(moca_search)
    assert [f.__name__ for f in moca_agui.numbered([moca_search, moca_search])] == [
        "moca_search"
    ] * 2


def test_numbered_refuses_what_it_cannot_number():
    with pytest.raises(TypeError, match="cannot number the results of int"):
        moca_agui.numbered(42)


async def test_once_numbers_were_shown_a_source_not_numbered_is_cited_by_ref_only():
    numbered_get = moca_agui.numbered(lambda node_id: A, name="moca_get_node")

    async def agent_run() -> AsyncIterator[BaseEvent]:
        yield run_started()
        for event in call("c1", "moca_get_node", {"node_id": ref(A)}):
            yield event
        yield result("c1", numbered_get(node_id=ref(A)))  # shown as [1]
        for event in call("c2", "moca_search", {"query": "q"}):
            yield event
        yield result("c2", json.dumps({"query": "q", "results": [B, C]}))  # not numbered
        for event in message("m1", f"[1], [2] and [3]; {ref(C)}."):
            yield event
        yield run_finished()

    [value] = citation_events(await collect(moca_agui.cite(agent_run())))
    assert value["citations"] == [{"marker": "[1]", "record": A}, {"record": C}]


async def test_a_numbered_tool_run_in_a_worker_thread_numbers_into_the_run():
    def moca_get_node(node_id: str) -> dict[str, Any]:
        return B

    tool = moca_agui.numbered(moca_get_node)

    async def agent_run() -> AsyncIterator[BaseEvent]:
        yield run_started()
        for event in call("c1", "moca_get_node", {"node_id": ref(B)}):
            yield event
        yield result("c1", await asyncio.to_thread(tool, node_id=ref(B)))
        for event in message("m1", "[1]."):
            yield event
        yield run_finished()

    stream = await collect(moca_agui.cite(agent_run()))
    [content] = [e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert json.loads(content) == {"results": [{"marker": "[1]", "result": B}]}
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": B}]


async def test_a_result_that_cannot_be_shown_numbers_nothing_the_model_could_read() -> None:
    """A Python value JSON cannot write (a tuple key) makes `numbered` raise (its wrapper
    then hands the tool's value back as it was): the markers it drew are in no ledger
    entry, so `[1]` names nothing; the next result shown is numbered on from there."""
    unwritable = record("a.md")
    unwritable["evidence"] = [{"source": {(1, 2): 3}}]
    citation_run = moca_agui.adapter.CitationRun()
    with pytest.raises(TypeError):
        citation_run.numbered("moca_search", {"results": [unwritable, record("b.md")]})
    shown = json.loads(str(citation_run.numbered("moca_search", {"results": [record("c.md")]})))
    assert [entry["marker"] for entry in shown["results"]] == ["[3]"]
    citation_run.add_text("m1", "See [1], [2] and [3].")
    event = await citation_run.events.event_for("m1")
    assert event is not None
    assert [(c["marker"], c["record"]["node"]["path"]) for c in event.value["citations"]] == [
        ("[3]", "c.md")
    ]


async def in_new_tasks(events: AsyncIterator[BaseEvent]) -> list[dict[str, Any]]:
    """Each step in a new task, as SSE keep-alive loops do (`asyncio.wait_for` on 3.11)."""
    return await stepped(events, lambda step: asyncio.create_task(step))


async def with_wait_for(events: AsyncIterator[BaseEvent]) -> list[dict[str, Any]]:
    return await stepped(events, lambda step: asyncio.wait_for(step, 5))


async def here_and_in_empty_contexts(events: AsyncIterator[BaseEvent]) -> list[dict[str, Any]]:
    """Steps here (where the stream's run is active after its first step) and, every
    other one, in a task with a context of its own that has no run: the stream moves
    from one to the other and back."""
    steps = iter(range(1_000))
    return await stepped(
        events,
        lambda step: (
            asyncio.create_task(step, context=contextvars.Context()) if next(steps) % 2 else step
        ),
    )


async def stepped(events: AsyncIterator[BaseEvent], wrap: Any) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    while True:
        try:
            sent.append(wire(await wrap(anext(events))))
        except StopAsyncIteration:
            return sent


@pytest.mark.parametrize("step", [in_new_tasks, with_wait_for, here_and_in_empty_contexts])
async def test_a_consumer_stepping_from_other_tasks_still_numbers_into_the_run(step):
    shown: list[str] = []
    stream = await step(moca_agui.cite(agent(shown)))
    assert json.loads(shown[1]) == {"results": [{"marker": "[1]", "result": C}]}
    [value] = citation_events(stream)
    assert [c["marker"] for c in value["citations"]] == ["[2]", "[3]", "[1]", "[4]"]


def test_leaving_a_run_in_another_context_keeps_that_contexts_own_run():
    """A `running()` left in a context it was not entered in (a generator closed from
    elsewhere) leaves that context's run as it is."""
    CitationRun, CitationStream = moca_agui.adapter.CitationRun, moca_agui.adapter.CitationStream
    elsewhere = CitationStream(CitationRun()).running()
    contextvars.copy_context().run(elsewhere.__enter__)
    here = CitationStream(CitationRun())
    with here.running():
        elsewhere.__exit__(None, None, None)
        assert CitationRun.current() is here.run


async def test_a_marker_written_before_its_source_was_shown_names_none():
    async def moca_search(query: str) -> dict[str, Any]:
        return {"query": query, "results": [A, B]}

    search = moca_agui.numbered(moca_search)

    async def agent() -> AsyncIterator[BaseEvent]:
        yield run_started()
        for event in message("m0", "From memory [1] and [2]."):
            yield event
        for event in call("c1", "moca_search", {"query": "bees"}):
            yield event
        yield result("c1", await search(query="bees"))  # shows A as [1], B as [2]
        for event in message("m1", "Per [2]."):
            yield event
        yield run_finished()

    first, second = citation_events(await collect(moca_agui.cite(agent())))
    assert (first["messageId"], first["citations"]) == ("m0", [])
    assert second["citations"] == [{"marker": "[2]", "record": B}]
