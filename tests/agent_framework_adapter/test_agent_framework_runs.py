"""Microsoft Agent Framework runs over HTTP with the one-line change: what is cited, where,
and what is left out.

Every run is a real `Agent` with an offline chat client of the framework's own kind,
wrapped in `AgentFrameworkAgent`, served by `add_agent_framework_fastapi_endpoint` and
requested over httpx's ASGI transport.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from af_support import (
    INVENTED,
    A,
    B,
    C,
    Reader,
    answer_ids,
    app_for,
    assert_passes_every_check,
    call,
    chat_agent,
    cited,
    events_of,
    post,
    post_raw,
    run_both,
    say,
    scripted,
    snapshot_answers,
)
from agent_framework import Annotation, Content, tool
from agent_framework_ag_ui import AgentFrameworkAgent, state_update

from support import citation_events, example_record, ref, types

TOOL_CALL = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]
# The framework opens a message for a tool-only response and ends it after its result.
TOOL_ONLY = ["TEXT_MESSAGE_START", *TOOL_CALL, "TEXT_MESSAGE_END"]
ANSWER = ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]


async def test_one_answer_gets_one_event_after_its_text_before_run_finished():
    model = scripted(
        [
            [call("moca_search", query="a.md b.md")],
            [say(f"Refunds take 30 days [1]; shipping: {ref(B)}.")],
        ]
    )
    stream = await run_both(chat_agent(model, *Reader(A, B).tools), "q")
    assert types(stream) == [
        "RUN_STARTED",
        *TOOL_ONLY,
        *ANSWER,
        "MESSAGES_SNAPSHOT",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    [answer] = answer_ids(stream)
    [value] = citation_events(stream)
    assert value["messageId"] == answer
    assert answer in snapshot_answers(stream)  # the id the client shows after the snapshot
    assert value["citations"] == [{"marker": "[1]", "record": A}, {"record": B}]


async def test_records_are_byte_identical_to_the_readers_json():
    original = example_record()
    reader_json = json.dumps({"query": "q", "results": [original]})

    @tool(name="moca_search")
    def search(query: str) -> str:
        """Search (answers the Reader's JSON text)."""
        return reader_json

    model = scripted([[call("moca_search", query="q")], [say(f"See {ref(original)}.")]])
    body = await post_raw(cited(chat_agent(model, search)), "q")
    assert_passes_every_check(events_of(body))
    [value] = citation_events(events_of(body))
    assert value["citations"] == [{"record": original}]
    sent = json.dumps(original, ensure_ascii=False, separators=(",", ":"))
    assert '"record":' + sent + "}" in body  # as the Reader wrote it, key for key


async def test_invented_and_unreturned_refs_are_left_out_and_the_event_says_no_sources():
    model = scripted(
        [
            [call("moca_get_node", node_id=ref(A))],
            [say(f"See {INVENTED}, {ref(C)} (never read) and [2].")],
        ]
    )
    stream = await run_both(chat_agent(model, *Reader(A, C).tools), "q")
    [value] = citation_events(stream)
    assert value["citations"] == []


async def test_a_record_from_a_tool_that_is_not_a_reader_is_data_not_a_source():
    @tool
    def fetch_page(url: str) -> dict[str, Any]:
        """Fetch a web page (it happens to look like a citation record)."""
        return C

    model = scripted(
        [
            [
                call("fetch_page", url="https://example.com"),
                call("moca_get_node", "c2", node_id=ref(A)),
            ],
            [say(f"Per {ref(C)} and {ref(A)} [1].")],
        ]
    )
    stream = await run_both(chat_agent(model, fetch_page, *Reader(A).tools), "q")
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": A, "marker": "[1]"}]


async def test_two_reader_calls_in_one_response_are_numbered_in_call_order():
    """The second call's tool answers first; [1] is still the first call's node."""
    first_may_answer = asyncio.Event()

    @tool(name="moca_get_node")
    async def get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record."""
        if node_id == ref(B):
            await first_may_answer.wait()
        else:
            first_may_answer.set()
        return {ref(A): A, ref(B): B}[node_id]

    model = scripted(
        [
            [
                call("moca_get_node", "c1", node_id=ref(B)),
                call("moca_get_node", "c2", node_id=ref(A)),
            ],
            [say("Shipping [1], refunds [2].")],
        ]
    )
    stream = await post(cited(chat_agent(model, get_node)), "q")
    assert_passes_every_check(stream)
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": B}, {"marker": "[2]", "record": A}]


async def test_a_failed_call_gives_no_source_and_its_retry_does():
    calls: list[str] = []

    @tool(name="moca_get_node")
    def get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record."""
        calls.append(node_id)
        if len(calls) % 2:  # the first call of each run (run_both runs twice)
            raise RuntimeError("the Reader is restarting")
        return A

    model = scripted(
        [
            [call("moca_get_node", "c1", node_id=ref(A))],
            [call("moca_get_node", "c2", node_id=ref(A))],  # the model retries
            [say(f"Refunds [1] ({ref(A)}).")],
        ]
    )
    stream = await run_both(chat_agent(model, get_node), "q")
    results = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert [r["toolCallId"] for r in results] == ["c1", "c2"]
    assert results[0]["content"].startswith("Error")
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_a_reader_error_result_gives_no_source():
    model = scripted(
        [[call("moca_get_node", node_id=ref(C))], [say(f"I could not read {ref(C)} [1].")]]
    )
    stream = await run_both(chat_agent(model, *Reader(A).tools), "q")
    [value] = citation_events(stream)
    assert value["citations"] == []


async def test_records_come_from_the_tools_own_result_not_its_ui_display_payload():
    @tool(name="moca_search")
    def search(query: str) -> Content:
        """Search, with a card for the UI in TOOL_CALL_RESULT."""
        found = {"query": query, "results": [A]}
        return state_update(text=json.dumps(found), tool_result={"card": "1 source found"})

    model = scripted([[call("moca_search", query="a.md")], [say("Refunds [1].")]])
    stream = await run_both(chat_agent(model, search), "q")
    [result] = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert json.loads(result["content"]) == {"card": "1 source found"}  # no record on the wire
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_text_and_tool_calls_in_one_response_are_cited_where_the_client_shows_them():
    model = scripted(
        [
            [call("moca_get_node", "c1", node_id=ref(A))],
            [say("Refunds take 30 days [1]. "), call("moca_get_node", "c2", node_id=ref(B))],
            [say(f"Shipping: see {ref(B)}.")],
        ]
    )
    stream = await run_both(chat_agent(model, *Reader(A, B).tools), "q")
    first, second = answer_ids(stream)
    shown = snapshot_answers(stream)
    expected = [
        {"version": 1, "messageId": first, "citations": [{"marker": "[1]", "record": A}]},
        {"version": 1, "messageId": second, "citations": [{"record": B}]},
    ]
    if first not in shown:  # 1.0 drops the first answer from the snapshot: not cited
        expected = expected[1:]
    values = citation_events(stream)
    for value in values:
        del value["computedAt"]
    assert values == expected
    assert all(value["messageId"] in shown for value in values)
    assert types(stream)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]


async def test_a_failing_model_ends_in_run_error_with_no_citation_after_it():
    def fails() -> list[Content]:
        raise RuntimeError("the model connection dropped")

    model = scripted([[call("moca_get_node", node_id=ref(A))], fails])
    stream = await post(cited(chat_agent(model, *Reader(A).tools)), "q")
    assert_passes_every_check(stream)
    assert "RUN_ERROR" in types(stream)
    assert types(stream)[types(stream).index("RUN_ERROR") :] == ["RUN_ERROR"]
    assert citation_events(stream) == []
    plain = await post(app_for(AgentFrameworkAgent(agent=chat_agent(model, *Reader(A).tools))), "q")
    assert types(stream) == types(plain)


async def test_the_frameworks_own_annotations_event_passes_through_untouched():
    url = Annotation(type="citation", url="https://example.com/refunds", title="Refunds")
    model = scripted(
        [
            [call("moca_get_node", node_id=ref(A))],
            [Content.from_text("Refunds [1].", annotations=[url])],
        ]
    )
    agent = chat_agent(model, *Reader(A).tools)
    plain = await post(app_for(AgentFrameworkAgent(agent=agent)), "q")
    if "CUSTOM:annotations" not in types(plain):
        pytest.skip(
            "this agent-framework-ag-ui sends no annotations event; the newest does: "
            "nox -s tests-agent-framework(newest)"
        )
    stream = await run_both(agent, "q")
    [theirs] = [e for e in stream if e["type"] == "CUSTOM" and e["name"] == "annotations"]
    [plain_theirs] = [e for e in plain if e["type"] == "CUSTOM" and e["name"] == "annotations"]
    assert theirs["value"]["annotations"] == plain_theirs["value"]["annotations"]
    assert theirs["value"]["messageId"] == answer_ids(stream)[0]
    assert types(stream).index("CUSTOM:annotations") < types(stream).index("CUSTOM:moca.citations")
