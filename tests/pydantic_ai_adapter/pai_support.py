"""What the Pydantic AI tests share: a scripted model, Reader tools, AG-UI apps, HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter

import moca_agui
from support import Call, assert_valid_stream, record, types, without_citations

# tests/support.py's helpers, also importable from here (as tests written earlier do)
from support import Reader as Reader
from support import answer_ids as answer_ids
from support import compact as compact
from support import parse_sse as parse_sse
from support import run_input as run_input

A = record("a.md")
B = record("b.md")
C = record("c.md")


# -- the model --------------------------------------------------------------------------


@dataclass(frozen=True)
class Fail:
    """The model's stream breaks here."""

    message: str = "the model connection dropped"


Turn = Sequence[str | Call | Fail]
Script = Sequence[Turn]


def question_of(messages: list[ModelMessage]) -> str:
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    raise AssertionError("no user question in the run")


def scripted(script: Script | Callable[[str], Script]) -> FunctionModel:
    """A streaming model that plays turn n of `script` as its n-th response of the run.

    `script` may depend on the user's question, so runs of one agent can differ.
    """

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        turns = script(question_of(messages)) if callable(script) else script
        turn = turns[sum(isinstance(message, ModelResponse) for message in messages)]
        for index, chunk in enumerate(turn):
            if isinstance(chunk, str):
                yield chunk
            elif isinstance(chunk, Call):
                yield {index: DeltaToolCall(name=chunk.name, tool_call_id=chunk.id)}
                yield {index: DeltaToolCall(json_args=json.dumps(chunk.args))}
            else:
                raise RuntimeError(chunk.message)

    return FunctionModel(stream_function=stream)


def agent(model: Any, *tools: Any, toolsets: Sequence[Any] = ()) -> Agent[None, str]:
    return Agent(model, tools=list(tools), toolsets=list(toolsets))


# -- AG-UI over HTTP --------------------------------------------------------------------


def dispatch_app(
    adapter: type[AGUIAdapter[Any, Any]], the_agent: Agent[Any, Any], **kw: Any
) -> FastAPI:
    """Pydantic AI's documented endpoint: `AGUIAdapter.dispatch_request`."""
    app = FastAPI()

    @app.post("/")
    async def run_agent(request: Request) -> Response:
        return await adapter.dispatch_request(request, agent=the_agent, **kw)

    return app


async def post(app: Any, question: str, run_id: str = "run-1") -> list[dict[str, Any]]:
    """POST one AG-UI run; the SSE events, parsed."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(
            "/", json=run_input(question, run_id), headers={"accept": "text/event-stream"}
        )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return parse_sse(response.text)


def cited(the_agent: Agent[Any, Any], **options: Any) -> FastAPI:
    """The same endpoint with the one changed line."""
    return dispatch_app(moca_agui.instrument(AGUIAdapter, **options), the_agent)


async def run_both(
    the_agent: Agent[Any, Any], question: str, **options: Any
) -> list[dict[str, Any]]:
    """The instrumented stream, after checking it against the plain one: the agent's own
    events are unchanged and in order, and the stream passes ag-ui-validate."""
    plain = await post(dispatch_app(AGUIAdapter, the_agent), question)
    stream = await post(cited(the_agent, **options), question)
    assert shape(without_citations(stream)) == shape(plain)
    assert_valid_stream(stream)
    return stream


def kinds(stream: list[dict[str, Any]]) -> list[str]:
    """`types(stream)` without REASONING_* events, which only some versions send (e.g.
    for a retried tool call)."""
    return [kind for kind in types(stream) if not kind.startswith("REASONING_")]


# -- reading streams --------------------------------------------------------------------


def empty_message_ids(stream: list[dict[str, Any]]) -> list[str]:
    """Ids of the START/END pairs with no text (Pydantic AI's tool-only responses)."""
    with_text = {e["messageId"] for e in stream if e["type"] == "TEXT_MESSAGE_CONTENT"}
    return [
        e["messageId"]
        for e in stream
        if e["type"] == "TEXT_MESSAGE_START" and e["messageId"] not in with_text
    ]


def shape(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stream without what differs between two runs of one script: timestamps and the
    generated message ids (numbered in order of appearance)."""
    names: dict[str, str] = {}
    shaped = []
    for event in _results_in_call_order(stream):
        event = {key: value for key, value in event.items() if key != "timestamp"}
        for key in ("messageId", "parentMessageId", "entityId"):
            if key in event:
                event[key] = names.setdefault(event[key], f"message-{len(names) + 1}")
        if isinstance(event.get("value"), dict) and "messageId" in event["value"]:
            value = dict(event["value"])
            value["messageId"] = names.setdefault(value["messageId"], f"message-{len(names) + 1}")
            value.pop("computedAt", None)
            event["value"] = value
        shaped.append(event)
    return shaped


def _results_in_call_order(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls of one response run concurrently, so their results may come in either
    order: sort each run of adjacent results (with the REASONING_* events that follow
    one) by tool call id."""
    ordered: list[dict[str, Any]] = []
    units: list[list[dict[str, Any]]] = []
    for event in [*stream, {"type": "END"}]:
        if event["type"] == "TOOL_CALL_RESULT":
            units.append([event])
        elif units and event["type"].startswith("REASONING_"):
            units[-1].append(event)
        else:
            for unit in sorted(units, key=lambda unit: unit[0]["toolCallId"]):
                ordered.extend(unit)
            units = []
            ordered.append(event)
    return ordered[:-1]
