"""The demo service on AWS Strands: a Strands `Agent` with the demo Reader's tools and the
scripted model, served by ag-ui-strands' FastAPI endpoint.

Citations are turned on by the one line the README shows:
`agent = moca_agui.instrument(StrandsAgent(agent=strands_agent, name="moca-demo"))`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, TypeVar

from ag_ui_strands import StrandsAgent, add_strands_fastapi_endpoint  # type: ignore[import-untyped]
from fastapi import FastAPI
from pydantic import BaseModel
from strands import Agent, tool
from strands.models import Model
from strands.types.content import Messages
from strands.types.streaming import StreamEvent
from strands.types.tools import AgentTool

import moca_agui

from ..model import next_step
from ..reader import READER_TOOLS, DemoReader
from ..steps import Answer, ToolResult

__all__ = ["DemoModel", "build_app", "reader_tools"]

T = TypeVar("T", bound=BaseModel)


def build_app(reader: DemoReader, **cite_options: Any) -> FastAPI:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `moca_agui.instrument`; `lookup` defaults to `reader.get`, so
    compact search results become whole records.
    """
    cite_options.setdefault("lookup", reader.get)
    tools: list[Any] = [*reader_tools(reader)]
    strands_agent = Agent(model=DemoModel(), tools=tools, callback_handler=None)
    agent = moca_agui.instrument(
        StrandsAgent(agent=strands_agent, name="moca-demo"), **cite_options
    )
    app = FastAPI(title="moca-agui demo (AWS Strands)")
    add_strands_fastapi_endpoint(app, agent, "/")
    return app


def reader_tools(reader: DemoReader) -> list[AgentTool]:
    """The Reader's tools as Strands tools, named and described as the reference Reader's."""
    return [tool(name=name)(getattr(reader, name)) for name in READER_TOOLS]


class DemoModel(Model):
    """The demo's scripted model as a streaming Strands model: offline, deterministic.

    Each response asks `next_step` what to do with the last user question and the Reader
    results received since: one tool call, or the answer, streamed a line at a time.
    """

    def __init__(self) -> None:
        self._config: dict[str, Any] = {"model_id": "moca-agui-demo"}

    def update_config(self, **model_config: Any) -> None:
        self._config.update(model_config)

    def get_config(self) -> dict[str, Any]:
        return dict(self._config)

    async def structured_output(
        self,
        output_model: type[T],
        prompt: Messages,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[dict[str, T | Any], None]:
        raise NotImplementedError("the demo model answers in text only")
        yield {}  # an async generator, as Strands expects

    async def stream(
        self,
        messages: Messages,
        tool_specs: Any = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[StreamEvent]:
        step = next_step(*_question_and_results(messages))
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(step, Answer):
            yield {"contentBlockStart": {"start": {}}}
            for line in step.text.splitlines(keepends=True):
                yield {"contentBlockDelta": {"delta": {"text": line}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        call_id = f"call-{uuid.uuid4().hex[:12]}"
        yield {
            "contentBlockStart": {"start": {"toolUse": {"toolUseId": call_id, "name": step.name}}}
        }
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(step.arguments)}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


def _question_and_results(messages: Messages) -> tuple[str, list[ToolResult]]:
    """The last user question, and the tool results that followed it, in order."""
    question = ""
    results: list[ToolResult] = []
    names: dict[str, str] = {}  # tool use id -> tool name
    for message in messages:
        for block in message["content"]:
            if "toolUse" in block:
                names[block["toolUse"]["toolUseId"]] = block["toolUse"]["name"]
            elif "toolResult" in block:
                result = block["toolResult"]
                text = "".join(part.get("text", "") for part in result["content"])
                results.append(ToolResult(names.get(result["toolUseId"], ""), text))
            elif message["role"] == "user" and "text" in block:
                question, results = block["text"], []
    return question, results
