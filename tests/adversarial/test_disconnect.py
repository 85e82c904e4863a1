"""A client that goes away mid-stream: the agent's stream is closed, and no task, run or
generator of the citation layer is left behind."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import weakref
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn
from ag_ui.core import BaseEvent, TextMessageContentEvent
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

import moca_agui
import moca_agui.adapter
from support import other_tasks, record, ref, settled

from .streams import answer, reader_call, run

REC = record("a.md")


class Agent:
    """An agent that reads REC, then writes an answer that never ends."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.closed = False
        self.sent = 0

    async def events(self) -> AsyncIterator[BaseEvent]:
        head = run(reader_call("call-1", json.dumps(REC)), answer("answer-1", f"See {ref(REC)}"))
        try:
            self.started.set()
            for event in head[:-2]:  # RUN_STARTED ... the first delta; no END, no FINISHED
                yield event
                self.sent += 1
            while True:
                await asyncio.sleep(0.001)
                yield TextMessageContentEvent(message_id="answer-1", delta=" and on")
                self.sent += 1
        finally:
            self.closed = True


async def test_aclose_mid_stream_closes_the_agent_stream() -> None:
    baseline = set(asyncio.all_tasks())
    agent = Agent()
    citation_run = moca_agui.adapter.CitationRun()
    gone = weakref.ref(citation_run)
    cited = moca_agui.cite(agent.events(), run=citation_run)
    del citation_run
    taken = [await anext(cited) for _ in range(20)]
    assert [e.type for e in taken[:2]] == ["RUN_STARTED", "TOOL_CALL_START"]
    await cited.aclose()
    assert agent.closed
    with pytest.raises(StopAsyncIteration):
        await anext(cited)
    del cited, taken
    assert await settled(lambda: gone() is None)  # the run's state is freed
    assert not other_tasks(baseline)


async def test_cancelled_while_a_lookup_is_pending() -> None:
    """The consumer is cancelled while the layer waits on the Reader: the lookup is
    cancelled too, the agent's stream is closed, and nothing is left running."""
    baseline = set(asyncio.all_tasks())
    lookup_started, lookup_cancelled = asyncio.Event(), asyncio.Event()

    async def lookup(ref: str) -> dict[str, Any] | None:
        lookup_started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            lookup_cancelled.set()
            raise
        return None

    compact = {"query": "q", "results": [{"ref": ref(REC), "title": "A"}]}
    stream = run(reader_call("call-1", json.dumps(compact), "moca_search"), answer("m", ref(REC)))
    closed = []

    async def agent() -> AsyncIterator[BaseEvent]:
        try:
            for event in stream:
                yield event
        finally:
            closed.append(True)

    async def consume() -> list[BaseEvent]:
        return [event async for event in moca_agui.cite(agent(), lookup=lookup)]

    task = asyncio.create_task(consume())
    await asyncio.wait_for(lookup_started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert lookup_cancelled.is_set()
    assert closed == [True]
    assert not other_tasks(baseline)


# -- over real HTTP ------------------------------------------------------------------------


def app_for(agent: Agent, runs: list[weakref.ref[moca_agui.adapter.CitationRun]]) -> Starlette:
    """A bare-SDK AG-UI endpoint with the README's one line: `moca_agui.cite(...)`."""

    async def endpoint(request: Request) -> StreamingResponse:
        encoder = EventEncoder()
        citation_run = moca_agui.adapter.CitationRun()
        runs.append(weakref.ref(citation_run))
        events = moca_agui.cite(agent.events(), run=citation_run)
        return StreamingResponse(
            (encoder.encode(event) async for event in events),
            media_type=encoder.get_content_type(),
        )

    return Starlette(routes=[Route("/", endpoint, methods=["POST"])])


@contextlib.asynccontextmanager
async def serving(app: Starlette) -> AsyncIterator[str]:
    """Serve `app` with uvicorn on 127.0.0.1 (an ephemeral port), in this event loop."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    serve = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            assert not serve.done(), serve.exception()
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        await serve
        sock.close()


async def test_a_client_disconnecting_over_http_leaves_nothing_behind() -> None:
    agent = Agent()
    runs: list[weakref.ref[moca_agui.adapter.CitationRun]] = []
    async with serving(app_for(agent, runs)) as url:
        baseline = set(asyncio.all_tasks())
        lines = []
        async with httpx.AsyncClient() as client, client.stream("POST", url, json={}) as response:
            assert response.status_code == 200
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    lines.append(json.loads(line.removeprefix("data: ")))
                if len(lines) == 50:
                    break  # the client goes away mid-answer
        assert lines[0]["type"] == "RUN_STARTED" and lines[-1]["type"] == "TEXT_MESSAGE_CONTENT"
        assert await settled(lambda: agent.closed), "the agent's stream was never closed"
        assert await settled(lambda: all(r() is None for r in runs)), "the run was kept"
        assert await settled(lambda: not other_tasks(baseline)), other_tasks(baseline)
        sent_when_closed = agent.sent
        await asyncio.sleep(0.05)
        assert agent.sent == sent_when_closed  # nothing is produced for nobody
