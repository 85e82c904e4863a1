"""The demo service on AG2: an `Agent` with the demo Reader's tools and the scripted model
(through AG2's own test model, `ag2.testing`), served by AG2's `AGUIStream`.

Citations are turned on by the one line the README shows: `moca_agui.instrument` on the
`AGUIStream`, whose `build_asgi()` is then AG2's endpoint behind `CitationMiddleware`,
its runs numbering parallel calls in the order the model issued them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ag2 import Agent, tool
from ag2.ag_ui import AGUIStream
from ag2.events import (
    BaseEvent,
    DataInput,
    ModelRequest,
    ModelResponse,
    TextInput,
    ToolCallEvent,
    ToolResultsEvent,
)
from ag2.events.types import ModelMessageChunk
from ag2.testing import TestClient, TestConfig, Turn
from starlette.types import ASGIApp

import moca_agui

from ..model import next_step
from ..reader import READER_TOOLS, DemoReader
from ..steps import Answer, ToolResult

__all__ = ["ScriptedConfig", "build_app"]


def build_app(reader: DemoReader, **cite_options: Any) -> ASGIApp:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `moca_agui.instrument`; `lookup` defaults to `reader.get`, so
    compact search results become whole records.
    """
    cite_options.setdefault("lookup", reader.get)
    tools = [tool(getattr(reader, name), name=name) for name in READER_TOOLS]
    agent = Agent("moca-demo", config=ScriptedConfig(), tools=tools)
    # AG2's endpoint behind `CitationMiddleware`, its runs in the model's order of calls
    app: ASGIApp = moca_agui.instrument(AGUIStream(agent), **cite_options).build_asgi()
    return app


class ScriptedConfig(TestConfig):
    """AG2's test model config, each turn asked of the demo's scripted model."""

    def create(self) -> TestClient:
        return _ScriptedClient(raise_tool_errors=False)


class _ScriptedClient(TestClient):
    """AG2's test client, its script written turn by turn by `next_step`: one tool call,
    or the answer streamed a line at a time."""

    async def __call__(
        self, messages: Sequence[BaseEvent], context: Any, **kwargs: Any
    ) -> ModelResponse:
        step = next_step(*_question_and_results(messages))
        turns: list[Turn]
        if isinstance(step, Answer):
            lines = step.text.splitlines(keepends=True)
            turns = [*(ModelMessageChunk(line) for line in lines), step.text]
        else:
            turns = [ToolCallEvent(step.name, arguments=json.dumps(step.arguments))]
        self.events = iter(turns)
        return await super().__call__(messages, context, **kwargs)


def _question_and_results(messages: Sequence[BaseEvent]) -> tuple[str, list[ToolResult]]:
    """The last user question, and the tool results that followed it, in order."""
    question = ""
    results: list[ToolResult] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            texts = [part.content for part in message.parts if isinstance(part, TextInput)]
            if texts:
                question, results = " ".join(texts), []
        elif isinstance(message, ToolResultsEvent):
            for event in message.results:
                for part in event.result.parts:
                    # a tuple: on AG2 event classes `|` builds a stream condition, not a union
                    if isinstance(part, (DataInput, TextInput)):
                        value = part.data if isinstance(part, DataInput) else part.content
                        results.append(ToolResult(event.name or "", value))
    return question, results
