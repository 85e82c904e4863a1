"""The ASGI middleware over turns of one thread, as @ag-ui/client sends them: the whole
thread in each request body. The service behind it is a plain AG-UI endpoint whose
scripted agent plays each question's steps, calling its Reader tools (numbered or not)
while the middleware's run is active."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
)
from ag_ui.encoder import EventEncoder
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route
from thread_turns import Steps, follow_ups, get_node, numbered_over_three_turns, search_hits

import moca_agui
from moca_agui.asgi import CitationMiddleware
from streams import message, tool_call
from support import Call


def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return search_hits(query)


def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def played(steps: Steps, tools: dict[str, Callable[..., Any]], input: RunAgentInput):
    """The events of the scripted agent's run: the steps of the thread's last question."""
    question = next(m.content for m in reversed(input.messages) if m.role == "user")

    async def events() -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        for n, step in enumerate(steps[str(question)]):
            if isinstance(step, Call):  # the model reads what the tool returns
                result = tools[step.name](**step.args)
                for event in tool_call(step.id, step.name, result, args=json.dumps(step.args)):
                    yield event
            else:
                for event in message(f"{input.run_id}-answer-{n}", step):
                    yield event
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)

    return events()


def serve(steps: Steps, *, numbered: bool, **options: Any) -> Any:
    readers = [moca_search, moca_get_node]
    tools = moca_agui.numbered(readers) if numbered else readers
    by_name = dict(zip(["moca_search", "moca_get_node"], tools, strict=True))

    async def endpoint(request: Request) -> StreamingResponse:
        input = RunAgentInput.model_validate(await request.json())
        encoder = EventEncoder()
        body = (encoder.encode(event) async for event in played(steps, by_name, input))
        return StreamingResponse(body, media_type=encoder.get_content_type())

    return CitationMiddleware(Starlette(routes=[Route("/", endpoint, methods=["POST"])]), **options)


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    await numbered_over_three_turns(serve)


async def test_follow_ups_cite_earlier_sources_only_with_the_record_lookup_gives_now():
    await follow_ups(serve)
