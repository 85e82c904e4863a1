"""Each framework's demo service, with and without citations, as one uvicorn app factory.

`MOCA_BENCH_FRAMEWORK` names the framework (a `--framework` of `moca-agui demo`);
`MOCA_BENCH_CITED=0` serves the same service less the README's one line: in that process
`moca_agui.instrument`, `moca_agui.cite` and `moca_agui.asgi.CitationMiddleware` give back
what they are given, so the demo's own `build_app` builds the framework's plain service.
Both answer `GET /cpu-seconds` with the CPU time the process has spent so far, which load
elsewhere on the machine disturbs far less than the time a request takes.
"""

from __future__ import annotations

import os
import time
from typing import Any

import moca_agui
import moca_agui.asgi
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import load_framework


def _unchanged(target: Any, **options: Any) -> Any:
    return target


def app() -> Any:
    build_app = load_framework(os.environ["MOCA_BENCH_FRAMEWORK"])
    if os.environ.get("MOCA_BENCH_CITED") == "0":
        moca_agui.instrument = _unchanged  # type: ignore[assignment]
        moca_agui.cite = _unchanged  # type: ignore[assignment]
        moca_agui.asgi.CitationMiddleware = _unchanged  # type: ignore[assignment,misc]
    return _with_cpu_clock(build_app(DemoReader()))


def _with_cpu_clock(service: Any) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/cpu-seconds":
            return await service(scope, receive, send)
        body = repr(time.process_time()).encode()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    return app
