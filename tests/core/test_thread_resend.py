"""The bare AG-UI SDK keeps no thread: the model reads exactly what the client sends. A
regenerate (the client drops the last answer and sends the thread again) and a reordered
resend (the earlier turns in another order) are numbered as sent, through `cite(events,
input=...)` and an instrumented run function alike: every marker the model writes, from
what it was shown, is cited as the node it was shown under it, or left out."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from shown_thread import (
    READER_TOOLS,
    A,
    B,
    C,
    D,
    Steps,
    answer,
    get_node,
    markers_shown,
    regenerated,
    reordered,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route
from thread_turns import cited, shown_markers

import moca_agui
from streams import message, run, tool_call
from support import Call


def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def shown_agent(
    steps: Steps, tool: Callable[..., Any]
) -> Callable[[RunAgentInput], AsyncIterator[BaseEvent]]:
    """A run function playing the last question's steps, a tool call per step; its answer
    writes the markers the thread it was sent, then its own results, show it."""

    async def run_agent(input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        messages = input.messages or []
        names = {
            c.id: c.function.name for m in messages for c in getattr(m, "tool_calls", None) or ()
        }
        shown = [
            m.content
            for m in messages
            if m.role == "tool" and names.get(m.tool_call_id) in READER_TOOLS
        ]
        parts: list[Any] = []
        for step in steps[str(messages[-1].content)]:
            if isinstance(step, Call):
                result = tool(**step.args)
                shown.append(result)
                parts.append(tool_call(step.id, step.name, result, args=json.dumps(step.args)))
            else:
                parts.append(message(f"answer-{input.run_id}", answer(step, markers_shown(shown))))
        for event in run(*parts, run_id=input.run_id):
            yield event

    return run_agent


def serve_with(wrap: str) -> Callable[..., Any]:
    """Serve `shown_agent` over HTTP, its events wrapped by `cite(..., input=...)` or by
    an instrumented run function."""

    def serve(steps: Steps, *, numbered: bool, **options: Any) -> Starlette:
        run_agent = shown_agent(
            steps, moca_agui.numbered(moca_get_node) if numbered else moca_get_node
        )
        instrumented = moca_agui.instrument(run_agent, **options)

        async def endpoint(request: Request) -> StreamingResponse:
            input = RunAgentInput.model_validate(await request.json())
            if wrap == "cite":
                events = moca_agui.cite(run_agent(input), input=input, **options)
            else:
                events = instrumented(input)
            encoder = EventEncoder()
            body = (encoder.encode(event) async for event in events)
            return StreamingResponse(body, media_type=encoder.get_content_type())

        return Starlette(routes=[Route("/", endpoint, methods=["POST"])])

    return serve


KINDS = pytest.mark.parametrize(
    ("wrap", "numbered", "lookup"),
    [
        ("cite", False, True),
        ("cite", False, False),
        ("cite", True, True),
        ("instrument", False, True),
        ("instrument", True, False),
    ],
    ids=["cite-lookup", "cite", "cite-numbered", "instrument-lookup", "instrument-numbered"],
)


@KINDS
async def test_a_regenerated_answer_numbers_the_thread_as_resent(
    wrap: str, numbered: bool, lookup: bool
):
    stream = await regenerated(serve_with(wrap), numbered=numbered, lookup=lookup)
    assert shown_markers(stream) == ([["[3]"]] if numbered else [])
    earlier = [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    assert cited(stream) == [{"marker": "[3]", "record": D}, *(earlier if lookup else [])]


@KINDS
async def test_a_reordered_resend_numbers_the_thread_in_the_order_sent(
    wrap: str, numbered: bool, lookup: bool
):
    """Default markers: C `[1]`, A `[2]`, B `[3]` as sent; numbered tools showed A `[1]`,
    B `[2]`, C `[3]` beside each source, and the model reads those."""
    stream = await reordered(serve_with(wrap), numbered=numbered, lookup=lookup)
    shown = ["[3]", "[1]", "[2]"] if numbered else ["[1]", "[2]", "[3]"]
    earlier = [{"marker": m, "record": r} for m, r in zip(shown, (C, A, B), strict=True)]
    assert shown_markers(stream) == ([["[4]"]] if numbered else [])
    assert cited(stream) == [{"marker": "[4]", "record": D}, *(earlier if lookup else [])]
