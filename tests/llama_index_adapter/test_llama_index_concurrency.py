"""Two runs at once, served by uvicorn on 127.0.0.1: each sees only its own Reader results."""

from __future__ import annotations

import asyncio

import pytest
from li_support import QUESTION, Call, Turn, app_of, post, scripted_llm, streamed_ids, tool
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow

import moca_agui
from served import served
from support import citation_events, record, ref

RECORDS = {"alpha": record("alpha.md"), "beta": record("beta.md")}
TURNS = (
    Turn(calls=(Call("moca_search", "call-1", {"query": QUESTION, "detail": "full"}),)),
    Turn(text=f"Per [1]; see also {ref(RECORDS['alpha'])} and {ref(RECORDS['beta'])}."),
)


def reader_tools() -> list:
    both_running = asyncio.Barrier(2)

    async def moca_search(query: str = "", detail: str = "compact") -> dict:
        async with asyncio.timeout(10):
            await both_running.wait()  # neither run's search returns before both have started
        return {"query": query, "results": [RECORDS[query]]}

    return [tool("moca_search", moca_search)]


def fresh_workflow_per_request():
    tools = reader_tools()

    async def factory():
        return AGUIChatWorkflow(llm=scripted_llm(*TURNS), backend_tools=tools)

    return moca_agui.instrument(factory)


def one_instrumented_instance():
    shared = moca_agui.instrument(
        AGUIChatWorkflow(llm=scripted_llm(*TURNS), backend_tools=reader_tools())
    )

    async def factory():
        return shared

    return factory


def one_instance_of_an_instrumented_class():
    workflow_class = moca_agui.instrument(AGUIChatWorkflow)
    shared = workflow_class(llm=scripted_llm(*TURNS), backend_tools=reader_tools())

    async def factory():
        return shared

    return factory


@pytest.mark.parametrize(
    "make_factory",
    [fresh_workflow_per_request, one_instrumented_instance, one_instance_of_an_instrumented_class],
)
async def test_two_concurrent_requests_are_isolated(make_factory):
    async with served(app_of(make_factory())) as url:
        alpha, beta = await asyncio.gather(
            post(url, question="alpha", run_id="run-alpha"),
            post(url, question="beta", run_id="run-beta"),
        )
    for stream, name in ((alpha, "alpha"), (beta, "beta")):
        [message_id] = streamed_ids(stream)
        [value] = citation_events(stream)
        assert value["messageId"] == message_id
        assert value["citations"] == [{"marker": "[1]", "record": RECORDS[name]}]
        assert stream[-1] == {
            "type": "RUN_FINISHED",
            "timestamp": stream[-1]["timestamp"],
            "threadId": "thread-1",
            "runId": f"run-{name}",
        }
    assert streamed_ids(alpha) != streamed_ids(beta)


async def test_two_concurrent_runs_under_one_client_run_id_are_isolated():
    # The client's run id is no key: two runs in flight may share it.
    async with served(app_of(one_instrumented_instance())) as url:
        alpha, beta = await asyncio.gather(
            post(url, question="alpha", run_id="run-1"),
            post(url, question="beta", run_id="run-1"),
        )
    for stream, name in ((alpha, "alpha"), (beta, "beta")):
        [value] = citation_events(stream)
        assert value["citations"] == [{"marker": "[1]", "record": RECORDS[name]}]
