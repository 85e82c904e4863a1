"""Two requests at once to one instrumented endpoint, served by uvicorn on 127.0.0.1:
each run's event cites only what its own Reader returned, and the shared agent keeps
no run state."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from lg_chat import Call, Say, StreamingChatModel
from lg_service import agent, app_for

from served import served
from support import assert_valid_stream, citation_events, parse_sse, record, ref, run_input

A, B = record("a.md"), record("b.md")
BY_THREAD = {"thread-a": A, "thread-b": B}


@pytest.fixture
async def barrier() -> asyncio.Barrier:
    return asyncio.Barrier(2)


async def test_concurrent_requests_each_see_only_their_own_records(
    barrier: asyncio.Barrier,
) -> None:
    @tool
    async def moca_search(query: str, config: RunnableConfig) -> dict[str, Any]:
        """Search; both runs wait here until the other one arrives."""
        async with asyncio.timeout(10):
            await barrier.wait()
        return {"query": query, "results": [BY_THREAD[config["configurable"]["thread_id"]]]}

    script = [[Call("moca_search", {"query": "bees"})], [Say(f"See {ref(A)}, {ref(B)} [1].")]]
    shared = agent(StreamingChatModel(script=script), [moca_search])

    async def ask(client: httpx.AsyncClient, thread_id: str) -> list[dict[str, Any]]:
        body = run_input(thread_id=thread_id, run_id=f"run-{thread_id}")
        response = await client.post("/", json=body)
        response.raise_for_status()
        return parse_sse(response.text)

    async with served(app_for(shared)) as url, httpx.AsyncClient(base_url=url, timeout=30) as c:
        stream_a, stream_b = await asyncio.gather(ask(c, "thread-a"), ask(c, "thread-b"))

    for stream, own in ((stream_a, A), (stream_b, B)):
        assert_valid_stream(stream)
        (value,) = citation_events(stream)
        assert value["citations"] == [{"marker": "[1]", "record": own}]
