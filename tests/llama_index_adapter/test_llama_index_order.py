"""Markers name the nodes in the order the model reads them. LlamaIndex's chat history
gives parallel tool results in the order they finished: two Reader calls in one model
response, the first finishing last, are numbered in that history order, in their run and
in a follow-up, whose thread the client built from the run's MESSAGES_SNAPSHOT."""

from __future__ import annotations

import asyncio
from typing import Any

from li_support import QUESTION, Call, Turn, app_of, factory_of, post, snapshots, tool
from thread_turns import Lookup, after_run

import moca_agui
from support import citation_events, record, run_input

A, B, C = record("a.md"), record("b.md"), record("c.md")


async def parallel_results_arriving_in_reverse() -> tuple[list[dict[str, Any]], list[Any]]:
    """A run whose search (called first) finishes after its get_node; its stream and tools."""
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
    return await post(app_of(moca_agui.instrument(factory_of(*turns, tools=tools)))), tools


async def test_parallel_results_arriving_in_reverse_are_numbered_in_history_order() -> None:
    stream, _ = await parallel_results_arriving_in_reverse()
    history = [m["toolCallId"] for m in snapshots(stream)[-1] if m["role"] == "tool"]
    assert history == ["call-get", "call-search"]  # what the model reads, in this order
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": C},
        {"marker": "[2]", "record": A},
        {"marker": "[3]", "record": B},
    ]


async def test_a_follow_up_numbers_the_earlier_parallel_results_as_the_model_read_them() -> None:
    """The client keeps the snapshot's order (what the model read), so turn 1's markers
    still hold in turn 2: each cited with the record `lookup` gives now."""
    first, tools = await parallel_results_arriving_in_reverse()
    thread = after_run(run_input(QUESTION, "run-1")["messages"], first)
    answer = Turn(text="Again: shelter [3], winter food [1], water [2].")
    lookup = Lookup(A, B, C)
    app = app_of(moca_agui.instrument(factory_of(answer, tools=tools), lookup=lookup))
    second = await post(app, "And again?", "run-2", history=thread)

    [value] = citation_events(second)
    assert value["citations"] == [
        {"marker": "[3]", "record": B},
        {"marker": "[1]", "record": C},
        {"marker": "[2]", "record": A},
    ]
