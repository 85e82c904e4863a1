"""The middleware over real HTTP (uvicorn on 127.0.0.1): each event leaves as it arrives,
and a client that goes away closes the upstream app's stream, leaving nothing behind."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from ag_ui.core import BaseEvent, TextMessageContentEvent
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from moca_agui.asgi import CitationMiddleware
from moca_agui.demo.server import served
from moca_agui.stream.sse import SSECitations
from streams import message, run, tool_call
from support import (
    assert_valid_stream,
    citation_events,
    other_tasks,
    record,
    ref,
    settled,
    types,
)

A = record("a.md")
EVENTS = run(tool_call("c1", "moca_get_node", A), message("m1", f"Per {ref(A)}.", " Done."))


def streaming(events: Callable[[], AsyncIterator[BaseEvent]]) -> Starlette:
    async def endpoint(request: Request) -> StreamingResponse:
        encoder = EventEncoder()
        return StreamingResponse(
            (encoder.encode(event) async for event in events()), media_type="text/event-stream"
        )

    return Starlette(routes=[Route("/", endpoint, methods=["POST"])])


async def test_the_first_event_arrives_before_the_last_is_made() -> None:
    """The upstream makes its second event only once the client has the first: a
    middleware that held the body back would never let it."""
    client_has_first = asyncio.Event()
    happened: list[str] = []

    async def events() -> AsyncIterator[BaseEvent]:
        yield EVENTS[0]
        await client_has_first.wait()
        for event in EVENTS[1:]:
            yield event
        happened.append("upstream made the last event")

    app = CitationMiddleware(streaming(events))
    received: list[dict[str, Any]] = []

    async def read() -> None:
        async with (
            served(app) as url,
            httpx.AsyncClient() as client,
            client.stream("POST", url + "/", json={}) as response,
        ):
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    received.append(json.loads(line.removeprefix("data: ")))
                    if len(received) == 1:
                        happened.append("client has the first event")
                        client_has_first.set()

    await asyncio.wait_for(read(), 60)  # on a buffering middleware: a timeout, not a hang
    assert happened == ["client has the first event", "upstream made the last event"]
    assert types(received) == [
        "RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
        "CUSTOM:moca.citations", "RUN_FINISHED",
    ]  # fmt: skip
    assert_valid_stream(received)
    assert [c["record"] for c in citation_events(received)[0]["citations"]] == [A]


def live_citers() -> list[SSECitations]:
    return [o for o in gc.get_objects() if isinstance(o, SSECitations)]


async def test_a_client_going_away_closes_the_upstream_and_leaves_nothing() -> None:
    closed = asyncio.Event()
    made = 0

    async def events() -> AsyncIterator[BaseEvent]:  # an answer that never ends
        nonlocal made
        try:
            for event in EVENTS[:7]:
                yield event
            while True:
                await asyncio.sleep(0.001)
                made += 1
                yield TextMessageContentEvent(message_id="m1", delta=" and on")
        finally:
            closed.set()

    app = CitationMiddleware(streaming(events))
    async with served(app) as url:
        baseline = set(asyncio.all_tasks())
        received = 0
        async with httpx.AsyncClient() as client, client.stream("POST", url + "/", json={}) as r:
            async for line in r.aiter_lines():
                received += line.startswith("data: ")
                if received == 50:
                    break  # the client goes away mid-answer
        await asyncio.wait_for(closed.wait(), 30)
        assert await settled(lambda: not other_tasks(baseline)), other_tasks(baseline)
        assert await settled(lambda: not live_citers()), "the response's state was kept"
        made_when_closed = made
        await asyncio.sleep(0.05)
        assert made == made_when_closed  # nothing is produced for nobody
