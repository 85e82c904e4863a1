"""Markers name the nodes in the order the model issued its calls: two Reader calls in one
model response, run in parallel by Pydantic AI (its default), the first one finishing last.

Pydantic AI sends their results as they finish, and the client records them so: on the
next turn the model reads them in that order, not the one it read them in when it wrote
its markers. Which node a default marker of that turn names is then not known."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from pai_support import A, B, C, Call, agent, cited, post, run_both, scripted
from thread_turns import Lookup, after_run
from thread_turns import post as post_turn

from support import citation_events, markers_left_out, ref, run_input

PARALLEL_CALLS = [
    Call("moca_search", {"query": "bees"}, "call-search"),
    Call("moca_get_node", {"node_id": "c"}, "call-get"),
]


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
    model = scripted([PARALLEL_CALLS, ["Water [1], shelter [2], winter food [3]."]])
    stream = await run_both(agent(model, *reverse_finishing_reader()), "bees")

    results = [e["toolCallId"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert results == ["call-get", "call-search"]  # the second call finished first
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": B},
        {"marker": "[3]", "record": C},
    ]


async def test_a_follow_up_leaves_out_the_markers_that_turns_order_decides(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Turn 1 read A, B, C; the thread the client sends back lists C first. [1] and [3] of
    turn 2 could be either node: left out, logged; C's ref is cited."""
    again = f"Again: water [1], winter food [3]; see {ref(C)}."
    model = scripted([PARALLEL_CALLS, ["Water [1], shelter [2], winter food [3]."], [again]])
    app = cited(agent(model, *reverse_finishing_reader()), lookup=Lookup(A, B, C))
    first = await post(app, "bees")
    [value] = citation_events(first)
    assert [c["marker"] for c in value["citations"]] == ["[1]", "[2]", "[3]"]

    thread = after_run(run_input("bees", "run-1")["messages"], first)
    assert [m["toolCallId"] for m in thread if m["role"] == "tool"] == ["call-get", "call-search"]
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        second = await post_turn(app, run_input("Again?", "run-2", history=thread))
    [value] = citation_events(second)
    assert value["citations"] == [{"record": C}]
    assert markers_left_out(caplog) == ["[1]", "[3]"]
