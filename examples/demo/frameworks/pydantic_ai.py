"""The demo service on Pydantic AI: an `Agent` with the demo Reader's tools and the scripted
model, served by Pydantic AI's AG-UI adapter.

Citations are turned on by the one line the README shows:
`AGUIAdapter = moca_agui.instrument(AGUIAdapter)`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic_ai import Agent, Tool
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter

import moca_agui

from ..model import next_step
from ..reader import READER_TOOLS, DemoReader
from ..steps import Answer, ToolResult

__all__ = ["build_app", "reader_tools", "scripted_model"]


def build_app(reader: DemoReader, **cite_options: Any) -> FastAPI:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `moca_agui.instrument`; `lookup` defaults to `reader.get`, so
    compact search results become whole records.
    """
    cite_options.setdefault("lookup", reader.get)
    adapter = moca_agui.instrument(AGUIAdapter, **cite_options)
    agent = Agent(scripted_model(), tools=reader_tools(reader), name="moca-demo")
    app = FastAPI(title="moca-agui demo (Pydantic AI)")

    @app.post("/")
    async def endpoint(request: Request) -> Response:
        return await adapter.dispatch_request(request, agent=agent)

    return app


def reader_tools(reader: DemoReader) -> list[Tool[Any]]:
    """The Reader's tools as Pydantic AI tools, named and described as the reference Reader's."""
    return [Tool(getattr(reader, name), name=name) for name in READER_TOOLS]


def scripted_model() -> FunctionModel:
    """The demo's scripted model as a streaming Pydantic AI model: offline, deterministic.

    Each response asks `next_step` what to do with the last user question and the Reader
    results received since: one tool call, or the answer, streamed a line at a time.
    """

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        step = next_step(*_question_and_results(messages))
        if isinstance(step, Answer):
            for line in step.text.splitlines(keepends=True):
                yield line
            return
        call_id = f"call-{uuid.uuid4().hex[:12]}"
        yield {0: DeltaToolCall(name=step.name, tool_call_id=call_id)}
        yield {0: DeltaToolCall(json_args=json.dumps(step.arguments))}

    return FunctionModel(stream_function=stream, model_name="moca-agui-demo")


def _question_and_results(messages: list[ModelMessage]) -> tuple[str, list[ToolResult]]:
    """The last user question, and the tool results that followed it, in order."""
    question = ""
    results: list[ToolResult] = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                question, results = _text(part.content), []
            elif isinstance(part, ToolReturnPart):
                results.append(ToolResult(part.tool_name, part.content))
    return question, results


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(part for part in content if isinstance(part, str))
