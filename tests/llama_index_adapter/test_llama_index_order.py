"""Markers name the nodes in the order the model reads them. LlamaIndex's chat history
gives parallel tool results in the order they finished: two Reader calls in one model
response, the first finishing last, are numbered in that history order."""

from __future__ import annotations

import asyncio
from typing import Any

from li_support import QUESTION, Call, Turn, app_of, factory_of, post, snapshots, tool

import moca_agui
from support import citation_events, record

A, B, C = record("a.md"), record("b.md"), record("c.md")


async def test_parallel_results_arriving_in_reverse_are_numbered_in_history_order() -> None:
    got_node = asyncio.Event()

    async def moca_search(query: str = "", detail: str = "full") -> dict[str, Any]:
        await got_node.wait()
        for _ in range(20):  # let the workflow take moca_get_node's result first (no clock)
            await asyncio.sleep(0)
        return {"query": query, "results": [A, B]}

    async def moca_get_node(node_id: str = "") -> dict[str, Any]:
        got_node.set()
        return C

    turns = (
        Turn(
            calls=(
                Call("moca_search", "call-search", {"query": QUESTION}),
                Call("moca_get_node", "call-get", {"node_id": "c"}),
            )
        ),
        Turn(text="Winter food [1], water [2], shelter [3]."),
    )
    tools = [tool("moca_search", moca_search), tool("moca_get_node", moca_get_node)]
    stream = await post(app_of(moca_agui.instrument(factory_of(*turns, tools=tools))))

    history = [m["toolCallId"] for m in snapshots(stream)[-1] if m["role"] == "tool"]
    assert history == ["call-get", "call-search"]  # what the model reads, in this order
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": C},
        {"marker": "[2]", "record": A},
        {"marker": "[3]", "record": B},
    ]
