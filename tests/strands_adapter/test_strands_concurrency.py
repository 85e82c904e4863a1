"""Runs of one instrumented `StrandsAgent`, at once and one after another: each run's
event cites only what its own Reader calls returned."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from strands import tool
from strands_support import (
    A,
    B,
    Call,
    ScriptedModel,
    app_for,
    parse_sse,
    post,
    reader_tools,
    run_input,
    strands_agent,
)

import moca_agui
from moca_agui.check import check_events
from served import served
from support import assert_valid_stream, citation_events, ref


@pytest.mark.parametrize("shared_run_id", [False, True])
async def test_concurrent_runs_each_cite_only_their_own_records(shared_run_id: bool) -> None:
    # A client's run id is no run's own: two runs in flight may share it.
    barrier = asyncio.Barrier(2)

    @tool
    async def moca_search(query: str) -> dict[str, Any]:
        """Search; both runs wait here until the other one arrives."""
        await asyncio.wait_for(barrier.wait(), 10)
        return {"query": query, "results": [rec for rec in (A, B) if rec["node"]["path"] in query]}

    def script(question: str) -> list[Any]:
        return [[Call("moca_search", {"query": question})], [f"See {ref(A)}, {ref(B)} [1]."]]

    app = app_for(moca_agui.instrument(strands_agent(ScriptedModel(script), [moca_search])))

    async def ask(client: httpx.AsyncClient, question: str) -> list[dict[str, Any]]:
        run_id = "run-1" if shared_run_id else f"run-{question}"
        body = run_input(question, thread_id=f"thread-{question}", run_id=run_id)
        response = await client.post("/", json=body, headers={"accept": "text/event-stream"})
        stream = parse_sse(response.text)
        assert_valid_stream(stream)
        assert [str(f) for f in check_events(stream) if f.level == "error"] == []
        return stream

    async with served(app) as base_url, httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        first, second = await asyncio.gather(ask(client, "a.md"), ask(client, "b.md"))
    [a] = citation_events(first)
    [b] = citation_events(second)
    assert a["citations"] == [{"marker": "[1]", "record": A}]  # [1] is A in this run
    assert b["citations"] == [{"marker": "[1]", "record": B}]  # and B in that one


async def test_a_later_run_on_the_same_thread_starts_with_nothing_read() -> None:
    def script(question: str) -> list[Any]:
        if question == "first":
            return [[Call("moca_get_node", {"node_id": ref(A)})], [f"{ref(A)} [1]"]]
        return [[f"As I said: {ref(A)} [1]."]]  # from the conversation, not read in this run

    app = app_for(moca_agui.instrument(strands_agent(ScriptedModel(script), reader_tools(A))))
    first = await post(app, "first", run_id="run-1")
    second = await post(app, "second", run_id="run-2")
    assert [v["citations"] for v in citation_events(first)] == [[{"marker": "[1]", "record": A}]]
    assert [v["citations"] for v in citation_events(second)] == [[]]
