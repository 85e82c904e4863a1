"""Agno's AG-UI interface behind CitationMiddleware: Agno's own router, an Agno `Agent`
with the demo Reader's tools and the demo's scripted model (an Agno `Model` subclass),
offline over real HTTP. Agno gives no agent object to wrap; the middleware cites it.

Run by `nox -s tests-agno` (Agno is no extra of moca-agui).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

import httpx
import pytest

agno_agent = pytest.importorskip("agno.agent", reason="needs agno[agui]: nox -s tests-agno")

from agno.models.base import Model  # noqa: E402
from agno.models.response import ModelResponse  # noqa: E402
from agno.os.interfaces.agui import AGUI  # noqa: E402
from fastapi import FastAPI  # noqa: E402
from readme_code import readme_diffs  # noqa: E402

from moca_agui.asgi import CitationMiddleware  # noqa: E402
from moca_agui.check import check_events, parse_stream  # noqa: E402
from moca_agui.demo.model import KNOWN_QUESTIONS, next_step  # noqa: E402
from moca_agui.demo.reader import READER_TOOLS, DemoReader  # noqa: E402
from moca_agui.demo.server import ask, build, run_input, served  # noqa: E402
from moca_agui.demo.steps import Answer, Step, ToolResult  # noqa: E402
from support import assert_valid_stream, citation_events, types  # noqa: E402


@dataclass
class Scripted(Model):
    """The demo's scripted model as an Agno model: one tool call, or the answer a line
    at a time, as `next_step` says for the messages so far."""

    id: str = "moca-agui-demo"
    name: str = "Scripted"
    provider: str = "moca-agui"

    async def ainvoke_stream(  # type: ignore[override]
        self, messages: list[Any], assistant_message: Any, **kwargs: Any
    ) -> AsyncIterator[ModelResponse]:
        step = _step(messages)
        if isinstance(step, Answer):
            for line in step.text.splitlines(keepends=True):
                yield ModelResponse(role="assistant", content=line)
            return
        function = {"name": step.name, "arguments": json.dumps(step.arguments)}
        call = {"id": f"call-{uuid.uuid4().hex[:12]}", "type": "function", "function": function}
        yield ModelResponse(role="assistant", tool_calls=[call])

    def invoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        raise NotImplementedError("the AG-UI interface streams")

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        raise NotImplementedError("the AG-UI interface streams")

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the AG-UI interface streams asynchronously")

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]


def _step(messages: list[Any]) -> Step:
    question, results = "", []
    for message in messages:
        if message.role == "user":
            question, results = str(message.content), []
        elif message.role == "tool":
            results.append(ToolResult(message.tool_name or "", message.content))
    return next_step(question, results)


def reader_tools(reader: DemoReader) -> list[Callable[..., str]]:
    """The Reader's tools, each answering JSON text as an MCP Reader does."""

    def as_json(method: Callable[..., Any]) -> Callable[..., str]:
        @wraps(method)
        def tool(*args: Any, **kwargs: Any) -> str:
            return json.dumps(method(*args, **kwargs))

        return tool

    return [as_json(getattr(reader, name)) for name in READER_TOOLS]


def agno_app(*, cited: bool = True) -> Any:
    """Agno's AG-UI router on FastAPI, as Agno's docs serve it; `cited`: the one line."""
    reader = DemoReader()
    agent = agno_agent.Agent(name="moca-demo", model=Scripted(), tools=reader_tools(reader))
    app = FastAPI()
    app.include_router(AGUI(agent=agent).get_router())
    if cited:
        app.add_middleware(CitationMiddleware, lookup=reader.get)
    return app


def answer(app: Any, question: str) -> list[dict[str, Any]]:
    async def run() -> str:
        async with served(app) as url, httpx.AsyncClient(timeout=60) as client:
            response = await client.post(url + "/agui", json=run_input(question))
            response.raise_for_status()
            return response.text

    return parse_stream(asyncio.run(run()))


def _refs(events: list[dict[str, Any]]) -> list[list[tuple[str | None, str]]]:
    return [
        [(c.get("marker"), c["record"]["node"]["ref"]) for c in value["citations"]]
        for value in citation_events(events)
    ]


@pytest.mark.parametrize("question", KNOWN_QUESTIONS)
def test_agno_through_the_middleware_cites_as_the_demo_does(question: str) -> None:
    events = answer(agno_app(), question)
    assert_valid_stream(events)
    assert check_events(events) == []
    assert types(events)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]
    (value,) = citation_events(events)
    texts = {e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"}
    assert texts == {value["messageId"]}  # the message with the answer, not Agno's empty one

    async def bare_sdk() -> list[dict[str, Any]]:
        return [json.loads(event) async for event in ask(build("ag-ui"), question)]

    assert _refs(events) == _refs(asyncio.run(bare_sdk()))  # the same sources and markers


def test_the_docs_diff_applied_cites() -> None:
    agno = readme_diffs("Agno", "asgi.md")[0]
    assert "app.add_middleware(CitationMiddleware)" in agno
    reader = DemoReader()
    agent = agno_agent.Agent(name="moca-demo", model=Scripted(), tools=reader_tools(reader))
    namespace: dict[str, Any] = {"agent": agent, "FastAPI": FastAPI}
    exec(agno, namespace)
    events = answer(namespace["app"], KNOWN_QUESTIONS[1])
    assert_valid_stream(events)
    assert check_events(events) == []
    (value,) = citation_events(events)
    assert [c["marker"] for c in value["citations"]] == ["[1]", "[2]"]


def test_without_the_middleware_agno_sends_no_citations() -> None:
    events = answer(agno_app(cited=False), KNOWN_QUESTIONS[1])
    assert "CUSTOM:moca.citations" not in types(events)
    assert "RAW" in types(events) and types(events)[-1] == "RUN_FINISHED"  # Agno's own stream
