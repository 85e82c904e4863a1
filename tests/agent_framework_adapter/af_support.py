"""What the Microsoft Agent Framework tests share: scripted models, Reader tools, the AG-UI
endpoint over HTTP, and the checks every stream passes.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import requires, version
from typing import Any

import httpx
import pytest
from agent_framework import Agent, Content, Message, tool
from agent_framework_ag_ui import AgentFrameworkAgent, add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

import moca_agui
from moca_agui.check import check_events
from moca_agui.demo.frameworks.agent_framework import ScriptedChatClient, endpoint_options
from support import Reader as SharedReader
from support import answer_ids as answer_ids
from support import assert_valid_stream, record, without_citations
from support import run_input as shared_run_input

A = record("a.md")
B = record("b.md")
C = record("c.md")
INVENTED = "https://example.com/moca/test-kb@1.0.0#never-read.md"

Turn = Sequence[Content] | Callable[[], Sequence[Content]]
Script = Sequence[Turn]


def call(name: str, call_id: str = "c1", **arguments: Any) -> Content:
    """The model calls tool `name` with `arguments`."""
    return Content.from_function_call(call_id=call_id, name=name, arguments=json.dumps(arguments))


def say(text: str) -> Content:
    return Content.from_text(text)


def scripted(script: Script | Callable[[str], Script]) -> ScriptedChatClient:
    """A chat client that plays turn n of `script` as its n-th response of the run (a
    turn that is a callable is called, so it can fail). `script` may depend on the
    user's question, so runs on one endpoint can differ."""

    def play(messages: Sequence[Message]) -> Iterable[Content]:
        question = next(m.text for m in messages if m.role == "user")
        turns = script(question) if callable(script) else script
        turn = turns[sum(m.role == "assistant" for m in messages)]
        return turn() if callable(turn) else turn

    return ScriptedChatClient(play)


class Reader(SharedReader):
    """In-process tools named and shaped like the reference Reader's."""

    @property
    def tools(self) -> list[Any]:
        return [tool(self.moca_search), tool(self.moca_get_node)]


def chat_agent(client: ScriptedChatClient, *tools: Any) -> Agent[Any]:
    return Agent(client, tools=list(tools), name="test-agent")


def app_for(agent: Any) -> FastAPI:
    """The framework's documented endpoint: `add_agent_framework_fastapi_endpoint`."""
    app = FastAPI()
    add_agent_framework_fastapi_endpoint(app, agent, "/", **endpoint_options())
    return app


def cited(agent: Agent[Any], **options: Any) -> FastAPI:
    """The same endpoint with the one changed line."""
    return app_for(moca_agui.instrument(AgentFrameworkAgent(agent=agent), **options))


def run_input(question: str) -> dict[str, Any]:
    """A RunAgentInput with a fresh thread (the framework keeps a session per thread)."""
    fresh = uuid.uuid4().hex[:8]
    return shared_run_input(question, f"run-{fresh}", thread_id=f"thread-{fresh}")


async def post_raw(app: FastAPI, question: str) -> str:
    """POST one AG-UI run over httpx's ASGI transport; the SSE body as sent."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(
            "/", json=run_input(question), headers={"accept": "text/event-stream"}
        )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return response.text


def events_of(body: str) -> list[dict[str, Any]]:
    """The events of an SSE body (keepalive comments aside)."""
    return [
        json.loads(line.removeprefix("data:").strip())
        for line in body.splitlines()
        if line.startswith("data:")
    ]


async def post(app: FastAPI, question: str) -> list[dict[str, Any]]:
    return events_of(await post_raw(app, question))


def assert_passes_every_check(stream: list[dict[str, Any]]) -> None:
    """ag-ui-validate, the event schema, the record schema, and `moca-agui check`."""
    assert_valid_stream(stream)
    assert [str(f) for f in check_events(stream) if f.level == "error"] == []


async def run_both(agent: Agent[Any], question: str, **options: Any) -> list[dict[str, Any]]:
    """The instrumented stream, after checking it against the plain one: the agent's own
    events are unchanged and in order, and the stream passes every check."""
    plain = await post(app_for(AgentFrameworkAgent(agent=agent)), question)
    stream = await post(cited(agent, **options), question)
    assert shape(without_citations(stream)) == shape(plain)
    assert_passes_every_check(stream)
    return stream


def shape(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stream without what differs between two runs of one script: the generated ids
    (numbered in order of appearance), thread and run ids, timestamps."""
    names: dict[str, str] = {}

    def named(value: str) -> str:
        return names.setdefault(value, f"id-{len(names) + 1}")

    def walk(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items() if k not in ("timestamp", "computedAt")}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if key in ("messageId", "parentMessageId", "id", "threadId", "runId"):
            return named(value)
        return value

    return [walk(event) for event in stream]


def snapshot_answers(stream: list[dict[str, Any]]) -> dict[str, str]:
    """id -> text of each assistant message with text in the last MESSAGES_SNAPSHOT."""
    [*_, snapshot] = [e for e in stream if e["type"] == "MESSAGES_SNAPSHOT"]
    return {
        m["id"]: m["content"]
        for m in snapshot["messages"]
        if m["role"] == "assistant" and m.get("content")
    }


def _speaks_installed_mcp() -> bool:
    """agent-framework-core before 1.2x is an MCP 1.x client; the Readers these tests
    start (the demo Reader, the reference Reader's replay) are MCP 2."""
    wanted = [r for r in requires("agent-framework-core") or () if r.startswith("mcp")]
    return not any("<2" in r for r in wanted) or version("mcp").startswith("1.")


needs_mcp_2_client = pytest.mark.skipif(
    not _speaks_installed_mcp(),
    reason="this agent-framework-core's MCP client speaks MCP 1.x, the Readers served here MCP "
    "2; the newest speaks MCP 2: nox -s tests-agent-framework(newest)",
)
