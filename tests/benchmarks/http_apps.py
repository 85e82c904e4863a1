"""The two services benchmark 2 compares, as uvicorn app factories.

`with_citations` is the demo service on the bare AG-UI SDK, as `moca-agui demo` serves it
(`moca_agui.demo.frameworks.ag_ui.build_app`). `without_citations` is the same endpoint
and the same agent, less the README's one line (`moca_agui.cite(...)`).
"""

from __future__ import annotations

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from moca_agui.demo.frameworks.ag_ui import build_app, run_agent
from moca_agui.demo.reader import DemoReader


def with_citations() -> FastAPI:
    return build_app(DemoReader())


def without_citations() -> FastAPI:
    reader = DemoReader()
    app = FastAPI(title="moca-agui demo (bare AG-UI SDK), citations off")

    @app.post("/")
    async def endpoint(input_data: RunAgentInput) -> StreamingResponse:
        encoder = EventEncoder()
        events = run_agent(input_data, reader)
        return StreamingResponse(
            (encoder.encode(event) async for event in events),
            media_type=encoder.get_content_type(),
        )

    return app
