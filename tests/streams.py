"""Small builders of AG-UI event streams for the core tests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    RunErrorEvent,
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
from pydantic import BaseModel


def run_started(run_id: str = "run-1") -> BaseEvent:
    return RunStartedEvent(thread_id="thread-1", run_id=run_id)


def run_finished(run_id: str = "run-1") -> BaseEvent:
    return RunFinishedEvent(thread_id="thread-1", run_id=run_id)


def run_error(message: str = "boom") -> BaseEvent:
    return RunErrorEvent(message=message)


def tool_call(call_id: str, name: str, result: Any, *, args: str = "{}") -> list[BaseEvent]:
    """A whole tool call: START, ARGS, END, RESULT (JSON text, or content parts as given)."""
    parts = isinstance(result, list) and all(isinstance(p, BaseModel) for p in result)
    content = result if isinstance(result, str) or (parts and result) else json.dumps(result)
    return [
        ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name),
        ToolCallArgsEvent(tool_call_id=call_id, delta=args),
        ToolCallEndEvent(tool_call_id=call_id),
        ToolCallResultEvent(message_id=f"tool-{call_id}", tool_call_id=call_id, content=content),
    ]


def message(message_id: str, *deltas: str) -> list[BaseEvent]:
    """An assistant message: START, one CONTENT per delta, END."""
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        *(TextMessageContentEvent(message_id=message_id, delta=d) for d in deltas),
        TextMessageEndEvent(message_id=message_id),
    ]


def run(*parts: BaseEvent | Iterable[BaseEvent], run_id: str = "run-1") -> list[BaseEvent]:
    """RUN_STARTED, the parts flattened, RUN_FINISHED."""
    events: list[BaseEvent] = [run_started(run_id)]
    for part in parts:
        events.extend([part] if isinstance(part, BaseEvent) else part)
    events.append(run_finished(run_id))
    return events


async def source(events: Iterable[BaseEvent]) -> AsyncIterator[BaseEvent]:
    for event in events:
        yield event
