"""ADK over turns of one thread: as @ag-ui/client sends them (the whole thread each run,
built from the previous run's events), and as a client that sends only its new question
(the model reads the thread from the ADK session ag-ui-adk keeps). Numbered tools count
on, an earlier source is cited only with the record `lookup` gives now, a forged record
the client sends back is never sent, a source read again keeps its number."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
from adk_support import A, B, C, _data, adk_agent, endpoint, llm_agent
from thread_turns import (
    NUMBERED,
    TRIMMED_ANSWER,
    WHOLE_ANSWER,
    Lookup,
    Steps,
    after_run,
    cited,
    follow_ups,
    get_node,
    new_thread_id,
    next_turn,
    numbered_over_three_turns,
    resent_thread,
    search_hits,
    shown_markers,
)

import moca_agui
from support import Call, assert_valid_stream, ref, run_input


def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return search_hits(query)


def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def serve(steps: Steps, *, numbered: bool, contents: str = "default", **options: Any) -> Any:
    """`contents="none"`: the model reads only the current turn (ADK's `include_contents`)."""
    tools = [moca_search, moca_get_node]
    root = llm_agent(
        lambda q: [[step] for step in steps[q]],
        *(moca_agui.numbered(tools) if numbered else tools),
        include_contents=contents,
    )
    return endpoint(moca_agui.instrument(adk_agent(root), **options))


async def post(app: Any, body: dict[str, Any]) -> list[dict[str, Any]]:
    """One run over ASGI (ag-ui-adk's SSE, as adk_support reads it)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", json=body, headers={"accept": "text/event-stream"})
    assert response.status_code == 200, response.text
    chunks = [c for c in response.text.replace("\r\n", "\n").split("\n\n") if c.strip()]
    stream = [json.loads(_data(chunk)) for chunk in chunks]
    assert_valid_stream(stream)
    return stream


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    await numbered_over_three_turns(serve, post=post)


async def test_a_client_that_sends_only_new_messages_gets_the_sessions_numbers():
    """The ADK session holds the thread; each run's input is the new question alone."""
    await numbered_over_three_turns(serve, post=post, whole_thread=False)


async def test_a_thread_new_to_the_session_service_is_read_from_the_history_it_seeds():
    """The client sends a thread no session holds (another server's): ag-ui-adk writes its
    earlier turns into the new session, and the numbers the model was shown count on."""
    app = serve(NUMBERED, numbered=True, lookup=Lookup())
    first = run_input("q1", "run-1", thread_id=new_thread_id())
    thread = after_run(first["messages"], await post(app, first))
    elsewhere = serve(NUMBERED, numbered=True, lookup=Lookup())
    stream = await post(elsewhere, next_turn(thread, "q2", "run-2", thread_id=new_thread_id()))
    assert shown_markers(stream) == [["[1]", "[3]"]]
    assert cited(stream) == [{"marker": "[3]", "record": C}, {"marker": "[1]", "record": A}]


async def test_follow_ups_cite_earlier_sources_only_with_the_record_lookup_gives_now():
    await follow_ups(serve, post=post)


async def test_a_client_that_drops_or_edits_earlier_turns_gets_the_sessions_numbers():
    """The model reads the session: its turns as they were, whatever the client resends."""
    await resent_thread(serve, "trimmed", WHOLE_ANSWER, post=post)
    await resent_thread(serve, "edited", WHOLE_ANSWER, post=post)


async def test_earlier_turns_the_session_never_held_are_not_numbered():
    """The client puts another thread's turn first: ag-ui-adk passes over messages it did
    not process but the new question, so the model reads the session and that question."""
    await resent_thread(serve, "longer", WHOLE_ANSWER, post=post)


async def test_an_agent_that_reads_only_the_current_turn_numbers_from_it():
    """`include_contents="none"`: the model reads none of the session's earlier turns."""
    await resent_thread(serve, "longer", TRIMMED_ANSWER, post=post, contents="none")


async def test_agents_that_differ_in_what_they_read_leave_default_markers_out(caplog):
    """One agent of the tree reads the whole session, another only the current turn: which
    sources a marker counts over is not known."""
    steps: Steps = {"q1": [Call("moca_search", {"query": "a.md b.md"}), f"A [1]; per {ref(B)}."]}
    script = lambda q: [[step] for step in steps[q]]  # noqa: E731
    helper = llm_agent(script, include_contents="none")
    helper.name = "helper"
    root = llm_agent(script, moca_search, moca_get_node, sub_agents=[helper])
    app = endpoint(moca_agui.instrument(adk_agent(root)))
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(app, run_input("q1", "run-1", thread_id=new_thread_id()))
    assert cited(stream) == [{"record": B}]
    said = [r.getMessage() for r in caplog.records if "the thread was not read" in r.getMessage()]
    assert len(said) == 1 and "markers are left out" in said[0]
