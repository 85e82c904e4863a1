"""Starlette apps for the middleware tests: AG-UI endpoints streaming hand-made events,
and the routes that must pass through untouched."""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp

import moca_agui

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
    """A raw ASGI app that sends `chunks` as its body, one message each."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
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
