"""`moca_agui.numbered(tools)` on LangGraph: the model reads each source beside its
run-wide marker, and the event uses the same numbers. A scripted model copies what it
read; two parallel calls finish in reverse, then a second search would start at [1]."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from lg_chat import Call, Say, StreamingChatModel, Turn
from lg_reader import mcp_shaped
from lg_service import agent, app_for, post

import moca_agui
from moca_agui.check import check_events
from support import (
    assert_valid_stream,
    citation_events,
    cited_as_shown,
    copied_answer,
    record,
    run_input,
)

A, B, C, D = record("a.md"), record("b.md"), record("c.md"), record("d.md")
COPY: Turn = [Say("<copy>")]  # this turn writes what the model read, copying its numbers


class CopyingModel(StreamingChatModel):
    """A model that answers `COPY` turns with the numbers its history showed it."""

    def turn(self, messages: list[BaseMessage]) -> Turn:
        planned = super().turn(messages)
        if planned is not COPY:
            return planned
        shown = [m.content for m in messages if isinstance(m, ToolMessage)]
        return [Say(copied_answer(shown))]


class Ended(AsyncCallbackHandler):
    """Set once the tool it is given to ended: its result returned (numbered) and its end
    handed to LangGraph's event stream (the TOOL_CALL_RESULT's source)."""

    def __init__(self) -> None:
        self.ended = asyncio.Event()

    async def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        self.ended.set()


def numbered_reader() -> list[BaseTool]:
    """The Reader's tools, numbered; the first search returns once the (sync, threaded)
    `moca_get_node` call issued beside it ended, so that call is numbered first."""
    got_node = Ended()

    @tool
    async def moca_search(query: str) -> dict[str, Any]:
        """Search the knowledge base."""
        if query == "bees":
            await got_node.ended.wait()
            return {"query": query, "results": [A, B]}
        return {"query": query, "results": [D, A]}

    @tool
    def moca_get_node(node_id: str) -> dict[str, Any]:
        """Read one node."""
        return C

    tools = moca_agui.numbered([moca_search, moca_get_node])  # the one line
    tools[1].callbacks = [got_node]  # the numbered tool's own end, as LangGraph runs it
    return tools


async def test_the_model_cites_the_numbers_it_was_shown() -> None:
    script = [
        [
            Call("moca_search", {"query": "bees"}, "call-search"),
            Call("moca_get_node", {"node_id": "c"}, "call-get"),
        ],
        [Call("moca_search", {"query": "mites"}, "call-search-2")],
        COPY,
    ]
    tools = numbered_reader()
    stream = await post(app_for(agent(CopyingModel(script=script), tools)), run_input())
    assert_valid_stream(stream)

    calls = [e["toolCallId"] for e in stream if e["type"] == "TOOL_CALL_START"]
    assert calls == ["call-search", "call-get", "call-search-2"]  # the inner call is quiet
    results = {e["toolCallId"]: e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"}
    assert list(results) == ["call-get", "call-search", "call-search-2"]
    assert [json.loads(results[c]) for c in ("call-search", "call-get", "call-search-2")] == [
        {"results": [{"marker": "[2]", "result": A}, {"marker": "[3]", "result": B}]},
        {"results": [{"marker": "[1]", "result": C}]},
        {"results": [{"marker": "[4]", "result": D}, {"marker": "[2]", "result": A}]},
    ]
    assert check_events(stream) == []  # the checker reads the numbered results
    [value] = citation_events(stream)
    text = "".join(e["delta"] for e in stream if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert value["citations"] == cited_as_shown(text, A, B, C, D)
    assert [c["marker"] for c in value["citations"]] == ["[2]", "[3]", "[1]", "[4]"]


async def test_mcp_shaped_tools_are_numbered_from_what_they_returned() -> None:
    """Tools as langchain-mcp-adapters makes them (content blocks of JSON text, structured
    content in the artifact): the model reads the numbered sources in place of them."""

    def search(query: str) -> tuple[list[dict[str, Any]], None]:
        text = json.dumps({"query": query, "results": [A, B]}, indent=2)
        return [{"type": "text", "text": text}], None

    def get_node(node_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return [{"type": "text", "text": "One node."}], {"structured_content": C}

    tools = mcp_shaped(search, get_node)
    script = [
        [Call("moca_search", {"query": "bees"}, "call-search")],
        [Call("moca_get_node", {"node_id": "c"}, "call-get")],
        COPY,
    ]
    model = CopyingModel(script=script)
    stream = await post(app_for(agent(model, moca_agui.numbered(tools))), run_input())
    assert_valid_stream(stream)
    assert check_events(stream) == []

    results = [json.loads(e["content"]) for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert results == [
        {"results": [{"marker": "[1]", "result": A}, {"marker": "[2]", "result": B}]},
        {"results": [{"marker": "[3]", "result": C}]},
    ]
    [value] = citation_events(stream)
    assert [c["marker"] for c in value["citations"]] == ["[1]", "[2]", "[3]"]
    assert [c["record"] for c in value["citations"]] == [A, B, C]
