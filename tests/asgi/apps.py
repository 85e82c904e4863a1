"""Starlette apps for the middleware tests: AG-UI endpoints streaming hand-made events,
and the routes that must pass through untouched."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import httpx
from ag_ui.core import BaseEvent, RunAgentInput, RunFinishedEvent, RunStartedEvent
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp
from thread_turns import Steps, get_node, search_hits

import moca_agui
from streams import message, tool_call
from support import Call

SSE = "text/event-stream"
PROTO = "application/vnd.ag-ui.event+proto"


def encoded(events: Sequence[BaseEvent]) -> bytes:
    """The SSE body an AG-UI endpoint writes for `events` (ag_ui.encoder)."""
    encoder = EventEncoder()
    return b"".join(encoder.encode(event).encode() for event in events)


async def cited_body(events: Sequence[BaseEvent], **options: Any) -> bytes:
    """The SSE body of the same endpoint with `moca_agui.cite` around its events."""
    encoder = EventEncoder()
    out = [encoder.encode(e).encode() async for e in moca_agui.cite(_aiter(events), **options)]
    return b"".join(out)


async def _aiter(events: Sequence[BaseEvent]) -> AsyncIterator[BaseEvent]:
    for event in events:
        yield event


def timeless(body: bytes) -> list[bytes]:
    """`body`'s events as they came, each citation event's `computedAt` (the time it was
    made) taken out: two runs of the same events differ only there."""
    blocks = []
    for block in body.split(b"\n\n"):
        if b'"name":"moca.citations"' in block:
            event = json.loads(block.removeprefix(b"data: "))
            event["value"].pop("computedAt", None)  # absent when nothing is cited
            block = json.dumps(event).encode()
        blocks.append(block)
    return blocks


def service(events: Sequence[BaseEvent]) -> Starlette:
    """An AG-UI service whose POST `/` streams `events`, beside routes that are no run."""

    async def agent(request: Request) -> StreamingResponse:
        await request.body()  # the run's input, as every AG-UI endpoint reads it first
        encoder = EventEncoder()
        return StreamingResponse(
            (encoder.encode(event) async for event in _aiter(events)),
            media_type=encoder.get_content_type(),
            headers={"X-Trace": "t-1", "Cache-Control": "no-cache"},
        )

    async def feed(request: Request) -> StreamingResponse:  # an SSE GET: no AG-UI run
        return StreamingResponse(iter([encoded(events)]), media_type=SSE)

    async def json_post(request: Request) -> JSONResponse:
        return JSONResponse({"echo": await request.json(), "note": "data: {}\n\n"})

    async def proto(request: Request) -> Response:
        return Response(b"\x00\x00\x00\x05hello", media_type=PROTO)

    async def gzipped(request: Request) -> Response:
        body = gzip.compress(encoded(events))
        headers = {"Content-Encoding": "gzip"}
        return Response(body, media_type=SSE, headers=headers)

    async def sized(request: Request) -> Response:  # SSE with a content-length
        await request.body()
        return Response(encoded(events), media_type=SSE)

    async def text(request: Request) -> PlainTextResponse:
        return PlainTextResponse("plain")

    return Starlette(
        routes=[
            Route("/", agent, methods=["POST"]),
            Route("/other", agent, methods=["POST"]),
            Route("/feed", feed, methods=["GET"]),
            Route("/json", json_post, methods=["POST"]),
            Route("/proto", proto, methods=["POST"]),
            Route("/gzip", gzipped, methods=["POST"]),
            Route("/sized", sized, methods=["POST"]),
            Route("/text", text, methods=["GET", "POST"]),
        ]
    )


def chunked(chunks: Sequence[bytes], content_type: str = SSE) -> ASGIApp:
    """A raw ASGI app that reads the request's body, then sends `chunks` as its body, one
    message each."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        while (await receive()).get("more_body", False):
            pass
        headers = [(b"content-type", content_type.encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


async def post(app: ASGIApp, path: str = "/", **kwargs: Any) -> httpx.Response:
    """POST to `app` through httpx's ASGI transport."""
    kwargs.setdefault("json", {})
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return await client.post(path, **kwargs)


def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return search_hits(query)


def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def scripted(steps: Steps, *, numbered: bool, paths: Sequence[str] = ("/",)) -> Starlette:
    """An AG-UI service whose scripted agent plays, on a POST to each of `paths`, the steps
    of the thread's last question, calling its Reader tools (numbered or not)."""
    readers = [moca_search, moca_get_node]
    tools = moca_agui.numbered(readers) if numbered else readers
    by_name = dict(zip(["moca_search", "moca_get_node"], tools, strict=True))

    async def endpoint(request: Request) -> StreamingResponse:
        input = RunAgentInput.model_validate(await request.json())
        encoder = EventEncoder()
        body = (encoder.encode(event) async for event in played(steps, by_name, input))
        return StreamingResponse(body, media_type=encoder.get_content_type())

    return Starlette(routes=[Route(path, endpoint, methods=["POST"]) for path in paths])


def played(
    steps: Steps, tools: dict[str, Callable[..., Any]], input: RunAgentInput
) -> AsyncIterator[BaseEvent]:
    """The events of the scripted agent's run: the steps of the thread's last question. A
    list of calls is one model response; they finish, and are sent, last first."""
    question = next(m.content for m in reversed(input.messages) if m.role == "user")

    async def events() -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        for n, step in enumerate(steps[str(question)]):
            if isinstance(step, str):
                for event in message(f"{input.run_id}-answer-{n}", step):
                    yield event
                continue
            calls = [step] if isinstance(step, Call) else step
            results = [tools[call.name](**call.args) for call in calls]  # the model's order
            for call, result in reversed(list(zip(calls, results, strict=True))):
                for event in tool_call(call.id, call.name, result, args=json.dumps(call.args)):
                    yield event
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)

    return events()
