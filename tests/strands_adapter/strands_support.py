"""What the Strands tests share: a scripted Strands model, Reader tools, apps, HTTP."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from ag_ui_strands import StrandsAgent, StrandsAgentConfig, add_strands_fastapi_endpoint
from fastapi import FastAPI
from strands import Agent, tool
from strands.models import Model

import moca_agui
from moca_agui.check import check_events
from support import Call, assert_valid_stream, copied_answer, record, ref, without_citations

# tests/support.py's helpers, also importable from here (as tests written earlier do)
from support import answer_ids as answer_ids
from support import parse_sse as parse_sse
from support import run_input as run_input
from support import types as kinds  # noqa: F401 (the name these tests read)

A = record("a.md")
B = record("b.md")
C = record("c.md")


# -- the model --------------------------------------------------------------------------


@dataclass(frozen=True)
class Cite:
    """The model's own citation of a document (as Bedrock's citations send it)."""

    title: str


Turn = Sequence[str | Call | Cite]


class ScriptedModel(Model):  # type: ignore[misc]
    """A streaming Strands model that plays turn n of `script` as its n-th response since
    the last user question; `script` may depend on the question."""

    def __init__(self, script: Sequence[Turn] | Callable[[str], Sequence[Turn]]) -> None:
        self.script = script

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> dict[str, Any]:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError
        yield

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        question, responses = "", 0
        for message in messages:
            texts = [block["text"] for block in message["content"] if "text" in block]
            if message["role"] == "user" and texts:
                question, responses = texts[-1], 0
            responses += message["role"] == "assistant"
        turns = self.script(question) if callable(self.script) else self.script
        yield {"messageStart": {"role": "assistant"}}
        calls = False
        for part in turns[responses]:
            if isinstance(part, str):
                yield {"contentBlockStart": {"start": {}}}
                yield {"contentBlockDelta": {"delta": {"text": part}}}
                yield {"contentBlockStop": {}}
            elif isinstance(part, Cite):
                location = {"documentChar": {"documentIndex": 0, "start": 0, "end": 4}}
                citation = {"title": part.title, "location": location}
                yield {"contentBlockDelta": {"delta": {"citation": citation}}}
            else:
                calls = True
                start = {"toolUse": {"toolUseId": part.id, "name": part.name}}
                yield {"contentBlockStart": {"start": start}}
                yield {
                    "contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(part.args)}}}
                }
                yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use" if calls else "end_turn"}}


class CopyingModel(ScriptedModel):
    """Plays `turns` (tool calls), then answers with the numbers its history showed it."""

    def __init__(self, *turns: Sequence[Call]) -> None:
        super().__init__(turns)

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        answered = sum(message["role"] == "assistant" for message in messages)
        if answered < len(self.script):
            async for event in super().stream(messages, *args, **kwargs):
                yield event
            return
        shown = [
            part["text"]
            for message in messages
            for block in message["content"]
            if "toolResult" in block
            for part in block["toolResult"]["content"]
        ]
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": copied_answer(shown)}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


# -- a Reader, as @tool functions -------------------------------------------------------


def reader_tools(*records: dict[str, Any]) -> list[Any]:
    """`moca_search` and `moca_get_node` over `records`, returning dicts as the reference
    Reader's tools answer."""
    by_ref = {ref(rec): rec for rec in records}

    @tool
    def moca_search(query: str, detail: str = "full") -> dict[str, Any]:
        """Search the loaded packages; a node matches when its path is in the query."""
        hits = [rec for rec in records if rec["node"]["path"] in query]
        return {"query": query, "results": hits}

    @tool
    def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref."""
        return by_ref.get(node_id) or {"error": f"no node {node_id}"}

    return [moca_search, moca_get_node]


# -- AG-UI over HTTP --------------------------------------------------------------------


def strands_agent(model: Model, tools: Sequence[Any] = (), **config: Any) -> StrandsAgent:
    """A `StrandsAgent` over `model` and `tools`; `config`: `StrandsAgentConfig` fields."""
    agent = Agent(model=model, tools=list(tools), callback_handler=None)
    return StrandsAgent(agent=agent, name="support", config=StrandsAgentConfig(**config))


def app_for(agent: StrandsAgent) -> FastAPI:
    """ag-ui-strands' documented endpoint."""
    app = FastAPI()
    add_strands_fastapi_endpoint(app, agent, "/")
    return app


async def post(
    app: Any,
    question: str,
    thread_id: str = "thread-1",
    run_id: str = "run-1",
    readers: Iterable[str] = moca_agui.DEFAULT_READER_TOOLS,
) -> list[dict[str, Any]]:
    """POST one AG-UI run; the SSE events, parsed, after every check a stream must pass."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(
            "/",
            json=run_input(question, run_id, thread_id=thread_id),
            headers={"accept": "text/event-stream"},
        )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    stream = parse_sse(response.text)
    assert_valid_stream(stream)
    findings = check_events(stream, reader_tools=readers)
    errors = [str(f) for f in findings if f.level == "error"]
    assert errors == [], errors
    return stream


async def run_both(
    make: Callable[[], StrandsAgent], question: str, **options: Any
) -> list[dict[str, Any]]:
    """The stream of `moca_agui.instrument(make())`, after checking it against the stream
    of a plain `make()`: the agent's own events (MESSAGES_SNAPSHOTs and TEXT_MESSAGE_END
    metadata included) are unchanged and in order."""
    plain = await post(app_for(make()), question)
    readers = options.get("reader_tools", moca_agui.DEFAULT_READER_TOOLS)
    cited = moca_agui.instrument(make(), **options)
    stream = await post(app_for(cited), question, readers=readers)
    assert shape(without_citations(stream)) == shape(plain)
    return stream


# -- reading streams --------------------------------------------------------------------

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def shape(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stream with the ids ag-ui-strands makes up (uuid4s) numbered in order of first
    appearance, so two runs of one script compare equal."""
    names: dict[str, str] = {}
    text = _UUID.sub(lambda m: names.setdefault(m.group(), f"id-{len(names)}"), json.dumps(stream))
    shaped: list[dict[str, Any]] = json.loads(text)
    return shaped


def last_snapshot_ids(stream: list[dict[str, Any]]) -> list[str]:
    """Ids of the assistant messages with text in the last MESSAGES_SNAPSHOT: the ids the
    client shows once the snapshot replaced its messages."""
    snapshot = [e for e in stream if e["type"] == "MESSAGES_SNAPSHOT"][-1]
    return [m["id"] for m in snapshot["messages"] if m["role"] == "assistant" and m.get("content")]
