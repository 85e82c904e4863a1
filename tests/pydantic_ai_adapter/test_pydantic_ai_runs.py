"""Pydantic AI runs over HTTP with the one-line change: what is cited, what is left out.

Every run is a real `Agent` with an offline model, served by `AGUIAdapter.dispatch_request`
in a FastAPI app and requested over httpx's ASGI transport.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

import pytest
from ag_ui.core import CustomEvent, EventType
from pai_support import (
    A,
    B,
    C,
    Call,
    Fail,
    Reader,
    agent,
    answer_ids,
    cited,
    dispatch_app,
    empty_message_ids,
    post,
    run_both,
    scripted,
)
from pydantic_ai import ToolReturn
from pydantic_ai.models.test import TestModel
from pydantic_ai.ui.ag_ui import AGUIAdapter

import moca_agui
from support import assert_valid_stream, citation_events, ref, types

TOOL_CALL = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]
EMPTY_MESSAGE = ["TEXT_MESSAGE_START", "TEXT_MESSAGE_END"]
MESSAGE = ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]
INVENTED = "https://example.com/moca/test-kb@1.0.0#never-read.md"


async def test_two_answers_in_one_run_each_get_their_event_after_the_text_before_run_finished():
    model = scripted(
        [
            [Call("moca_search", {"query": "a.md", "detail": "full"}, "c1")],
            ["Refunds take 30 days [1]. ", Call("moca_get_node", {"node_id": ref(B)}, "c2")],
            [f"Shipping: see {ref(B)}; not {INVENTED} [7]."],
        ]
    )
    started = datetime.now(UTC)
    stream = await run_both(agent(model, *Reader(A, B).tools), "a.md")
    finished = datetime.now(UTC)

    assert types(stream) == [
        "RUN_STARTED",
        *EMPTY_MESSAGE,  # the tool-only first response: no event for it
        *TOOL_CALL,
        *MESSAGE,
        *TOOL_CALL,
        *MESSAGE,
        "CUSTOM:moca.citations",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    first, second = answer_ids(stream)
    [empty] = empty_message_ids(stream)
    assert len({first, second, empty}) == 3
    values = citation_events(stream)
    for value in values:  # when the Reader's results were captured: during this run
        assert started <= datetime.fromisoformat(value.pop("computedAt")) <= finished
    assert values == [
        {"version": 1, "messageId": first, "citations": [{"marker": "[1]", "record": A}]},
        # the invented ref and the marker [7] name nothing this run read: left out
        {"version": 1, "messageId": second, "citations": [{"record": B}]},
    ]


async def test_an_invented_ref_is_left_out_and_the_event_still_says_no_sources():
    model = scripted(
        [
            [Call("moca_get_node", {"node_id": ref(A)})],
            [f"See {INVENTED} and [2]."],
        ]
    )
    stream = await run_both(agent(model, *Reader(A).tools), "q")
    assert types(stream)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]
    [value] = citation_events(stream)
    assert value == {"version": 1, "messageId": answer_ids(stream)[0], "citations": []}


async def test_a_record_from_a_tool_that_is_not_a_reader_is_data_not_a_source():
    def fetch_page(url: str) -> dict[str, Any]:
        """Fetch a web page (it happens to look like a citation record)."""
        return C

    model = scripted(
        [
            [
                Call("fetch_page", {"url": "https://example.com"}),
                Call("moca_get_node", {"node_id": ref(A)}, "c2"),
            ],
            [f"Per {ref(C)} and {ref(A)}."],
        ]
    )
    stream = await run_both(agent(model, fetch_page, *Reader(A).tools), "q")
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": A}]


async def test_compact_search_results_are_resolved_through_lookup():
    reader = Reader(A, B)
    model = scripted(
        [
            [Call("moca_search", {"query": "a.md b.md", "detail": "compact"})],
            [f"Both [2] and {ref(A)}."],
        ]
    )
    stream = await run_both(agent(model, *reader.tools), "q", lookup=reader.get)
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[2]", "record": B}, {"record": A}]


async def test_compact_search_results_without_lookup_are_left_out_with_a_warning(caplog):
    model = scripted(
        [
            [Call("moca_search", {"query": "a.md", "detail": "compact"})],
            [f"See {ref(A)}."],
        ]
    )
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await run_both(agent(model, *Reader(A).tools), "q")
    [value] = citation_events(stream)
    assert value["citations"] == []
    assert 'detail: "full"' in caplog.text and "lookup=" in caplog.text


async def test_a_reader_error_result_gives_no_source():
    model = scripted(
        [
            [Call("moca_get_node", {"node_id": ref(C)})],  # C is not loaded: {"error": ...}
            [f"I could not read {ref(C)}."],
        ]
    )
    stream = await run_both(agent(model, *Reader(A).tools), "q")
    [value] = citation_events(stream)
    assert value["citations"] == []


async def test_a_malformed_reader_result_is_skipped_with_a_log_and_the_answer_is_whole(caplog):
    def moca_get_node(node_id: str) -> str:
        """A broken Reader: half a JSON document."""
        return '{"package": {"id": '

    model = scripted([[Call("moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]])
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await run_both(agent(model, moca_get_node), "q")
    assert citation_events(stream)[0]["citations"] == []
    assert "skipped a result of moca_get_node" in caplog.text


async def test_a_model_error_mid_run_sends_no_event_and_keeps_run_error():
    model = scripted(
        [
            [Call("moca_get_node", {"node_id": ref(A)})],
            [f"Per {ref(A)}, refunds ", Fail("upstream model went away")],
        ]
    )
    stream = await run_both(agent(model, *Reader(A).tools), "q")
    assert types(stream) == ["RUN_STARTED", *EMPTY_MESSAGE, *TOOL_CALL, *MESSAGE, "RUN_ERROR"]
    assert stream[-1]["message"] == "upstream model went away"
    assert citation_events(stream) == []


async def test_tool_return_objects_are_read_from_the_raw_value_and_metadata(caplog):
    def moca_get_node(node_id: str) -> ToolReturn:
        """A Reader tool that tells the model prose and keeps the record in metadata."""
        return ToolReturn(
            return_value="Found: refunds take 30 days.", metadata={"moca_citation": A}
        )

    def moca_structure(op: str, iri: str) -> ToolReturn:
        """A Reader tool returning a ToolReturn around a structure result."""
        return ToolReturn(return_value={"op": op, "iri": iri, "result": [B]})

    model = scripted(
        [
            [
                Call("moca_get_node", {"node_id": ref(A)}),
                Call("moca_structure", {"op": "nodes", "iri": "urn:x:refunds"}, "c2"),
            ],
            [f"{ref(B)} and {ref(A)}."],
        ]
    )
    with caplog.at_level(logging.DEBUG, logger="moca_agui"):
        stream = await run_both(agent(model, moca_get_node, moca_structure), "q")
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": B}, {"record": A}]
    # The prose in TOOL_CALL_RESULT is never parsed as a Reader result.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_test_model_calling_a_reader_tool_then_answering():
    def moca_get_node(node_id: str) -> dict[str, Any]:
        """Any node id: the record of a.md."""
        return A

    model = TestModel(call_tools=["moca_get_node"], custom_output_text=f"Refunds: {ref(A)}.")
    stream = await run_both(agent(model, moca_get_node), "q")
    chunks = types(stream).count("TEXT_MESSAGE_CONTENT")
    assert chunks >= 1
    assert types(stream) == [
        "RUN_STARTED",
        *EMPTY_MESSAGE,
        *TOOL_CALL,
        "TEXT_MESSAGE_START",
        *["TEXT_MESSAGE_CONTENT"] * chunks,
        "TEXT_MESSAGE_END",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"record": A}]


async def test_include_text_false_drops_only_text():
    model = scripted([[Call("moca_get_node", {"node_id": ref(A)})], [f"{ref(A)}"]])
    stream = await run_both(agent(model, *Reader(A).tools), "q", include_text=False)
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": {k: v for k, v in A.items() if k != "text"}}]


async def test_two_concurrent_requests_on_one_app_never_see_each_others_records():
    arrived = asyncio.Barrier(2)  # both runs are inside their tool call at the same time
    reader = Reader(A, B)

    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's record, once the other run has called too."""
        async with asyncio.timeout(10):
            await arrived.wait()
        return reader.moca_get_node(node_id)

    def script(question: str) -> list[list[Any]]:
        mine = A if question == "a.md" else B
        return [
            [Call("moca_get_node", {"node_id": ref(mine)})],
            [f"Mine is {ref(mine)}; the other run read {ref(B if mine is A else A)} [2]."],
        ]

    app = cited(agent(scripted(script), moca_get_node))
    first, second = await asyncio.gather(post(app, "a.md", "run-a"), post(app, "b.md", "run-b"))
    for stream, mine in ((first, A), (second, B)):
        assert_valid_stream(stream)
        [value] = citation_events(stream)
        assert value["messageId"] == answer_ids(stream)[0]
        assert value["citations"] == [{"record": mine}]


@pytest.mark.parametrize("kind", ["async generator", "plain function"])
async def test_the_users_on_complete_still_runs_and_its_events_come_first(kind):
    results: list[str] = []
    if kind == "async generator":

        async def on_complete(result: Any) -> Any:
            results.append(result.output)
            yield CustomEvent(type=EventType.CUSTOM, name="app.saved", value={"ok": True})

    else:

        def on_complete(result: Any) -> None:
            results.append(result.output)

    model = scripted([[Call("moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]])
    the_agent = agent(model, *Reader(A).tools)
    adapter = moca_agui.instrument(AGUIAdapter)
    stream = await post(dispatch_app(adapter, the_agent, on_complete=on_complete), "q")
    assert_valid_stream(stream)
    assert results == [f"See {ref(A)}."]
    mine = ["CUSTOM:app.saved"] if kind == "async generator" else []
    assert types(stream)[-3 - len(mine) :] == [
        "TEXT_MESSAGE_END",
        *mine,
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    assert citation_events(stream)[0]["citations"] == [{"record": A}]
