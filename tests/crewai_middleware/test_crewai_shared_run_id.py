"""Two requests in flight at once under one client run id, on one instrumented CrewAI
flow behind `CitationMiddleware` (the client chooses run ids, so two may share one): each
run is the one its own request's middleware made, so each response cites only the
sources its own request read, in its own model's order (each request's first call
finishes last)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from ag_ui_crewai import add_crewai_flow_fastapi_endpoint
from crewai_support import A, B, Scripted, cited, json_tool
from fastapi import FastAPI
from pydantic import Field
from test_crewai_model_order import sent

import moca_agui
from moca_agui.asgi import CitationMiddleware
from moca_agui.check import parse_stream
from moca_agui.demo.frameworks.crewai import chat_flow
from support import Call, assert_valid_stream, record, ref, run_input

C, D = record("c.md"), record("d.md")
RECORDS = {ref(r): r for r in (A, B, C, D)}
#: Each question's script: two parallel reads, then the answer.
SCRIPTS = {
    "About A and B?": [
        [Call("moca_get_node", {"node_id": ref(A)}, "c1"),
         Call("moca_get_node", {"node_id": ref(B)}, "c2")],
        "A [1]; B [2].",
    ],
    "About C and D?": [
        [Call("moca_get_node", {"node_id": ref(C)}, "c1"),
         Call("moca_get_node", {"node_id": ref(D)}, "c2")],
        "C [1]; D [2].",
    ],
}  # fmt: skip


class ByQuestion(Scripted):
    """Plays the script of the question the thread asks (`SCRIPTS`)."""

    scripts: dict[str, list[Any]] = Field(default_factory=lambda: SCRIPTS)

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        asked = [str(m.get("content")) for m in messages if m.get("role") == "user"]
        (question,) = {q for q in self.scripts if any(q in text for text in asked)}
        return self.play(self.scripts[question], messages, tools)


def both_in_flight() -> Any:
    """`moca_get_node`, whose first call of each request (A's, C's) returns only once both
    requests are reading, and after its request's other call returned."""
    both_reading = threading.Barrier(2, timeout=10)
    other_done = {ref(A): threading.Event(), ref(C): threading.Event()}
    first_of = {ref(B): ref(A), ref(D): ref(C)}

    def get(node_id: str = "", query: str = "") -> Any:
        if node_id in other_done:
            both_reading.wait()
            other_done[node_id].wait(1.0)
            time.sleep(0.05)  # its result is sent after the other's
        else:
            other_done[first_of[node_id]].set()
        return RECORDS[node_id]

    return json_tool("moca_get_node", get)


async def ask(app: FastAPI, question: str, thread_id: str) -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=120) as client:
        body = run_input(question, "run-shared", thread_id=thread_id)
        response = await client.post("/", json=body)
    assert response.status_code == 200, response.text
    stream = parse_stream(response.text)
    assert_valid_stream(stream)
    return stream


@pytest.mark.parametrize("threads", [("thread-1", "thread-2"), ("thread-1", "thread-1")])
async def test_two_requests_under_one_run_id_each_cite_their_own_sources(
    threads: tuple[str, str],
) -> None:
    """On two threads or on one: each response names its own request's two sources as
    [1] and [2], in its model's order, never the other request's."""
    flow = chat_flow(ByQuestion(), [both_in_flight()])
    app = FastAPI()
    add_crewai_flow_fastapi_endpoint(app, moca_agui.instrument(flow), "/")
    app.add_middleware(CitationMiddleware)
    ab, cd = await asyncio.gather(
        ask(app, "About A and B?", threads[0]), ask(app, "About C and D?", threads[1])
    )
    assert (sent(ab), sent(cd)) == ([ref(B), ref(A)], [ref(D), ref(C)])
    assert cited(ab) == [("[1]", ref(A)), ("[2]", ref(B))]
    assert cited(cd) == [("[1]", ref(C)), ("[2]", ref(D))]
