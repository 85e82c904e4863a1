"""Markers name the nodes in the order the model issued its calls: two Reader calls in one
model response, run in parallel by Pydantic AI (its default), the first one finishing last."""

from __future__ import annotations

import asyncio
from typing import Any

from pai_support import A, B, C, Call, agent, run_both, scripted

from support import citation_events


def reverse_finishing_reader() -> list[Any]:
    """`moca_search` (called first) returns only once `moca_get_node` has returned."""
    got_node = asyncio.Event()

    async def moca_search(query: str, detail: str = "full") -> dict[str, Any]:
        """Search the knowledge base."""
        await got_node.wait()
        for _ in range(3):  # let the loop take moca_get_node's end first (no clock involved)
            await asyncio.sleep(0)
        return {"query": query, "results": [A, B]}

    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """Read one node."""
        got_node.set()
        return C

    return [moca_search, moca_get_node]


async def test_parallel_results_arriving_in_reverse_are_numbered_in_call_order() -> None:
    model = scripted(
        [
            [
                Call("moca_search", {"query": "bees"}, "call-search"),
                Call("moca_get_node", {"node_id": "c"}, "call-get"),
            ],
            ["Water [1], shelter [2], winter food [3]."],
        ]
    )
    stream = await run_both(agent(model, *reverse_finishing_reader()), "bees")

    results = [e["toolCallId"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert results == ["call-get", "call-search"]  # the second call finished first
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": B},
        {"marker": "[3]", "record": C},
    ]
