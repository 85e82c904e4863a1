"""Markers name the nodes in the order the model issued its calls: two Reader calls in one
model response, run concurrently by ToolNode, the first one finishing last."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.tools import tool
from lg_chat import Call, Say, ScriptedChatModel, StreamingChatModel
from lg_reader import A, B, C
from lg_service import agent, app_for, post

from support import assert_valid_stream, citation_events, run_input


def reverse_finishing_reader() -> list[Any]:
    """`moca_search` (called first) returns only once `moca_get_node` has returned."""
    got_node = asyncio.Event()

    @tool
    async def moca_search(query: str, detail: str = "full") -> dict[str, Any]:
        """Search the knowledge base."""
        await got_node.wait()
        return {"query": query, "results": [A, B]}

    @tool
    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """Read one node."""
        got_node.set()
        return C

    return [moca_search, moca_get_node]


@pytest.mark.parametrize("model", [StreamingChatModel, ScriptedChatModel])
async def test_parallel_results_arriving_in_reverse_are_numbered_in_call_order(model) -> None:
    script = [
        [
            Call("moca_search", {"query": "bees"}, "call-search"),
            Call("moca_get_node", {"node_id": "c"}, "call-get"),
        ],
        [Say("Water [1], shelter [2], winter food [3].")],
    ]
    stream = await post(
        app_for(agent(model(script=script), reverse_finishing_reader())), run_input()
    )
    assert_valid_stream(stream)

    results = [e["toolCallId"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert results == ["call-get", "call-search"]  # the second call finished first
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": B},
        {"marker": "[3]", "record": C},
    ]
