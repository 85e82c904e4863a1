"""A thread the middleware cannot read (over `max_request_bytes`, not JSON, cut, its
messages not a list) fails closed: the model's `[1]` may be the thread's first source, so
no marker is cited and numbered tools show none; versioned refs are still cited, and one
log line says why (and which option raises the limit)."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from thread_turns import A, C, Lookup, Steps, after_run, cited, next_turn, shown_markers

from moca_agui.asgi import CitationMiddleware
from streams import message, run, tool_call
from support import Call, assert_valid_stream, parse_sse, ref, run_input

from .apps import scripted, service

#: Turn 1 reads A and B; turn 2 reads C, and cites A by the marker it read it under.
STEPS: Steps = {
    "q1": [Call("moca_search", {"query": "a.md b.md"}, "t1-call"), "A [1]; B [2]."],
    "q2": [Call("moca_get_node", {"node_id": ref(C)}, "t2-call"), f"As said [1]; see {ref(C)}."],
}


async def post(app: Any, body: bytes) -> list[dict[str, Any]]:
    """POST `body` as it is (its size is what the test sets the limit by); the events."""
    transport = httpx.ASGITransport(app=app)
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", content=body, headers=headers)
    assert response.status_code == 200, response.text
    stream = parse_sse(response.text)
    assert_valid_stream(stream)
    return stream


async def second_turn(*, numbered: bool) -> tuple[bytes, list[dict[str, Any]]]:
    """Turn 2's request body, after turn 1 ran through the middleware."""
    app = CitationMiddleware(scripted(STEPS, numbered=numbered))
    first = run_input("q1", "run-1")
    stream = await post(app, json.dumps(first).encode())
    body = next_turn(after_run(first["messages"], stream), "q2", "run-2", thread_id="thread-1")
    return json.dumps(body).encode(), body["messages"]


async def test_over_the_limit_only_versioned_refs_are_cited(caplog: pytest.LogCaptureFixture):
    body, _ = await second_turn(numbered=False)
    app = CitationMiddleware(
        scripted(STEPS, numbered=False), lookup=Lookup(A), max_request_bytes=len(body) - 1
    )
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(app, body)
    assert cited(stream) == [{"record": C}]  # never [1] = C, this run's first result
    (line,) = caplog.records
    assert "over max_request_bytes" in line.getMessage()
    assert f"({len(body) - 1} bytes); raise that option" in line.getMessage()


async def test_the_limit_raised_the_same_request_cites_the_threads_marker(
    caplog: pytest.LogCaptureFixture,
):
    body, _ = await second_turn(numbered=False)
    app = CitationMiddleware(
        scripted(STEPS, numbered=False), lookup=Lookup(A), max_request_bytes=len(body)
    )
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(app, body)
    assert cited(stream) == [{"marker": "[1]", "record": A}, {"record": C}]
    assert not caplog.records


async def test_over_the_limit_a_numbered_tool_shows_no_marker():
    """The model cannot know the thread's numbers: a marker shown now could be one the
    thread gave another source, so the result is shown without any."""
    body, sent = await second_turn(numbered=True)
    over = CitationMiddleware(scripted(STEPS, numbered=True), max_request_bytes=len(body) - 1)
    stream = await post(over, body)
    (result,) = [e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert json.loads(result) == {"results": [{"result": C}]}
    assert cited(stream) == [{"record": C}]
    within = CitationMiddleware(scripted(STEPS, numbered=True), max_request_bytes=len(body))
    stream = await post(within, body)
    assert shown_markers(stream, sent) == [["[3]"]]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        pytest.param(b'{"threadId": "t", "messages": [{"role": "us', "not a JSON object", id="cut"),
        pytest.param(b"\xff not json", "not a JSON object", id="not JSON"),
        pytest.param(b'{"messages": {"0": {"role": "user"}}}', "not a list", id="not a list"),
    ],
)
async def test_a_body_it_cannot_read_cites_versioned_refs_only(
    body: bytes, why: str, caplog: pytest.LogCaptureFixture
):
    """An endpoint that streams whatever it was sent: its run is cited, its markers not."""
    events = run(tool_call("c2", "moca_get_node", C), message("m2", f"As said [1]; {ref(C)}."))
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(CitationMiddleware(service(events)), body)
    assert cited(stream) == [{"record": C}]
    (line,) = caplog.records
    assert why in line.getMessage() and "markers are left out" in line.getMessage()


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "32MiB", None])
def test_max_request_bytes_must_be_a_positive_int(limit: object):
    with pytest.raises(TypeError, match="max_request_bytes must be a positive int"):
        CitationMiddleware(service([]), max_request_bytes=limit)  # type: ignore[arg-type]
