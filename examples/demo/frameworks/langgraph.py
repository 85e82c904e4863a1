"""The demo service on LangGraph: a LangChain agent graph served by ag-ui-langgraph.

The model is the demo's scripted model behind a LangChain chat model, the tools are the
demo Reader's, and citations are turned on by the one line the README shows:
`agent = moca_agui.instrument(LangGraphAgent(...))`.
"""

from __future__ import annotations

import inspect
import json
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from ag_ui_langgraph import (  # type: ignore[import-untyped]
    LangGraphAgent,
    add_langgraph_fastapi_endpoint,
)
from fastapi import FastAPI
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.checkpoint.memory import InMemorySaver

import moca_agui

from ..model import next_step
from ..reader import READER_TOOLS, DemoReader
from ..steps import Answer, ToolCall, ToolResult

__all__ = ["ScriptedChatModel", "build_app", "reader_tools"]


def build_app(reader: DemoReader, **cite_options: Any) -> FastAPI:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `moca_agui.instrument`; `lookup` defaults to `reader.get`, so
    compact search results become whole records.
    """
    cite_options.setdefault("lookup", reader.get)
    graph = create_agent(ScriptedChatModel(), reader_tools(reader), checkpointer=InMemorySaver())
    agent = moca_agui.instrument(LangGraphAgent(name="moca-demo", graph=graph), **cite_options)
    app = FastAPI(title="moca-agui demo (LangGraph)")
    add_langgraph_fastapi_endpoint(app, agent, "/")
    return app


def reader_tools(reader: DemoReader) -> list[BaseTool]:
    """The Reader's tools as LangChain tools, named and described as the reference Reader's."""
    return [
        StructuredTool.from_function(
            getattr(reader, name), name=name, description=inspect.getdoc(getattr(reader, name))
        )
        for name in READER_TOOLS
    ]


class ScriptedChatModel(BaseChatModel):
    """The demo's scripted model as a LangChain chat model: offline, deterministic.

    Each call asks `next_step` what to do with the last user question and the Reader
    results received since: one tool call, or the answer, streamed a line at a time.
    """

    @property
    def _llm_type(self) -> str:
        return "moca-agui-demo"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self  # the script knows the Reader's tools

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return generate_from_stream(self._stream(messages, stop, run_manager, **kwargs))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in _chunks(_next_step(messages)):
            generation = ChatGenerationChunk(message=chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token(str(chunk.content), chunk=generation)
            yield generation


def _next_step(messages: list[BaseMessage]) -> ToolCall | Answer:
    """`next_step` for the last user question and the tool results that followed it."""
    asked = max(i for i, message in enumerate(messages) if isinstance(message, HumanMessage))
    question = messages[asked].text
    results = [
        ToolResult(message.name or "", _value(message.content))
        for message in messages[asked:]
        if isinstance(message, ToolMessage)
    ]
    return next_step(question, results)


def _value(content: Any) -> Any:
    """A tool's JSON answer, from its text or from its text content blocks (MCP tools)."""
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        content = "".join(text for text in texts if isinstance(text, str))
    try:
        return json.loads(content) if isinstance(content, str) else content
    except ValueError:
        return content


def _chunks(step: ToolCall | Answer) -> Iterator[AIMessageChunk]:
    if isinstance(step, Answer):
        for line in step.text.splitlines(keepends=True):
            yield AIMessageChunk(content=line)
        return
    call_id = f"call-{uuid.uuid4().hex[:12]}"
    for name, id_, args in ((step.name, call_id, ""), (None, None, json.dumps(step.arguments))):
        chunk = tool_call_chunk(name=name, id=id_, args=args, index=0)
        yield AIMessageChunk(content="", tool_call_chunks=[chunk])
