"""The demo service on LlamaIndex: an AGUIChatWorkflow with the demo Reader's tools and the
scripted model, served by LlamaIndex's AG-UI router.

Citations are turned on by the one line the README shows: the workflow factory goes
through `moca_agui.instrument`.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import FastAPI
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow  # type: ignore[import-untyped]
from llama_index.protocols.ag_ui.router import AGUIWorkflowRouter  # type: ignore[import-untyped]

import moca_agui

from ..model import next_step
from ..reader import READER_TOOLS, DemoReader
from ..steps import Answer, ToolResult

__all__ = ["build_app", "reader_tools", "scripted_llm"]


def build_app(reader: DemoReader, **cite_options: Any) -> FastAPI:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `moca_agui.instrument`; `lookup` defaults to `reader.get`, so
    compact search results become whole records.
    """
    cite_options.setdefault("lookup", reader.get)
    tools = reader_tools(reader)

    async def workflow_factory() -> AGUIChatWorkflow:
        return AGUIChatWorkflow(llm=scripted_llm(), backend_tools=tools, timeout=60)

    app = FastAPI(title="moca-agui demo (LlamaIndex)")
    # get_ag_ui_workflow_router(workflow_factory=...) serves the same endpoint at /run.
    router = AGUIWorkflowRouter(moca_agui.instrument(workflow_factory, **cite_options))
    app.add_api_route("/", router.run, methods=["POST"])
    return app


def reader_tools(reader: DemoReader) -> list[FunctionTool]:
    """The Reader's tools, answering JSON text as the reference Reader's MCP server does."""
    return [_json_tool(getattr(reader, name)) for name in READER_TOOLS]


def _json_tool(method: Callable[..., Any]) -> FunctionTool:
    @functools.wraps(method)  # the tool's name, description and schema are the method's
    def tool(**arguments: Any) -> str:
        return json.dumps(method(**arguments), ensure_ascii=False)

    return FunctionTool.from_defaults(fn=tool)


def scripted_llm() -> MockFunctionCallingLLM:
    """A function-calling model that follows the demo's `next_step` script."""
    return MockFunctionCallingLLM(response_generator=_respond)


def _respond(messages: Sequence[ChatMessage], **_: Any) -> ChatMessage:
    """The next message: one Reader tool call, or the answer (streamed as one chunk)."""
    question = ""
    results: list[ToolResult] = []  # since the question
    tool_names: dict[str, str] = {}  # tool call id -> tool name
    for message in messages:
        role = message.role.value
        if role == "user" and "tool_call_id" not in message.additional_kwargs:
            question, results = message.content or "", []
        elif role == "assistant":
            for block in message.blocks:
                if isinstance(block, ToolCallBlock) and block.tool_call_id:
                    tool_names[block.tool_call_id] = block.tool_name
        elif role == "tool":
            name = tool_names.get(message.additional_kwargs.get("tool_call_id", ""), "")
            results.append(ToolResult(name, message.content))
    step = next_step(question, results)
    if isinstance(step, Answer):
        return ChatMessage(role="assistant", content=step.text)
    call = ToolCallBlock(
        tool_call_id=f"call-{uuid.uuid4().hex[:12]}",
        tool_name=step.name,
        tool_kwargs=step.arguments,
    )
    return ChatMessage(role="assistant", blocks=[call])
