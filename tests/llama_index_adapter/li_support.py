"""LlamaIndex test rig: a scripted MockFunctionCallingLLM, tools, and the AG-UI router over HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi import FastAPI
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage, TextBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Workflow
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow
from llama_index.protocols.ag_ui.router import get_ag_ui_workflow_router

from support import assert_valid_stream

# tests/support.py's helpers, also importable from here (as tests written earlier do)
from support import parse_sse as parse_sse
from support import run_input as run_input

#: An argument value the scripted model replaces with the user's question.
QUESTION = "<the user's question>"


@dataclass(frozen=True)
class Call:
    """A tool call the model makes (`QUESTION` as a value stands for the user's question)."""

    name: str
    id: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Turn:
    """One model response: its text, streamed in `chunks` (or as one), and its tool calls."""

    text: str = ""
    calls: tuple[Call, ...] = ()
    chunks: tuple[str, ...] = ()

    @property
    def pieces(self) -> tuple[str, ...]:
        return self.chunks or ((self.text,) if self.text else ())


def scripted_llm(*turns: Turn) -> MockFunctionCallingLLM:
    """A function-calling mock that answers turn n of the script at the n-th model call
    after the last user message, so concurrent runs each follow the script."""

    def respond(messages: Sequence[ChatMessage], **_: Any) -> Any:
        since_user, question = 0, ""
        for message in messages:
            if message.role.value == "user" and "tool_call_id" not in message.additional_kwargs:
                since_user, question = 0, message.content or ""
            elif message.role.value == "assistant":
                since_user += 1
        turn = turns[since_user]
        calls = [
            ToolCallBlock(
                tool_call_id=c.id,
                tool_name=c.name,
                tool_kwargs={k: question if v == QUESTION else v for k, v in c.arguments.items()},
            )
            for c in turn.calls
        ]
        pieces = turn.pieces
        if len(pieces) <= 1:
            blocks = [TextBlock(text=text) for text in pieces]
            return ChatMessage(role="assistant", blocks=[*blocks, *calls])

        async def stream() -> AsyncIterator[ChatMessage]:
            # MockFunctionCallingLLM streams each message's content as one delta.
            for piece in pieces[:-1]:
                yield ChatMessage(role="assistant", content=piece)
            yield ChatMessage(role="assistant", blocks=[TextBlock(text=pieces[-1]), *calls])

        return stream()

    return MockFunctionCallingLLM(response_generator=respond)


def tool(name: str, result: Callable[..., Any]) -> FunctionTool:
    """A backend tool named `name` that returns `result(**arguments)`."""
    return FunctionTool.from_defaults(fn=result, name=name, description=f"The {name} tool.")


def returning(name: str, value: Any) -> FunctionTool:
    """A backend tool named `name` that takes Reader-like arguments and returns `value`."""

    def run(query: str = "", detail: str = "compact", node_id: str = "") -> Any:
        return value

    return tool(name, run)


def workflow(
    *turns: Turn, tools: Sequence[Any] = (), frontend_tools: Sequence[Any] = ()
) -> AGUIChatWorkflow:
    return AGUIChatWorkflow(
        llm=scripted_llm(*turns),
        backend_tools=list(tools),
        frontend_tools=list(frontend_tools),
        timeout=30,
    )


def factory_of(*turns: Turn, **kwargs: Any) -> Callable[[], Awaitable[Workflow]]:
    """A `workflow_factory` making a new AGUIChatWorkflow for each request."""

    async def factory() -> Workflow:
        return workflow(*turns, **kwargs)

    return factory


def app_of(factory: Callable[[], Awaitable[Workflow]]) -> FastAPI:
    app = FastAPI()
    app.include_router(get_ag_ui_workflow_router(workflow_factory=factory))
    return app


async def post(
    target: FastAPI | str,
    question: str = "How long is the refund window?",
    run_id: str = "run-1",
    raise_app_exceptions: bool = True,
    history: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """POST one run to the router's `/run` (an app in process, or a base URL), parse the SSE
    and check it with `assert_valid_stream`."""
    if isinstance(target, str):
        client = httpx.AsyncClient(base_url=target, timeout=30)
    else:
        transport = httpx.ASGITransport(app=target, raise_app_exceptions=raise_app_exceptions)
        client = httpx.AsyncClient(transport=transport, base_url="http://test")
    async with client:
        response = await client.post("/run", json=run_input(question, run_id, history=history))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    stream = parse_sse(response.text)
    assert_valid_stream(stream)
    return stream


def streamed_ids(stream: list[dict[str, Any]]) -> list[str]:
    """Ids of the streamed assistant messages, in order."""
    ids: list[str] = []
    for event in stream:
        if event["type"] == "TEXT_MESSAGE_CHUNK" and event["messageId"] not in ids:
            ids.append(event["messageId"])
    return ids


def streamed_text(stream: list[dict[str, Any]], message_id: str) -> str:
    return "".join(
        e["delta"]
        for e in stream
        if e["type"] == "TEXT_MESSAGE_CHUNK" and e["messageId"] == message_id
    )


def snapshots(stream: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The message lists of the MESSAGES_SNAPSHOT events."""
    return [e["messages"] for e in stream if e["type"] == "MESSAGES_SNAPSHOT"]
