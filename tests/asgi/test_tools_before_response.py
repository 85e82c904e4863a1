"""An endpoint that runs its Reader tools before its response starts (a buffered SSE
response): the middleware reads the thread as soon as the app has read the request's
body, so a numbered tool counts on from the thread's numbers (or, over the limit, shows
none); a tool that numbers before the app read the body makes the run fail closed."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from thread_turns import A, C, Lookup, post

import moca_agui.adapter
from moca_agui.asgi import CitationMiddleware
from streams import message, run, tool_call
from support import citation_events, run_input

#: The thread of turn 2: turn 1 showed the model A as [1].
SHOWN_A = json.dumps({"results": [{"marker": "[1]", "result": A}]})
TURN_1 = [
    {"id": "u1", "role": "user", "content": "q1"},
    {
        "id": "a1",
        "role": "assistant",
        "toolCalls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "moca_get_node", "arguments": "{}"},
            }
        ],
    },
    {"id": "t1", "role": "tool", "toolCallId": "c1", "content": SHOWN_A},
    {"id": "m1", "role": "assistant", "content": "A is [1]."},
]
BODY = run_input("q2", "run-2", history=TURN_1)


def buffered(read_body_first: bool) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint that calls its numbered Reader tool, then sends the whole stream as one
    response: the model writes the marker it was shown beside C."""

    async def endpoint(request: Request) -> Response:
        if read_body_first:
            await request.json()
        shown = json.loads(str(moca_agui.adapter.numbered_result("moca_get_node", C)))
        if not read_body_first:
            await request.json()
        markers = [item["marker"] for item in shown["results"] if "marker" in item]
        answer = f"C is {markers[0]}." if markers else "C, shown without a marker."
        events = run(tool_call("c2", "moca_get_node", shown), message("m2", answer))
        encoder = EventEncoder()
        body = "".join(encoder.encode(event) for event in events)
        return Response(body, media_type="text/event-stream")

    return endpoint


def middleware(read_body_first: bool, **options: Any) -> CitationMiddleware:
    routes = [Route("/", buffered(read_body_first), methods=["POST"])]
    return CitationMiddleware(Starlette(routes=routes), lookup=Lookup(A, C), **options)


def cited(stream: list[dict[str, Any]]) -> list[tuple[str | None, str]]:
    return [
        (c.get("marker"), c["record"]["node"]["path"])
        for value in citation_events(stream)
        for c in value["citations"]
    ]


def tool_result(stream: list[dict[str, Any]]) -> Any:
    (content,) = [e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    return json.loads(content)


async def test_a_tool_run_before_the_response_counts_on_from_the_threads_numbers():
    stream = await post(middleware(True), BODY)
    assert tool_result(stream) == {"results": [{"marker": "[2]", "result": C}]}
    assert cited(stream) == [("[2]", "c.md")]


async def test_over_the_limit_a_tool_run_before_the_response_shows_no_marker(
    caplog: pytest.LogCaptureFixture,
):
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(middleware(True, max_request_bytes=100), BODY)
    assert tool_result(stream) == {"results": [{"result": C}]}
    assert cited(stream) == []
    (line,) = caplog.records
    assert "over max_request_bytes" in line.getMessage()


async def test_a_tool_that_numbers_before_the_body_is_read_makes_the_run_fail_closed(
    caplog: pytest.LogCaptureFixture,
):
    """Its [1] was given without the thread, where [1] is A: no marker is cited."""
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(middleware(False), BODY)
    assert tool_result(stream) == {"results": [{"marker": "[1]", "result": C}]}
    assert cited(stream) == []
    (line,) = caplog.records
    assert "showed markers before the thread was read" in line.getMessage()
