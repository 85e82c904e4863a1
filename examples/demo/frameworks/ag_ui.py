"""The demo service on the bare AG-UI SDK: no framework, the scripted model, the demo Reader.

The agent is an async generator of `ag_ui.core` events; citations are turned on by the
one line the README shows, `moca_agui.cite(...)` around it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

import moca_agui

from ..model import next_step
from ..reader import DemoReader
from ..steps import Answer, ToolResult

__all__ = ["build_app", "run_agent"]

_MAX_STEPS = 8


def build_app(reader: DemoReader, **cite_options: Any) -> FastAPI:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `moca_agui.cite`; `lookup` defaults to `reader.get`, so compact
    search results become whole records.
    """
    cite_options.setdefault("lookup", reader.get)
    moca_agui.CitationOptions.from_kwargs(**cite_options)  # fail now, not on the first run
    app = FastAPI(title="moca-agui demo (bare AG-UI SDK)")

    @app.post("/")
    async def endpoint(input_data: RunAgentInput) -> StreamingResponse:
        encoder = EventEncoder()
        events = moca_agui.cite(run_agent(input_data, reader), **cite_options)
        return StreamingResponse(
            (encoder.encode(event) async for event in events),
            media_type=encoder.get_content_type(),
        )

    return app


async def run_agent(input_data: RunAgentInput, reader: DemoReader) -> AsyncIterator[BaseEvent]:
    """One run of the scripted model: Reader tool calls, then the answer, as AG-UI events."""
    thread_id, run_id = input_data.thread_id, input_data.run_id
    yield RunStartedEvent(type=EventType.RUN_STARTED, thread_id=thread_id, run_id=run_id)
    question = _last_user_text(input_data)
    results: list[ToolResult] = []
    for _ in range(_MAX_STEPS):
        step = next_step(question, results)
        if isinstance(step, Answer):
            async for event in _answer(step.text):
                yield event
            break
        call_id = f"call-{uuid.uuid4().hex[:12]}"
        yield ToolCallStartEvent(
            type=EventType.TOOL_CALL_START, tool_call_id=call_id, tool_call_name=step.name
        )
        yield ToolCallArgsEvent(
            type=EventType.TOOL_CALL_ARGS, tool_call_id=call_id, delta=json.dumps(step.arguments)
        )
        yield ToolCallEndEvent(type=EventType.TOOL_CALL_END, tool_call_id=call_id)
        value = getattr(reader, step.name)(**step.arguments)
        results.append(ToolResult(step.name, value))
        yield ToolCallResultEvent(
            type=EventType.TOOL_CALL_RESULT,
            message_id=f"tool-{call_id}",
            tool_call_id=call_id,
            content=json.dumps(value, ensure_ascii=False),
            role="tool",
        )
    yield RunFinishedEvent(type=EventType.RUN_FINISHED, thread_id=thread_id, run_id=run_id)


async def _answer(text: str) -> AsyncIterator[BaseEvent]:
    message_id = f"msg-{uuid.uuid4().hex[:12]}"
    yield TextMessageStartEvent(
        type=EventType.TEXT_MESSAGE_START, message_id=message_id, role="assistant"
    )
    for line in text.splitlines(keepends=True):  # streamed a line at a time
        yield TextMessageContentEvent(
            type=EventType.TEXT_MESSAGE_CONTENT, message_id=message_id, delta=line
        )
    yield TextMessageEndEvent(type=EventType.TEXT_MESSAGE_END, message_id=message_id)


def _last_user_text(input_data: RunAgentInput) -> str:
    for message in reversed(input_data.messages):
        if message.role == "user":
            content = message.content
            if isinstance(content, str):
                return content
            return " ".join(getattr(part, "text", "") for part in content)
    return ""
