"""AG2's parallel Reader calls: markers follow the order the model issued them.

AG2 sends each TOOL_CALL_START from inside its own tool task, so the wire may carry two
parallel calls in either order. The instrumented `AGUIStream` reads the model's order
from its response; the plain middleware cannot: around AG2's own endpoint it leaves out
the markers that depend on that order (logged), never guessing. These tests show both,
on AG2's own scheduling and on a wire that carries the second call first in every run.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx
import pytest
from ag2 import Agent, tool
from ag2.ag_ui import AGUIStream
from ag2.events import BaseEvent, ModelMessageChunk, ModelResponse, ToolCallEvent
from ag2.middleware import AgentTurn, BaseMiddleware, Middleware
from ag2.testing import TestConfig
from ag_ui.core import RunAgentInput
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

import moca_agui
from moca_agui.asgi import CitationMiddleware
from moca_agui.check import check_events, parse_stream
from support import assert_valid_stream, citation_events, markers_left_out, record, ref, run_input

A = record("dusk-flight.md")
B = record("queen-marking.md")
ANSWER = "Drones fly at dusk [1]. Mark the queen [2]."


def reader_tool(delays: dict[str, float]) -> Any:
    records = {ref(A): A, ref(B): B}

    def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref."""
        # A plain function, as most tools are: AG2 runs it in a worker thread, and the
        # first call the model issued ends last.
        time.sleep(delays[node_id])
        return records[node_id]

    return tool(moca_get_node, name="moca_get_node")


class SecondCallFirst(BaseMiddleware):
    """Puts call-b on the wire before call-a, in every run.

    An interrupter holds call-a until a subscriber registered after AG2's AG-UI mapper
    has seen call-b, so call-b's TOOL_CALL_START has been sent by then. Left to its own
    scheduling, AG2 carries them reversed in about one run of three."""

    async def on_turn(self, call_next: AgentTurn, event: BaseEvent, context: Any) -> ModelResponse:
        second_sent = asyncio.Event()

        async def hold_the_first(call: ToolCallEvent) -> ToolCallEvent:
            if call.id == "call-a":
                await asyncio.wait_for(second_sent.wait(), timeout=5)
            return call

        async def note_the_second(call: ToolCallEvent) -> None:
            if call.id == "call-b":
                second_sent.set()

        calls = context.stream.where(ToolCallEvent)
        with calls.sub_scope(hold_the_first, interrupt=True), calls.sub_scope(note_the_second):
            return await call_next(event, context)


def scripted_agent(delays: dict[str, float], *, second_call_first: bool = False) -> Agent:
    calls = [
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(A)}), id="call-a"),
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(B)}), id="call-b"),
    ]
    config = TestConfig(calls, ModelMessageChunk(ANSWER), ANSWER)
    middleware: Sequence[Middleware] = [Middleware(SecondCallFirst)] if second_call_first else []
    return Agent("order", config=config, tools=[reader_tool(delays)], middleware=middleware)


async def answer(app: Any, run_id: str = "run-1") -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", json=run_input("Dusk and queens?", run_id))
    assert response.status_code == 200, response.text
    return parse_stream(response.text)


def start_order(stream: list[dict[str, Any]]) -> list[str]:
    return [e["toolCallId"] for e in stream if e["type"] == "TOOL_CALL_START"]


def cited_refs(stream: list[dict[str, Any]]) -> dict[str, str]:
    (value,) = citation_events(stream)
    return {c["marker"]: c["record"]["node"]["ref"] for c in value["citations"]}


async def test_twenty_runs_finishing_in_reverse_give_the_models_order_every_time() -> None:
    """The wire carries call-b first in every run, and call-a's tool ends last."""
    delays = {ref(A): 0.02, ref(B): 0.0}
    stream = moca_agui.instrument(AGUIStream(scripted_agent(delays, second_call_first=True)))
    app = Starlette(routes=[Route("/", stream.build_asgi())])
    for _ in range(20):
        events = await answer(app)
        assert_valid_stream(events)
        assert check_events(events) == []
        assert start_order(events) == ["call-b", "call-a"]
        assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}


async def test_twenty_runs_in_ag2s_own_order_give_the_models_order_every_time() -> None:
    delays = {ref(A): 0.02, ref(B): 0.0}
    app = moca_agui.instrument(AGUIStream(scripted_agent(delays))).build_asgi()
    for _ in range(20):
        events = await answer(app)
        assert check_events(events) == []
        assert sorted(start_order(events)) == ["call-a", "call-b"]
        assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}


async def test_two_concurrent_runs_of_one_stream_each_learn_their_own_models_order() -> None:
    """Two requests at once on one instrumented stream, the wire carrying call-b first in
    both: each run is told its own model's order (a run told the other's would follow
    the wire and cite [1] as B)."""
    delays = {ref(A): 0.02, ref(B): 0.0}
    stream = moca_agui.instrument(AGUIStream(scripted_agent(delays, second_call_first=True)))
    app = Starlette(routes=[Route("/", stream.build_asgi())])
    runs = [
        await asyncio.gather(answer(app, f"run-{n}a"), answer(app, f"run-{n}b")) for n in range(3)
    ]
    for both in runs:
        for events in both:
            assert start_order(events) == ["call-b", "call-a"]
            assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}


def held_reader_tool(held: threading.Event, waiting: threading.Semaphore) -> Any:
    """The Reader tool, whose first call (the first request's) waits for `held`."""
    records, calls = {ref(A): A, ref(B): B}, itertools.count()

    def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref."""
        if next(calls) == 0:
            waiting.release()
            held.wait(timeout=10)
        return records[node_id]

    return tool(moca_get_node, name="moca_get_node")


def held_stream(held: threading.Event, waiting: threading.Semaphore) -> Any:
    """An instrumented stream whose wire carries call-b first, its first run held."""
    calls = [
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(A)}), id="call-a"),
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(B)}), id="call-b"),
    ]
    config = TestConfig(calls, ModelMessageChunk(ANSWER), ANSWER)
    tools = [held_reader_tool(held, waiting)]
    agent = Agent("order", config=config, tools=tools, middleware=[Middleware(SecondCallFirst)])
    return moca_agui.instrument(AGUIStream(agent))


async def first_run_held(waiting: threading.Semaphore) -> None:
    """Until the first run's first tool call waits (the run is in flight)."""
    async with asyncio.timeout(10):
        while not waiting.acquire(blocking=False):
            await asyncio.sleep(0.01)


async def test_two_requests_in_flight_under_one_run_id_each_learn_their_own_models_order() -> None:
    """A second request under the run id of one in flight (the client chooses run ids):
    each dispatch binds the run its request's middleware made, never the other's, so both
    cite their model's order, not the wire's (call-b first)."""
    held, waiting = threading.Event(), threading.Semaphore(0)
    async with held_stream(held, waiting) as stream:
        app = stream.build_asgi()
        first = asyncio.create_task(answer(app, "run-1"))
        await first_run_held(waiting)
        second = await answer(app, "run-1")
        held.set()
        first_events = await first
    for events in (first_events, second):
        assert start_order(events) == ["call-b", "call-a"]
        assert check_events(events) == []
        assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}


async def test_a_run_cancelled_midway_leaves_nothing_registered() -> None:
    """The client goes away while the run's tools run (AG2 keeps the turn going in a task
    of its own, which holds the run): the run leaves the registries all the same."""
    held, waiting = threading.Event(), threading.Semaphore(0)
    async with held_stream(held, waiting) as stream:
        app = stream.build_asgi()
        request = asyncio.create_task(answer(app, "run-1"))
        await first_run_held(waiting)
        assert app.threads.get(("/", "thread-1")) is not None
        request.cancel()
        with pytest.raises(asyncio.CancelledError):
            await request
        assert app.threads.get(("/", "thread-1")) is None
        held.set()


async def test_an_endpoint_of_ones_own_calling_dispatch_gives_the_run_the_models_order() -> None:
    """The documented endpoint of one's own: it calls the instrumented stream's `dispatch`
    behind the app's own `CitationMiddleware`, whose runs the stream's registry never
    holds; the run is found all the same, and follows the model's order, not the wire's."""
    delays = {ref(A): 0.02, ref(B): 0.0}
    stream = moca_agui.instrument(AGUIStream(scripted_agent(delays, second_call_first=True)))

    async def chat(request: Request) -> StreamingResponse:
        incoming = RunAgentInput.model_validate_json(await request.body())
        return StreamingResponse(stream.dispatch(incoming), media_type="text/event-stream")

    app = CitationMiddleware(Starlette(routes=[Route("/", chat, methods=["POST"])]))
    for _ in range(3):
        events = await answer(app)
        assert start_order(events) == ["call-b", "call-a"]
        assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}


async def test_the_bare_middleware_leaves_the_markers_out_never_naming_the_wrong_node(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """AG2's own endpoint behind `CitationMiddleware`, added to the app, around it, or
    around the endpoint on a route: the wire's order may be either, so [1] and [2] are
    left out, logged, on AG2's own scheduling and on a wire that carries call-b first."""
    delays = {ref(A): 0.02, ref(B): 0.0}
    for second_call_first in (False, True):
        endpoint = AGUIStream(scripted_agent(delays, second_call_first=second_call_first))
        await leaves_out_the_markers(endpoint.build_asgi(), second_call_first, caplog)


async def leaves_out_the_markers(
    endpoint: Any, second_call_first: bool, caplog: pytest.LogCaptureFixture
) -> None:
    added = Starlette(routes=[Route("/", endpoint)])
    added.add_middleware(CitationMiddleware)
    around = CitationMiddleware(Starlette(routes=[Route("/", endpoint)]))
    routed = Starlette(routes=[Route("/", CitationMiddleware(endpoint))])
    for app in [added, around, routed] * 2:
        caplog.clear()
        events = await answer(app)
        if second_call_first:
            assert start_order(events) == ["call-b", "call-a"]
        assert check_events(events) == []
        assert cited_refs(events) == {}
        assert markers_left_out(caplog) == ["[1]", "[2]"]


async def test_a_follow_up_leaves_out_markers_the_wire_order_of_an_earlier_turn_decides(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The client recorded turn 1's parallel calls as the wire carried them (B first),
    not as the model issued them: in turn 2 the instrumented stream knows its own order,
    not that of turn 1, so [1] and [2] are left out, logged; the ref is cited."""
    turn_1 = [
        {"id": "q1", "role": "user", "content": "Dusk and queens?"},
        {"id": "a1", "role": "assistant", "toolCalls": [
            {"id": f"call-{n}", "type": "function",
             "function": {"name": "moca_get_node", "arguments": json.dumps({"node_id": ref(r)})}}
            for n, r in (("b", B), ("a", A))
        ]},
        {"id": "t1", "role": "tool", "toolCallId": "call-b", "content": json.dumps(B)},
        {"id": "t2", "role": "tool", "toolCallId": "call-a", "content": json.dumps(A)},
        {"id": "a2", "role": "assistant", "content": ANSWER},
    ]  # fmt: skip
    text = f"As I said, drones fly at dusk [1]; queens are marked [2], see {ref(B)}."
    read_b = ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(B)}), id="c")
    config = TestConfig([read_b], ModelMessageChunk(text), text)
    agent = Agent("order", config=config, tools=[reader_tool({ref(A): 0.0, ref(B): 0.0})])
    app = moca_agui.instrument(AGUIStream(agent)).build_asgi()
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        body = run_input("Say again?", "run-2", history=turn_1)
        response = await client.post("/", json=body)
    events = parse_stream(response.text)
    assert check_events(events) == []
    (value,) = citation_events(events)
    assert value["citations"] == [{"record": B}]
    assert markers_left_out(caplog) == ["[1]", "[2]"]


async def test_the_instrumented_stream_is_a_copy_and_refuses_the_agent() -> None:
    plain = AGUIStream(scripted_agent({ref(A): 0.0, ref(B): 0.0}))
    citing = moca_agui.instrument(plain)
    assert citing is not plain and moca_agui.uninstrument(citing) is plain
    assert isinstance(citing.build_asgi(), CitationMiddleware)
    assert not isinstance(plain.build_asgi(), CitationMiddleware)
    with pytest.raises(TypeError, match=r"moca_agui.instrument\(AGUIStream\(agent\)\)"):
        moca_agui.instrument(scripted_agent({}))


async def test_an_endpoint_of_ones_own_under_a_shared_run_id_binds_its_own_run() -> None:
    """One stream served by its own endpoint and by one of the user's: a request to the
    user's under the run id of one in flight on the stream's own binds its own request's
    run, never the other's: both cite their model's order, not the wire's (call-b first)."""
    held, waiting = threading.Event(), threading.Semaphore(0)
    async with held_stream(held, waiting) as stream:

        async def chat(request: Request) -> StreamingResponse:
            incoming = RunAgentInput.model_validate_json(await request.body())
            return StreamingResponse(stream.dispatch(incoming), media_type="text/event-stream")

        own = stream.build_asgi()
        users = CitationMiddleware(Starlette(routes=[Route("/", chat, methods=["POST"])]))
        first = asyncio.create_task(answer(own, "run-1"))
        await first_run_held(waiting)
        second = await answer(users, "run-1")
        held.set()
        first_events = await first
    assert start_order(second) == ["call-b", "call-a"]
    assert cited_refs(second) == {"[1]": ref(A), "[2]": ref(B)}
    assert cited_refs(first_events) == {"[1]": ref(A), "[2]": ref(B)}
