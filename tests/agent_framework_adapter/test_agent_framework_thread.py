"""Microsoft Agent Framework over turns of one thread, as @ag-ui/client sends them (the
whole thread each run, built from the previous run's events; agent-framework-ag-ui keeps
no thread of its own by default), and as a client that sends only its new messages to an
endpoint that keeps the thread (`snapshot_store=`): numbered tools count on, an earlier
source is cited only with the record `lookup` gives now, a forged record the client sends
back is never sent, and a source read again keeps its number."""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

import httpx
import pytest
from af_support import app_for, chat_agent, events_of
from agent_framework import Agent, Content, FileHistoryProvider, Message, tool
from agent_framework_ag_ui import (
    AgentFrameworkAgent,
    InMemoryAGUIThreadSnapshotStore,
    add_agent_framework_fastapi_endpoint,
)
from fastapi import FastAPI
from thread_turns import (
    LONGER_ANSWER,
    TRIMMED_ANSWER,
    WHOLE_ANSWER,
    B,
    Steps,
    cited,
    follow_ups,
    get_node,
    numbered_over_three_turns,
    resent_thread,
    search_hits,
)

import moca_agui
from moca_agui.demo.frameworks.agent_framework import ScriptedChatClient
from support import Call, assert_valid_stream, ref, run_input


def thread_client(steps: Steps) -> ScriptedChatClient:
    """Answers the thread's last question with its steps, one per model response."""

    def play(messages: Sequence[Message]) -> Iterable[Content]:
        asked = max(i for i, m in enumerate(messages) if m.role == "user")
        step = steps[messages[asked].text][sum(m.role == "assistant" for m in messages[asked:])]
        if isinstance(step, Call):
            arguments = json.dumps(step.args)
            return [
                Content.from_function_call(call_id=step.id, name=step.name, arguments=arguments)
            ]
        return [Content.from_text(step)]

    return ScriptedChatClient(play)


def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return search_hits(query)


def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def cited_agent(steps: Steps, numbered: bool, **options: Any) -> Any:
    tools = [tool(moca_search), tool(moca_get_node)]
    agent = chat_agent(thread_client(steps), *(moca_agui.numbered(tools) if numbered else tools))
    return moca_agui.instrument(AgentFrameworkAgent(agent=agent), **options)


def serve(steps: Steps, *, numbered: bool, **options: Any) -> Any:
    return app_for(cited_agent(steps, numbered, **options))


def serve_keeping_threads(steps: Steps, *, numbered: bool, **options: Any) -> Any:
    return app_keeping_threads(cited_agent(steps, numbered, **options))


def app_keeping_threads(agent: Any) -> FastAPI:
    """The endpoint with the framework's in-memory Thread Snapshot store, every request in
    one snapshot scope."""
    app = FastAPI()
    add_agent_framework_fastapi_endpoint(
        app,
        agent,
        "/",
        snapshot_store=InMemoryAGUIThreadSnapshotStore(),
        snapshot_scope_resolver=lambda request: "tests",
    )
    return app


async def post(app: Any, body: dict[str, Any]) -> list[dict[str, Any]]:
    """One run over ASGI (the endpoint's SSE, as af_support reads it)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", json=body, headers={"accept": "text/event-stream"})
    assert response.status_code == 200, response.text
    stream = events_of(response.text)
    assert_valid_stream(stream)
    return stream


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    await numbered_over_three_turns(serve, post=post)


async def test_follow_ups_cite_earlier_sources_only_with_the_record_lookup_gives_now():
    await follow_ups(serve, post=post)


async def test_an_endpoint_that_keeps_the_thread_numbers_on_for_a_client_sending_only_new_ones():
    """The store holds the thread; each run's input is the new question alone."""
    await numbered_over_three_turns(serve_keeping_threads, post=post, whole_thread=False)


async def test_an_endpoint_that_keeps_the_thread_numbers_on_for_a_client_sending_it_whole():
    await numbered_over_three_turns(serve_keeping_threads, post=post)


async def test_an_endpoint_that_keeps_the_thread_numbers_it_whatever_the_client_sends():
    """The store's thread, then only the client's new question: turns the client dropped
    still count, another thread's turns it put first never do (the framework drops them)."""
    await resent_thread(serve_keeping_threads, "trimmed", WHOLE_ANSWER, post=post)
    await resent_thread(serve_keeping_threads, "edited", WHOLE_ANSWER, post=post)
    await resent_thread(serve_keeping_threads, "longer", WHOLE_ANSWER, post=post)
    await resent_thread(serve_keeping_threads, "moved", LONGER_ANSWER, post=post)  # none stored


async def test_an_endpoint_that_keeps_no_thread_numbers_the_clients_as_sent():
    await resent_thread(serve, "trimmed", TRIMMED_ANSWER, post=post)
    await resent_thread(serve, "edited", WHOLE_ANSWER, post=post)
    await resent_thread(serve, "longer", LONGER_ANSWER, post=post)


@pytest.mark.parametrize("store", [False, True])
async def test_a_thread_only_the_provider_holds_leaves_default_markers_out(caplog, store):
    """`use_service_session=True`, the thread's id naming the provider's conversation, and
    no snapshot of it stored: the provider's conversation is the thread, which the
    endpoint cannot read, so a default marker may name any source."""
    steps: Steps = {"q1": [Call("moca_search", {"query": "a.md b.md"}), f"A [1]; per {ref(B)}."]}
    agent = chat_agent(thread_client(steps), tool(moca_search), tool(moca_get_node))
    service: dict[str, Any] = {"use_service_session": True}
    if "service_session_id_from_thread_id" in inspect.signature(AgentFrameworkAgent).parameters:
        service["service_session_id_from_thread_id"] = True
    elif store:
        pytest.skip(
            "this agent-framework-ag-ui names no provider conversation by thread id; the "
            "newest does: nox -s tests-agent-framework(newest)"
        )
    runner = moca_agui.instrument(AgentFrameworkAgent(agent=agent, **service))
    app = app_keeping_threads(runner) if store else app_for(runner)
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(app, run_input("q1", "run-1"))
    assert cited(stream) == [{"record": B}]
    said = [r.getMessage() for r in caplog.records if "the thread was not read" in r.getMessage()]
    assert len(said) == 1 and "markers are left out" in said[0]


@pytest.mark.filterwarnings("ignore:.*FileHistoryProvider is experimental")
async def test_a_history_the_chat_agent_loads_itself_leaves_default_markers_out(caplog, tmp_path):
    """A history provider that keeps the thread in files: the model reads that history
    before the thread it is given, and the endpoint cannot read it."""
    steps: Steps = {"q1": [Call("moca_search", {"query": "a.md b.md"}), f"A [1]; per {ref(B)}."]}
    tools = [tool(moca_search), tool(moca_get_node)]
    agent = Agent(
        thread_client(steps), tools=tools, context_providers=[FileHistoryProvider(tmp_path)]
    )
    app = app_for(moca_agui.instrument(AgentFrameworkAgent(agent=agent)))
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(app, run_input("q1", "run-1"))
    assert cited(stream) == [{"record": B}]
    said = [r.getMessage() for r in caplog.records if "the thread was not read" in r.getMessage()]
    assert len(said) == 1 and "markers are left out" in said[0]
