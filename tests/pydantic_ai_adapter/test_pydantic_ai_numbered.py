"""`moca_agui.numbered` on Pydantic AI: function tools and an MCP toolset show the model each
source beside its run-wide marker, and the event uses the same numbers. A scripted model
copies what it read; two parallel calls finish in reverse, then a second search would
start at [1]."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastmcp.client.transports import PythonStdioTransport
from pai_support import A, B, C, Call, agent, cited, post
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

import moca_agui
from moca_agui.check import check_events
from support import assert_valid_stream, citation_events, cited_as_shown, copied_answer, record, ref

D = record("d.md")
SERVER = Path(__file__).with_name("pai_mcp_reader.py")


def copying(*turns: list[Call]) -> FunctionModel:
    """Plays `turns` (tool calls), then answers with the numbers its history showed it."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        answered = sum(isinstance(m, ModelResponse) for m in messages)
        if answered < len(turns):
            for index, call in enumerate(turns[answered]):
                yield {index: DeltaToolCall(name=call.name, tool_call_id=call.id)}
                yield {index: DeltaToolCall(json_args=json.dumps(call.args))}
            return
        yield copied_answer(
            part.content
            for m in messages
            if isinstance(m, ModelRequest)
            for part in m.parts
            if isinstance(part, ToolReturnPart)
        )

    return FunctionModel(stream_function=stream)


def reader() -> list[Any]:
    got_node = asyncio.Event()

    async def moca_search(query: str) -> dict[str, Any]:
        """Search the knowledge base."""
        if query == "bees":
            await got_node.wait()
            for _ in range(3):  # moca_get_node's end is taken first (no clock involved)
                await asyncio.sleep(0)
            return {"query": query, "results": [A, B]}
        return {"query": query, "results": [D, A]}

    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """Read one node."""
        got_node.set()
        return C

    return [moca_search, moca_get_node]


async def test_function_tools_show_the_numbers_the_model_cites() -> None:
    model = copying(
        [
            Call("moca_search", {"query": "bees"}, "c1"),
            Call("moca_get_node", {"node_id": "c"}, "c2"),
        ],
        [Call("moca_search", {"query": "mites"}, "c3")],
    )
    tools = moca_agui.numbered(reader())  # the one line
    stream = await post(cited(agent(model, *tools)), "bees")
    assert_valid_stream(stream)

    results = {e["toolCallId"]: e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"}
    assert list(results) == ["c2", "c1", "c3"]  # c1 finished last
    assert [json.loads(results[c]) for c in ("c1", "c2", "c3")] == [
        {"results": [{"marker": "[2]", "result": A}, {"marker": "[3]", "result": B}]},
        {"results": [{"marker": "[1]", "result": C}]},
        {"results": [{"marker": "[4]", "result": D}, {"marker": "[2]", "result": A}]},
    ]
    assert check_events(stream) == []  # the checker reads the numbered results
    [value] = citation_events(stream)
    text = "".join(e["delta"] for e in stream if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert value["citations"] == cited_as_shown(text, A, B, C, D)
    assert [c["marker"] for c in value["citations"]] == ["[2]", "[3]", "[1]", "[4]"]


async def test_an_mcp_toolset_shows_the_numbers_the_model_cites(tmp_path: Path) -> None:
    records = tmp_path / "records.json"
    records.write_text(json.dumps([A, B, C]), encoding="utf-8")
    transport = PythonStdioTransport(SERVER, args=[str(records)], python_cmd=sys.executable)
    toolset = moca_agui.numbered(MCPToolset(transport))  # the one line
    model = copying(
        [Call("moca_search", {"query": "a.md b.md", "detail": "full"}, "c1")],
        [Call("moca_search", {"query": "c.md a.md", "detail": "full"}, "c2")],
        [Call("moca_get_node", {"node_id": ref(B)}, "c3")],
    )
    stream = await post(cited(agent(model, toolsets=[toolset])), "q")
    assert_valid_stream(stream)
    assert check_events(stream) == []  # the checker reads the numbered MCP results

    scored = {path: {**rec, "score": 1.0} for path, rec in (("a", A), ("b", B), ("c", C))}
    results = {
        e["toolCallId"]: json.loads(e["content"]) for e in stream if e["type"] == "TOOL_CALL_RESULT"
    }
    assert results == {
        "c1": {
            "results": [
                {"marker": "[1]", "result": scored["a"]},
                {"marker": "[2]", "result": scored["b"]},
            ]
        },
        "c2": {
            "results": [
                {"marker": "[1]", "result": scored["a"]},  # shown before: the same number
                {"marker": "[3]", "result": scored["c"]},
            ]
        },
        # The same node and (no) span as in c1: the same entry, the same number.
        "c3": {"results": [{"marker": "[2]", "result": B}]},
    }
    [value] = citation_events(stream)
    assert [(c["marker"], c["record"]) for c in value["citations"]] == [
        ("[1]", scored["a"]),
        ("[2]", scored["b"]),
        ("[3]", scored["c"]),
    ]
