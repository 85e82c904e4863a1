"""Two requests at once to one instrumented endpoint, served by uvicorn on 127.0.0.1:
each run's event cites only what its own Reader returned, and the shared agent keeps
no run state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from lg_chat import Call, Say, StreamingChatModel
from lg_service import agent, app_for

from support import assert_valid_stream, citation_events, parse_sse, record, ref, run_input

A, B = record("a.md"), record("b.md")
BY_THREAD = {"thread-a": A, "thread-b": B}


@pytest.fixture
async def barrier() -> asyncio.Barrier:
    return asyncio.Barrier(2)


@asynccontextmanager
async def serve(app: Any) -> AsyncIterator[str]:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(10):
            while not server.started:
                await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


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

    async with serve(app_for(shared)) as url, httpx.AsyncClient(base_url=url, timeout=30) as c:
        stream_a, stream_b = await asyncio.gather(ask(c, "thread-a"), ask(c, "thread-b"))

    for stream, own in ((stream_a, A), (stream_b, B)):
        assert_valid_stream(stream)
        (value,) = citation_events(stream)
        assert value["citations"] == [{"marker": "[1]", "record": own}]
