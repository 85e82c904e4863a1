"""The two services benchmark 2 compares, as uvicorn app factories.

`with_citations` is the demo service on the bare AG-UI SDK, as `moca-agui demo` serves it
(`moca_agui.demo.frameworks.ag_ui.build_app`). `without_citations` is the same endpoint
and the same agent, less the README's one line (`moca_agui.cite(...)`); `hopped` has a
pass-through async generator in its place, the floor of any stream middleware. The
`paced_` ones are the same with the scripted model taking PACE seconds per text delta, as
a model streaming its answer does.

Benchmark 15 (bench_request_cpu.py) serves `cpu_bare`, `cpu_cite` (`cite` reading the
request's thread, `input=`) and `cpu_middleware` (`CitationMiddleware` around the bare
service); each also answers GET /cpu with its process's CPU seconds so far.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

import moca_agui
from moca_agui.asgi import ASGIApp, CitationMiddleware
from moca_agui.demo.frameworks.ag_ui import build_app, run_agent
from moca_agui.demo.reader import DemoReader

PACE = 0.02


def with_citations() -> FastAPI:
    return build_app(DemoReader())


def without_citations() -> FastAPI:
    return _service(cited=False, paced=False)


def hopped() -> FastAPI:
    return _service(cited="hop", paced=False)


def paced_hopped() -> FastAPI:
    return _service(cited="hop", paced=True)


def paced_with_citations() -> FastAPI:
    return _service(cited=True, paced=True)


def paced_without_citations() -> FastAPI:
    return _service(cited=False, paced=True)


def cpu_bare() -> FastAPI:
    return _timed(_service(cited=False, paced=False))


def cpu_cite() -> FastAPI:
    return _timed(_service(cited="input", paced=False))


def cpu_middleware() -> ASGIApp:
    return CitationMiddleware(cpu_bare(), lookup=DemoReader().get)


def _timed(app: FastAPI) -> FastAPI:
    """`app`, answering GET /cpu with the CPU seconds its process has spent so far."""

    @app.get("/cpu")
    async def cpu() -> dict[str, float]:
        return {"cpu": time.process_time()}

    return app


async def _paced(events: AsyncIterator[BaseEvent]) -> AsyncIterator[BaseEvent]:
    async for event in events:
        if event.type == "TEXT_MESSAGE_CONTENT":
            await asyncio.sleep(PACE)
        yield event


async def _hop(events: AsyncIterator[BaseEvent]) -> AsyncIterator[BaseEvent]:
    async for event in events:
        yield event


def _service(*, cited: bool | str, paced: bool) -> FastAPI:
    """build_app's endpoint, with citations on, off, on and reading the request's thread
    ("input") or a pass-through hop ("hop"), and the model paced or not."""
    reader = DemoReader()
    app = FastAPI(title="moca-agui demo (bare AG-UI SDK), for benchmark 2")

    @app.post("/")
    async def endpoint(input_data: RunAgentInput) -> StreamingResponse:
        encoder = EventEncoder()
        events: Any = run_agent(input_data, reader)
        if paced:
            events = _paced(events)
        if cited == "hop":
            events = _hop(events)
        elif cited == "input":
            events = moca_agui.cite(events, input=input_data, lookup=reader.get)
        elif cited:
            events = moca_agui.cite(events, lookup=reader.get)
        return StreamingResponse(
            (encoder.encode(event) async for event in events),
            media_type=encoder.get_content_type(),
        )

    return app
