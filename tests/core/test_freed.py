"""A stream's run is freed as soon as the stream is done with it, by reference counting:
nothing of it (the follower, the look-ahead, a marker table, the lookups' tasks, the
lookup deadline's timer) ties it to itself in a cycle that only the garbage collector
frees. A server that cites each response would otherwise leave every finished run for the
collector, which then walks all of it. Nor does a run leave anything of the thread a
client sent behind it."""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

import moca_agui
from moca_agui.adapter import CitationRun
from moca_agui.asgi import CitationMiddleware
from streams import message, run, source, tool_call
from support import (
    citation_events,
    compact,
    earlier_turn,
    parse_sse,
    record,
    ref,
    run_input,
    wire,
)

A, B, C = record("a.md"), record("b.md"), record("c.md")
RECORDS = {ref(r): r for r in (A, B, C)}


async def lookup(node_ref: str) -> dict[str, Any] | None:
    return RECORDS.get(node_ref)


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The garbage collector off: what is freed is freed by reference counting."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def left_for_the_collector() -> list[str]:
    """The objects of this library only the garbage collector could free (in a cycle, or
    held by one), by type."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return sorted(
            type(o).__qualname__ for o in gc.garbage if type(o).__module__.startswith("moca_agui")
        )
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def thread() -> dict[str, Any]:
    """A request's `RunAgentInput` (wire form): an earlier turn that searched A (compact)
    and cited it, then the question."""
    call = {"id": "c0", "type": "function", "function": {"name": "moca_search", "arguments": "{}"}}
    history = [
        {"id": "u0", "role": "user", "content": "a question"},
        {"id": "a0", "role": "assistant", "toolCalls": [call]},
        {"id": "t0", "role": "tool", "toolCallId": "c0",
         "content": json.dumps({"query": "q", "results": [compact(A)]})},
        {"id": "m0", "role": "assistant", "content": "It is so [1]."},
    ]  # fmt: skip
    return run_input(run_id="run-2", history=history)


def answered() -> list[Any]:
    """A run whose answer is read as it streams (a compact result and an earlier turn:
    lookups start while it is written, under the lookup deadline), its markers read
    through the run's marker table."""
    return run(
        tool_call("c1", "moca_search", {"query": "q", "results": [compact(B), compact(C)]}),
        message("m1", "As said ", "[1], ", "and ", "[2] ", "and ", "[3]", "."),
    )


@pytest.mark.usefixtures("no_collector")
async def test_a_run_is_freed_with_its_stream_not_by_the_garbage_collector():
    citation_run = CitationRun(moca_agui.CitationOptions(lookup=lookup))
    freed = weakref.ref(citation_run)
    input = RunAgentInput.model_validate(thread())
    cited = moca_agui.cite(source(answered()), input=input, run=citation_run)
    del citation_run
    sent = [wire(event) async for event in cited]
    del cited

    (value,) = citation_events(sent)
    assert [c["record"] for c in value["citations"]] == [A, B, C]
    assert freed() is None
    assert left_for_the_collector() == []


async def served(body: dict[str, Any]) -> str:
    """The text of the response to `body` from an app behind the middleware (served and
    read here: nothing of the exchange is held once this returns)."""

    async def endpoint(request: Request) -> StreamingResponse:
        RunAgentInput.model_validate(await request.json())
        # An async body: Starlette iterates a sync one in worker threads, whose ending
        # leaves a cycle of its own (a traceback holding the context, and with it the run).
        events = (EventEncoder().encode(event) async for event in source(answered()))
        return StreamingResponse(events, media_type="text/event-stream")

    routes = [Route("/", endpoint, methods=["POST"])]
    app = CitationMiddleware(Starlette(routes=routes), lookup=lookup)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return (await client.post("/", json=body)).text


@pytest.mark.usefixtures("no_collector")
async def test_the_middleware_leaves_nothing_of_a_cited_response_to_the_garbage_collector():
    (value,) = citation_events(parse_sse(await served(thread())))
    await asyncio.sleep(0)  # the transport's last callback lets go of the request
    assert [c["record"] for c in value["citations"]] == [A, B, C]
    assert left_for_the_collector() == []


def searched(name: str) -> RunAgentInput:
    """A thread of 20 turns, each of which searched 3 records of its own, with short values
    (paths, titles, digests' prefixes) no other test uses."""
    history = [
        message
        for n in range(20)
        for message in earlier_turn(
            n,
            "moca_search",
            {"results": [record(f"{name}-{n}-{k}.md") for k in range(3)]},
            f"As said [{3 * n + 1}].",
        )
    ]
    return RunAgentInput.model_validate(run_input(history=history))


async def test_reading_a_thread_keeps_none_of_its_text_after_the_run():
    """The thread's results are parsed to find the nodes the model read there; none of
    their strings outlives the run (a parser's process-wide cache of values would keep
    the client's thread after it)."""
    answer = run(message("m1", "Nothing to cite."))
    await collect_run(answer, searched("warm-up"))  # what any thread so shaped leaves: keys
    tracemalloc.start()
    try:
        held = CitationRun()
        held.read_history(searched("held").messages)
        while_held = parsed_and_left()  # the refs of its entries: where the text is parsed
        del held
        await collect_run(answer, searched("kept"))
        gc.collect()
        left = parsed_and_left()
    finally:
        tracemalloc.stop()
    assert while_held != []
    assert left == []


def parsed_and_left() -> list[str]:
    """What the parsing of earlier results allocated and is still allocated, by line."""
    traces = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(True, moca_agui.run.intake.__file__)]
    )
    return [str(stat) for stat in traces.statistics("lineno")]


async def collect_run(events: list[Any], input: RunAgentInput) -> None:
    """One cited run of `events` with the thread `input`, to its end."""
    async for _event in moca_agui.cite(source(events), input=input):
        pass


@pytest.mark.usefixtures("no_collector")
async def test_the_middleware_frees_a_run_when_its_response_ends_not_when_the_app_returns():
    """Starlette's streaming response returns to the middleware only once its request's
    task resumes, after other requests have run: a run held until then is held across
    them, and the collector meets it there (under load, three times as often)."""
    runs: list[weakref.ref[CitationRun]] = []
    held_after_the_response: list[bool] = []

    async def events() -> AsyncIterator[str]:
        current = CitationRun.current()
        assert current is not None
        runs.append(weakref.ref(current))
        del current
        for event in answered():
            yield EventEncoder().encode(event)

    def after_the_response() -> None:  # the app has not returned yet
        held_after_the_response.append(runs[0]() is not None)

    async def endpoint(request: Request) -> StreamingResponse:
        RunAgentInput.model_validate(await request.json())
        background = BackgroundTask(after_the_response)
        return StreamingResponse(events(), media_type="text/event-stream", background=background)

    app = CitationMiddleware(
        Starlette(routes=[Route("/", endpoint, methods=["POST"])]), lookup=lookup
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        text = (await client.post("/", json=thread())).text

    (value,) = citation_events(parse_sse(text))
    assert [c["record"] for c in value["citations"]] == [A, B, C]
    assert held_after_the_response == [False]
