"""A numbered tool called by a worker a thread's first request started, as the Claude Agent
SDK keeps one per thread: the worker's context holds the first request's run, ended by
the time a later request of the thread runs its tools there. The later request's result
is numbered by the later request's run, never by the ended one, whose markers that run's
model never read; with two of the thread's runs in flight at once, which one called is not
known, and the result is shown without numbers."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

import moca_agui
from moca_agui.asgi import CitationMiddleware
from moca_agui.check import parse_stream
from streams import message, run, tool_call
from support import citation_events, cited_as_shown, copied_answer, record, ref, run_input

from .apps import post

A, B, C = record("a.md"), record("b.md"), record("c.md")
RECORDS = {ref(r): r for r in (A, B, C)}


@moca_agui.numbered
def moca_search(query: str) -> dict[str, Any]:
    return {"query": query, "results": [r for r in (A, B, C) if r["node"]["path"] in query]}


class ThreadWorkers:
    """An app whose tools run in one worker task per thread, started by the thread's first
    request (in that request's context) and kept for its later ones."""

    def __init__(self, *, together: int = 1) -> None:
        self.queues: dict[str, asyncio.Queue[tuple[str, asyncio.Future[Any]]]] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.barrier = asyncio.Barrier(together)  # requests that query only once all began
        self.app = CitationMiddleware(
            Starlette(routes=[Route("/", self.endpoint, methods=["POST"])])
        )

    async def worker(self, queue: asyncio.Queue[tuple[str, asyncio.Future[Any]]]) -> None:
        while True:
            query, answer = await queue.get()
            answer.set_result(moca_search(query=query))

    async def ask(self, thread_id: str, query: str) -> Any:
        if thread_id not in self.queues:
            self.queues[thread_id] = queue = asyncio.Queue()
            self.tasks.append(asyncio.create_task(self.worker(queue)))
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queues[thread_id].put((query, answer))
        return await answer

    async def endpoint(self, request: Request) -> StreamingResponse:
        body = await request.json()
        query = body["messages"][-1]["content"]

        async def events() -> AsyncIterator[BaseEvent]:
            await self.barrier.wait()
            shown = await self.ask(body["threadId"], query)
            text = copied_answer([shown]) if "marker" in str(shown) else "Read it."
            for event in run(tool_call("c1", "moca_search", shown), message("m1", text)):
                yield event

        encoder = EventEncoder()
        stream = (encoder.encode(event) async for event in events())
        return StreamingResponse(stream, media_type="text/event-stream")

    async def post(self, question: str, run_id: str, thread_id: str) -> list[dict[str, Any]]:
        body = run_input(question, run_id, thread_id=thread_id)
        return parse_stream((await post(self.app, json=body)).text)

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()


def shown(stream: list[dict[str, Any]]) -> Any:
    (result,) = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    return json.loads(result["content"])


async def test_a_later_requests_tool_numbers_into_that_requests_run() -> None:
    workers = ThreadWorkers()
    try:
        for n, (query, records) in enumerate([("a.md b.md", (A, B)), ("c.md a.md", (A, C))]):
            stream = await workers.post(query, f"run-{n}", "thread-1")
            view = shown(stream)
            assert [item["marker"] for item in view["results"]] == ["[1]", "[2]"]
            (value,) = citation_events(stream)
            assert value["citations"] == cited_as_shown(copied_answer([view]), *records)
    finally:
        workers.stop()


async def test_two_runs_of_a_thread_at_once_show_results_without_numbers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    workers = ThreadWorkers()
    try:
        await workers.post("a.md", "run-0", "thread-1")  # the worker, in run-0's context
        workers.barrier = asyncio.Barrier(2)
        with caplog.at_level(logging.WARNING, logger="moca_agui"):
            streams = await asyncio.gather(
                workers.post("b.md", "run-1", "thread-1"),
                workers.post("c.md", "run-2", "thread-1"),
            )
        for stream, record_of_its_own in zip(streams, (B, C), strict=True):
            assert shown(stream)["results"] == [record_of_its_own]  # no marker beside it
            assert [v["citations"] for v in citation_events(stream)] == [[]]  # "Read it."
        assert "2 runs of thread thread-1 are in flight at once" in caplog.text
        assert "shown without numbers" in caplog.text
    finally:
        workers.stop()


async def test_a_numbered_tool_called_after_cite_ended_its_run_is_not_numbered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`cite` ends its run when its stream ends: a task started there numbers into it no
    more."""
    started: list[asyncio.Task[Any]] = []
    gate = asyncio.Event()

    async def later() -> Any:
        await gate.wait()
        return moca_search(query="a.md")

    async def events() -> AsyncIterator[BaseEvent]:
        started.append(asyncio.create_task(later()))  # in the run's context
        for event in run(message("m1", "Nothing yet.")):
            yield event

    sent = [event async for event in moca_agui.cite(events())]
    assert sent[-1].type == "RUN_FINISHED"
    gate.set()
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        assert await started[0] == {"query": "a.md", "results": [A]}
    assert "called after its run ended" in caplog.text


async def test_a_numbered_tool_called_after_the_response_ended_is_not_numbered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The middleware ends its run when its response ends, as `cite` when its stream does:
    the app, still running (a background task), numbers into it no more."""
    later: list[Any] = []

    async def endpoint(request: Request) -> StreamingResponse:
        await request.json()
        events = run(message("m1", "Nothing yet."))
        stream = (EventEncoder().encode(event) for event in events)
        background = BackgroundTask(lambda: later.append(moca_search(query="a.md")))
        return StreamingResponse(stream, media_type="text/event-stream", background=background)

    app = CitationMiddleware(Starlette(routes=[Route("/", endpoint, methods=["POST"])]))
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        response = await post(app, json=run_input("a question", "run-1", thread_id="thread-1"))
    assert parse_stream(response.text)[-1]["type"] == "RUN_FINISHED"
    assert later == [{"query": "a.md", "results": [A]}]  # no marker beside it
    assert "called after its run ended" in caplog.text


async def test_a_background_task_numbers_into_no_later_request_of_its_thread(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Request 1's background task calls a numbered tool while request 2 of its thread is
    in flight: its result is request 1's, whose response is sent, and no entry of request
    2's run, whose model never reads it (request 2's `[1]` stays its own source)."""
    second_in_flight, called = asyncio.Event(), asyncio.Event()
    later: list[Any] = []

    async def background() -> None:
        await second_in_flight.wait()
        later.append(moca_search(query="a.md"))
        called.set()

    async def endpoint(request: Request) -> StreamingResponse:
        body = await request.json()
        encoder = EventEncoder()
        if body["runId"] == "run-1":
            events = run(message("m1", "Nothing yet."))
            stream: Any = (encoder.encode(event) for event in events)
            return StreamingResponse(
                stream, media_type="text/event-stream", background=BackgroundTask(background)
            )

        async def answer() -> AsyncIterator[str]:  # its response started: its run registered
            second_in_flight.set()
            await called.wait()
            view = moca_search(query="b.md")
            for event in run(
                tool_call("c1", "moca_search", view), message("m1", copied_answer([view]))
            ):
                yield encoder.encode(event)

        return StreamingResponse(answer(), media_type="text/event-stream")

    app = CitationMiddleware(Starlette(routes=[Route("/", endpoint, methods=["POST"])]))
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        first, second = await asyncio.gather(
            post(app, json=run_input("a question", "run-1", thread_id="thread-1")),
            post(app, json=run_input("another", "run-2", thread_id="thread-1")),
        )
    assert later == [{"query": "a.md", "results": [A]}]  # no marker beside it
    stream = parse_stream(second.text)
    assert [item["marker"] for item in shown(stream)["results"]] == ["[1]"]
    (value,) = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": B}]
    assert parse_stream(first.text)[-1]["type"] == "RUN_FINISHED"
