"""`moca_agui.numbered` on Strands: `@tool` functions show the model each source beside its
run-wide marker, and the event uses the same numbers. A scripted model copies what it
read; two parallel calls finish in reverse, then a second search would start at [1]."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from strands import tool
from strands_support import (
    A,
    B,
    C,
    Call,
    CopyingModel,
    ScriptedModel,
    app_for,
    post,
    strands_agent,
)

import moca_agui
from moca_agui.adapters.strands import NumberedTool
from support import citation_events, cited_as_shown, record

D = record("d.md")


def reader() -> list[Any]:
    got_node = asyncio.Event()

    @tool
    async def moca_search(query: str) -> dict[str, Any]:
        """Search the knowledge base."""
        if query == "bees":
            await got_node.wait()  # moca_get_node's result is produced first
            return {"query": query, "results": [A, B]}
        return {"query": query, "results": [D, A]}

    @tool
    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """Read one node."""
        got_node.set()
        return C

    return [moca_search, moca_get_node]


async def test_tools_show_the_numbers_the_model_cites() -> None:
    model = CopyingModel(
        [
            Call("moca_search", {"query": "bees"}, "c1"),
            Call("moca_get_node", {"node_id": "c"}, "c2"),
        ],
        [Call("moca_search", {"query": "mites"}, "c3")],
    )
    tools = moca_agui.numbered(reader())  # the one line
    assert all(isinstance(t, NumberedTool) for t in tools)
    app = app_for(moca_agui.instrument(strands_agent(model, tools)))
    stream = await post(app, "bees")

    results = {e["toolCallId"]: e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"}
    assert [json.loads(results[c]) for c in ("c1", "c2", "c3")] == [
        {"results": [{"marker": "[2]", "result": A}, {"marker": "[3]", "result": B}]},
        {"results": [{"marker": "[1]", "result": C}]},
        {"results": [{"marker": "[4]", "result": D}, {"marker": "[2]", "result": A}]},
    ]
    [value] = citation_events(stream)
    text = "".join(e["delta"] for e in stream if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert value["citations"] == cited_as_shown(text, A, B, C, D)
    assert [c["marker"] for c in value["citations"]] == ["[2]", "[3]", "[1]", "[4]"]


async def test_a_numbered_tool_of_a_plain_agent_sends_its_result_unchanged() -> None:
    model = ScriptedModel([[Call("moca_get_node", {"node_id": "c"}, "c1")], ["Done."]])
    stream = await post(app_for(strands_agent(model, moca_agui.numbered(reader()))), "q")
    results = [e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert [json.loads(r) for r in results] == [C]
    assert citation_events(stream) == []
