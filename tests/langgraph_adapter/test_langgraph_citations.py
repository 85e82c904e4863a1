"""A real LangGraph agent behind `add_langgraph_fastapi_endpoint`, instrumented with one
line, called over HTTP: where the events go, which records they carry, under which ids."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from ag_ui.core import AssistantMessage, UserMessage
from langchain_core.messages.content import create_text_block
from langchain_core.tools import tool
from lg_chat import Call, Say, ScriptedChatModel, StreamingChatModel
from lg_reader import GET_C, NODES, SEARCH, A, B, C, mcp_shaped, moca_get_node, moca_search
from lg_service import (
    RAW_SWITCH,
    agent,
    app_for,
    normalised,
    order,
    plain_agent,
    post,
    snapshot_messages,
    text_message_ids,
)

from support import (
    PACKAGE_ID,
    assert_valid_stream,
    carried_by_snapshot,
    citation_events,
    ref,
    run_input,
    without_citations,
)


def cited(marker: str | None, rec: dict[str, Any]) -> dict[str, Any]:
    return {"marker": marker, "record": rec} if marker else {"record": rec}


def citations_by_message(stream: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    values = citation_events(stream)
    assert len({v["messageId"] for v in values}) == len(values), "one event per message"
    return {v["messageId"]: v["citations"] for v in values}


async def served(script: list[Any], tools: list[Any], *, streaming: bool = True, **options: Any):
    model = (StreamingChatModel if streaming else ScriptedChatModel)(script=script)
    stream = await post(app_for(agent(model, tools, **options)), run_input())
    assert_valid_stream(stream)
    return stream


async def test_two_answers_in_one_run_cite_their_own_nodes() -> None:
    script = [
        [SEARCH],
        [Say("Bees need water [1]."), GET_C],
        [Say(f"Feed them in winter, see {ref(C)}.")],
    ]
    stream = await served(script, [moca_search, moca_get_node])

    first, second = text_message_ids(stream)
    assert order(stream) == [
        "RUN_STARTED",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_END",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT",
        "CUSTOM:moca.citations", "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]  # fmt: skip
    assert citations_by_message(stream) == {
        first: [cited("[1]", A)],
        second: [cited(None, C)],
    }
    assert [v["messageId"] for v in citation_events(stream)] == [first, second]
    assert [m["id"] for m in snapshot_messages(stream) if m["role"] == "assistant"][-2:] == [
        first,
        second,
    ]
    # a client that keeps only the snapshot's messages has each answer's sources too
    assert carried_by_snapshot(stream) == {v["messageId"]: v for v in citation_events(stream)}
    for value in citation_events(stream):
        assert value["version"] == 1
        assert value["computedAt"].endswith("+00:00")


async def test_records_pass_through_byte_for_byte() -> None:
    stream = await served([[SEARCH], [Say("See [2] and [1].")]], [moca_search])

    (citations,) = citations_by_message(stream).values()
    assert [c["marker"] for c in citations] == ["[2]", "[1]"]
    assert [json.dumps(c["record"]) for c in citations] == [json.dumps(B), json.dumps(A)]


async def test_the_agents_own_events_are_unchanged() -> None:
    script = [[SEARCH], [Say("Bees need water [1]."), GET_C], [Say(f"See {ref(C)}.")]]
    tools = [moca_search, moca_get_node]
    instrumented = await post(app_for(agent(StreamingChatModel(script=script), tools)), run_input())
    plain = await post(app_for(plain_agent(StreamingChatModel(script=script), tools)), run_input())

    assert_valid_stream(instrumented)
    assert_valid_stream(plain)
    assert len(citation_events(instrumented)) == 2
    assert normalised(without_citations(instrumented)) == normalised(plain)


async def test_an_invented_ref_and_an_unknown_marker_are_left_out() -> None:
    invented = f"{PACKAGE_ID}@1.0.0#invented.md"
    newer = f"{PACKAGE_ID}@2.0.0#a.md"
    script = [[SEARCH], [Say(f"See {ref(A)}, {invented}, {newer} and [7].")]]
    stream = await served(script, [moca_search])

    assert list(citations_by_message(stream).values()) == [[cited(None, A)]]


async def test_a_record_from_a_tool_that_is_not_a_reader_is_not_a_source() -> None:
    @tool
    def fetch_notes(topic: str) -> dict[str, Any]:
        """Notes from elsewhere, shaped like a citation record."""
        return C

    script = [
        [SEARCH, Call("fetch_notes", {"topic": "bees"}, "call-notes")],
        [Say(f"The notes say {ref(C)} [3]; the knowledge base says [1].")],
    ]
    stream = await served(script, [moca_search, fetch_notes])

    assert list(citations_by_message(stream).values()) == [[cited("[1]", A)]]
    (notes,) = [e for e in stream if e["type"] == "TOOL_CALL_RESULT" and "c.md" in e["content"]]
    assert json.loads(notes["content"]) == C  # the client still gets the tool's answer


@pytest.mark.parametrize(
    "emit_raw_events",
    [
        True,
        pytest.param(
            False,
            marks=pytest.mark.skipif(
                not RAW_SWITCH,
                reason="this ag-ui-langgraph always sends RAW events; the newest: nox -s tests",
            ),
        ),
    ],
)
async def test_records_only_in_an_artifact_are_captured(
    emit_raw_events: bool, caplog: pytest.LogCaptureFixture
) -> None:
    @tool(response_format="content_and_artifact")
    def moca_search(query: str) -> tuple[str, dict[str, Any]]:
        """Search; the model sees a summary, the records ride in the artifact."""
        return "Found 2 nodes about bees.", {"query": query, "results": [A, B]}

    caplog.set_level(logging.INFO, logger="moca_agui")
    script = [[Call("moca_search", {"query": "bees"})], [Say(f"See [2] and {ref(A)}.")]]
    stream = await served(script, [moca_search], emit_raw_events=emit_raw_events)

    (result,) = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert result["content"] == "Found 2 nodes about bees."
    assert any(e["type"] == "RAW" for e in stream) is (emit_raw_events or not RAW_SWITCH)
    assert list(citations_by_message(stream).values()) == [[cited("[2]", B), cited(None, A)]]
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_mcp_content_blocks_and_structured_content_are_captured() -> None:
    """Tools as langchain-mcp-adapters makes them: `content_and_artifact`, the MCP text
    items as LangChain content blocks, structured content wrapped in the artifact."""

    def search(query: str) -> tuple[list[dict[str, Any]], None]:
        blocks = [{"query": query, "results": [A]}, B]  # two text items: no JSON once joined
        return [create_text_block(text=json.dumps(b, indent=2)) for b in blocks], None

    def get_node(node_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return [create_text_block(text="One node.")], {"structured_content": NODES[node_id]}

    tools = mcp_shaped(search, get_node)
    script = [
        [Call("moca_search", {"query": "bees"})],
        [GET_C],
        [Say(f"Sources: [3], [2] and {ref(A)}.")],
    ]
    stream = await served(script, tools)

    assert list(citations_by_message(stream).values()) == [
        [cited("[3]", C), cited("[2]", B), cited(None, A)]
    ]


async def test_a_reader_error_gives_no_source() -> None:
    missing = f"{PACKAGE_ID}@1.0.0#missing.md"
    script = [
        [Call("moca_get_node", {"node_id": missing})],
        [Say(f"The node {missing} [1] could not be read.")],
    ]
    stream = await served(script, [moca_get_node])

    (result,) = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert json.loads(result["content"]) == {"error": f"no node {missing}"}
    assert list(citations_by_message(stream).values()) == [[]]  # sent, and empty


async def test_a_reopened_message_gets_one_event_for_all_its_text() -> None:
    script = [
        [Say("Searching for [2]."), SEARCH, Say(f" Also {ref(A)}.")],
        [Say("That is all [1].")],
    ]
    model = StreamingChatModel(script=script)
    stream = await post(app_for(agent(model, [moca_search])), run_input())
    # LangGraph opens the first message again after its END, which ag-ui-validate's
    # grammar rejects; every other check still runs.
    assert_valid_stream(stream, grammar=False)

    first, second = text_message_ids(stream)
    assert order(stream) == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_END",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_END",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT",
        "CUSTOM:moca.citations", "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]  # fmt: skip
    starts = [e["messageId"] for e in stream if e["type"] == "TEXT_MESSAGE_START"]
    assert starts == [first, first, second]
    # "[2]" was written before the search returned anything: it names no source.
    assert citations_by_message(stream) == {
        first: [cited(None, A)],
        second: [cited("[1]", A)],
    }


async def test_a_model_that_does_not_stream_gets_events_keyed_by_the_snapshot() -> None:
    script = [[SEARCH], [Say("Looking further [1]."), GET_C], [Say(f"Done: {ref(C)} [2].")]]
    history = [
        UserMessage(id="old-question", role="user", content="Earlier question"),
        AssistantMessage(id="old-answer", role="assistant", content=f"Earlier: {ref(A)} [1]."),
    ]
    model = ScriptedChatModel(script=script)
    stream = await post(
        app_for(agent(model, [moca_search, moca_get_node])), run_input(history=history)
    )
    assert_valid_stream(stream)

    assert text_message_ids(stream) == []
    answers = [m for m in snapshot_messages(stream) if m["role"] == "assistant"]
    assert next(m["id"] for m in answers) == "old-answer"
    this_run = [m["id"] for m in answers[1:] if m.get("content")]
    assert len(this_run) == 2
    assert order(stream)[-4:] == [
        "MESSAGES_SNAPSHOT", "CUSTOM:moca.citations", "CUSTOM:moca.citations", "RUN_FINISHED"
    ]  # fmt: skip
    assert citations_by_message(stream) == {
        this_run[0]: [cited("[1]", A)],
        this_run[1]: [cited(None, C), cited("[2]", B)],
    }
    assert carried_by_snapshot(stream) == {v["messageId"]: v for v in citation_events(stream)}


async def test_answers_of_earlier_runs_in_the_thread_get_no_event() -> None:
    """The second run's input does not echo the first answer; the checkpoint has it."""
    script = [[SEARCH], [Say("Bees need water [1].")]]
    for streaming in (True, False):
        model = (StreamingChatModel if streaming else ScriptedChatModel)(script=script)
        app = app_for(agent(model, [moca_search]))
        first = await post(app, run_input(thread_id="t", run_id="r1"))
        second = await post(app, run_input("Again?", thread_id="t", run_id="r2"))
        assert_valid_stream(first)
        assert_valid_stream(second)

        (earlier,) = citations_by_message(first)
        answers = [m["id"] for m in snapshot_messages(second) if m["role"] == "assistant"]
        assert earlier in answers
        (later,) = citations_by_message(second)
        assert later != earlier
        assert answers[-1] == later


async def test_options_survive_the_clone_the_endpoint_makes_per_request() -> None:
    stream = await served([[SEARCH], [Say("See [1] and [2].")]], [moca_search], include_text=False)

    (citations,) = citations_by_message(stream).values()
    without_text = [{k: v for k, v in r.items() if k != "text"} for r in (A, B)]
    assert [c["record"] for c in citations] == without_text
