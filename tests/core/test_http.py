"""The bare SDK over real HTTP: an AG-UI FastAPI endpoint with the one-line change."""

from __future__ import annotations

import httpx
from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

import moca_agui
from streams import message, run, source, tool_call
from support import assert_valid_stream, citation_events, parse_sse, record, ref, run_input, types

A = record("a.md")


def agent(input_data: RunAgentInput):
    """Stands for any AG-UI agent: an async generator of events."""
    question = input_data.messages[-1].content
    return source(
        run(
            tool_call("c1", "moca_search", {"query": question, "results": [A]}),
            message("answer-1", f"As {ref(A)} says."),
            run_id=input_data.run_id,
        )
    )


def app_with(run_agent) -> FastAPI:
    app = FastAPI()

    @app.post("/")
    async def endpoint(input_data: RunAgentInput) -> StreamingResponse:
        encoder = EventEncoder()
        events = run_agent(input_data)
        return StreamingResponse(
            (encoder.encode(event) async for event in events),
            media_type=encoder.get_content_type(),
        )

    return app


async def post(app: FastAPI, question: str) -> tuple[httpx.Response, list[dict]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", json=run_input(question))
    return response, parse_sse(response.text)


async def test_the_one_line_change_adds_the_event_to_the_sse_stream():
    _, before = await post(app_with(agent), "refunds?")
    response, after = await post(app_with(moca_agui.instrument(agent)), "refunds?")
    assert response.headers["content-type"].startswith("text/event-stream")
    assert types(after) == [*types(before)[:-1], "CUSTOM:moca.citations", "RUN_FINISHED"]
    assert [e for e in after if e["type"] != "CUSTOM"] == before
    [value] = citation_events(after)
    assert value["messageId"] == "answer-1"
    assert value["citations"] == [{"record": A}]
    assert_valid_stream(after)
