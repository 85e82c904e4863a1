"""The demo service on Microsoft Agent Framework: an `Agent` with the demo Reader's tools and
the scripted model behind an offline chat client, served by agent-framework-ag-ui.

Citations are turned on by the one line the README shows:
`agent = moca_agui.instrument(AgentFrameworkAgent(agent=chat_agent))`.
"""

from __future__ import annotations

import inspect
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
    ResponseStream,
    tool,
)
from agent_framework_ag_ui import AgentFrameworkAgent, add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

import moca_agui

from ..model import next_step
from ..reader import READER_TOOLS, DemoReader
from ..steps import Answer, ToolResult

__all__ = ["ScriptedChatClient", "build_app", "endpoint_options", "reader_tools", "scripted"]

#: What a scripted chat client plays for one model call: the contents of its response,
#: each streamed as one update (text, or a function call).
Play = Callable[[Sequence[Message]], Iterable[Content]]


def build_app(reader: DemoReader, **cite_options: Any) -> FastAPI:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `moca_agui.instrument`; `lookup` defaults to `reader.get`, so
    compact search results become whole records.
    """
    cite_options.setdefault("lookup", reader.get)
    chat_agent = Agent(scripted(), tools=reader_tools(reader), name="moca-demo")
    agent = moca_agui.instrument(AgentFrameworkAgent(agent=chat_agent), **cite_options)
    app = FastAPI(title="moca-agui demo (Microsoft Agent Framework)")
    add_agent_framework_fastapi_endpoint(app, agent, "/", **endpoint_options())
    return app


def endpoint_options() -> dict[str, Any]:
    """`single_user=True` where the endpoint asks for an explicit authorization mode (1.7
    and newer refuse to start without one; this demo has one user, on 127.0.0.1)."""
    parameters = inspect.signature(add_agent_framework_fastapi_endpoint).parameters
    return {"single_user": True} if "single_user" in parameters else {}


def reader_tools(reader: DemoReader) -> list[FunctionTool]:
    """The Reader's tools as function tools, named and described as the reference Reader's."""
    return [tool(getattr(reader, name), name=name) for name in READER_TOOLS]


class ScriptedChatClient(
    FunctionInvocationLayer[Any], ChatMiddlewareLayer[Any], BaseChatClient[Any]
):
    """An offline chat client of Agent Framework's own kind: `play(messages)` gives the
    contents of each response. The framework's function-invocation layer runs the tools
    it calls, as with any real model client."""

    def __init__(self, play: Play) -> None:
        super().__init__()
        self._play = play

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **_: Any
    ) -> Awaitable[ChatResponse] | ResponseStream[ChatResponseUpdate, ChatResponse]:
        updates = self._updates(messages)
        if stream:
            return self._build_response_stream(updates)
        return self._whole(updates)

    async def _updates(self, messages: Sequence[Message]) -> AsyncIterator[ChatResponseUpdate]:
        for content in self._play(messages):
            yield ChatResponseUpdate(role="assistant", contents=[content])

    @staticmethod
    async def _whole(updates: AsyncIterator[ChatResponseUpdate]) -> ChatResponse:
        return ChatResponse.from_updates([update async for update in updates])


def scripted() -> ScriptedChatClient:
    """The demo's scripted model as a chat client: offline, deterministic.

    Each response asks `next_step` what to do with the last user question and the tool
    results received since: one tool call, or the answer, streamed a line at a time.
    """

    def play(messages: Sequence[Message]) -> Iterable[Content]:
        step = next_step(*_question_and_results(messages))
        if isinstance(step, Answer):
            return [Content.from_text(line) for line in step.text.splitlines(keepends=True)]
        call_id = f"call-{uuid.uuid4().hex[:12]}"
        arguments = json.dumps(step.arguments)
        return [Content.from_function_call(call_id=call_id, name=step.name, arguments=arguments)]

    return ScriptedChatClient(play)


def _question_and_results(messages: Sequence[Message]) -> tuple[str, list[ToolResult]]:
    """The last user question, and the tool results that followed it, in order."""
    question = ""
    results: list[ToolResult] = []
    names: dict[str, str] = {}  # call id -> tool name
    for message in messages:
        if message.role == "user":
            question, results = message.text, []
        for content in message.contents:
            if content.type == "function_call" and content.call_id and content.name:
                names[content.call_id] = content.name
            elif content.type == "function_result" and content.call_id in names:
                results.append(ToolResult(names[content.call_id], content.result))
    return question, results
