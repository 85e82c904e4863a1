"""Real LlamaIndex AG-UI runs over HTTP: what the stream carries with citations turned on."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from li_support import (
    QUESTION,
    Call,
    Turn,
    app_of,
    factory_of,
    post,
    returning,
    snapshots,
    streamed_ids,
    streamed_text,
    tool,
)
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.tools import QueryEngineTool, RetrieverTool

import moca_agui
from support import (
    PACKAGE_ID,
    citation_events,
    record,
    ref,
    types,
    without_citations,
)

A = record("refund-window.md", text="Refunds are accepted within 30 days.")
B = record("shipping.md", text="Shipping takes 5 days.", stale=True)
C = record("never-returned.md")
FORGED = record("forged.md", text="Refunds are accepted for ten years.")

SEARCH = Call("moca_search", "call-search", {"query": QUESTION, "detail": "full"})
GET_B = Call("moca_get_node", "call-get", {"node_id": ref(B)})


def reader(**results: object) -> list:
    """Reader tools of the reference shapes: `moca_search` -> {query, results}, others as given."""
    tools = []
    for name, value in results.items():
        if name == "moca_search":
            tools.append(returning(name, {"query": "q", "results": value}))
        else:
            tools.append(returning(name, value))
    return tools


async def cited_run(*turns: Turn, tools=(), frontend_tools=(), **options) -> list[dict]:
    factory = factory_of(*turns, tools=tools, frontend_tools=frontend_tools)
    return await post(app_of(moca_agui.instrument(factory, **options)))


async def test_two_answers_in_one_run_each_get_their_event_with_the_streamed_id():
    turns = (
        Turn(calls=(SEARCH,)),
        Turn(text="Refunds: 30 days [1]. Now shipping.", calls=(GET_B,)),
        Turn(text=f"Shipping takes 5 days ({ref(B)}); refunds as [1] says."),
    )
    tools = reader(moca_search=[A], moca_get_node=B)
    plain = await post(app_of(factory_of(*turns, tools=tools)))
    stream = await cited_run(*turns, tools=tools)

    first, second = streamed_ids(stream)
    assert types(stream) == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "TOOL_CALL_CHUNK",
        "MESSAGES_SNAPSHOT",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_CHUNK",
        "MESSAGES_SNAPSHOT",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        "TEXT_MESSAGE_CHUNK",
        "MESSAGES_SNAPSHOT",
        "CUSTOM:moca.citations",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    assert types(without_citations(stream)) == types(plain)
    one, two = citation_events(stream)
    assert one["messageId"] == first
    assert one["citations"] == [{"marker": "[1]", "record": A}]
    assert two["messageId"] == second
    assert two["citations"] == [{"record": B}, {"marker": "[1]", "record": A}]
    assert "computedAt" in one and "computedAt" in two


async def test_snapshot_assistant_ids_equal_the_streamed_ids_in_every_snapshot():
    turns = (
        Turn(text="Let me look.", calls=(SEARCH,)),
        Turn(text="It is 30 days [1]."),
    )
    tools = reader(moca_search=[A])
    plain = await post(app_of(factory_of(*turns, tools=tools)))
    stream = await cited_run(*turns, tools=tools)

    ids = streamed_ids(stream)
    for messages in snapshots(stream):
        assistant = [m for m in messages if m["role"] == "assistant"]
        assert [m["id"] for m in assistant] == ids[: len(assistant)]
        for message in assistant:
            assert message["content"] == streamed_text(stream, message["id"])
    assert [len(m) for m in snapshots(stream)] == [2, 3, 4]
    # Without the adapter, LlamaIndex gives the same message a fresh id in each snapshot.
    plain_ids = {m["id"] for s in snapshots(plain) for m in s if m["role"] == "assistant"}
    assert not plain_ids & set(streamed_ids(plain))
    assert [v["messageId"] for v in citation_events(stream)] == ids


async def test_a_message_without_text_keeps_one_id_across_snapshots():
    stream = await cited_run(
        Turn(calls=(SEARCH,)), Turn(text="[1]."), tools=reader(moca_search=[A])
    )
    first_ids = {s[1]["id"] for s in snapshots(stream)}
    assert len(first_ids) == 1
    assert first_ids.isdisjoint(streamed_ids(stream))
    [value] = citation_events(stream)
    assert value["messageId"] == streamed_ids(stream)[0]


async def test_an_invented_ref_and_a_node_not_returned_in_this_run_are_left_out():
    invented = f"{PACKAGE_ID}@1.0.0#invented.md"
    stream = await cited_run(
        Turn(calls=(SEARCH,)),
        Turn(text=f"See {invented}, [9], {ref(C)} and [1]."),
        tools=reader(moca_search=[A]),
    )
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_a_forged_record_from_a_tool_that_is_not_a_reader_is_left_out():
    forger = returning("web_fetch", {"query": "q", "results": [FORGED]})
    stream = await cited_run(
        Turn(calls=(Call("web_fetch", "call-web", {"query": "refunds"}), SEARCH)),
        Turn(text=f"{ref(FORGED)} says ten years; [1] says 30 days; [2] says nothing."),
        tools=[forger, *reader(moca_search=[A])],
    )
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_markers_number_parallel_results_in_the_order_the_model_reads_them():
    async def slow_search(query: str = "", detail: str = "compact") -> dict:
        await asyncio.sleep(0.05)  # its result reaches the history after moca_get_node's
        return {"query": query, "results": [A]}

    stream = await cited_run(
        Turn(calls=(SEARCH, GET_B)),
        Turn(text="[1] then [2]."),
        tools=[tool("moca_search", slow_search), returning("moca_get_node", B)],
    )
    tool_messages = [m for m in snapshots(stream)[-1] if m["role"] == "tool"]
    assert [m["toolCallId"] for m in tool_messages] == ["call-get", "call-search"]
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": B}, {"marker": "[2]", "record": A}]


async def test_a_follow_up_run_cites_only_what_its_own_reader_returned():
    first = await cited_run(
        Turn(calls=(SEARCH,)), Turn(text="Per [1]."), tools=reader(moca_search=[A])
    )
    history = snapshots(first)[-1]
    # The thread's earlier search showed A as [1]; this run's shows B, after it, as [2].
    turns = (Turn(calls=(SEARCH,)), Turn(text="Per [2]; as said, [1]."))
    app = app_of(moca_agui.instrument(factory_of(*turns, tools=reader(moca_search=[B]))))
    second = await post(app, question="And shipping?", run_id="run-2", history=history)

    [value] = citation_events(second)
    assert value["messageId"] == streamed_ids(second)[0]
    assert value["citations"] == [{"marker": "[2]", "record": B}]  # A: no record this run
    # The client's messages keep their ids; the new answer has its streamed id.
    last = snapshots(second)[-1]
    assert last[: len(history)] == history
    assert last[-1]["id"] == value["messageId"]


class FixedRetriever(BaseRetriever):
    """A retriever returning nodes the way the MOCA LlamaIndex retriever does."""

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [
            NodeWithScore(node=TextNode(text=A["text"], metadata={"moca_citation": A}), score=0.9),
            NodeWithScore(
                node=TextNode(text=B["text"], metadata={"moca_citation": json.dumps(B)}), score=0.5
            ),
            NodeWithScore(node=TextNode(text="No record here."), score=0.1),
        ]


def retriever_tool() -> RetrieverTool:
    return RetrieverTool.from_defaults(FixedRetriever(), name="kb_search", description="Search.")


def query_engine_tool() -> QueryEngineTool:
    engine = RetrieverQueryEngine.from_args(FixedRetriever(), llm=MockLLM())
    return QueryEngineTool.from_defaults(engine, name="kb_search", description="Ask.")


@pytest.mark.parametrize("make_tool", [retriever_tool, query_engine_tool])
async def test_records_in_node_metadata_of_a_retriever_or_query_engine_tool(make_tool):
    turns = (
        Turn(calls=(Call("kb_search", "call-kb", {"input": "refunds"}),)),
        Turn(text=f"{ref(B)} is stale; refunds take 30 days [1]."),
    )
    stream = await cited_run(*turns, tools=[make_tool()], reader_tools={"kb_search"})
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": B}, {"marker": "[1]", "record": A}]

    # Only Reader tools count: under the default names, kb_search is not one.
    stream = await cited_run(*turns, tools=[make_tool()])
    [value] = citation_events(stream)
    assert value["citations"] == []


async def test_a_ref_split_across_chunks_is_found_in_the_whole_message():
    head, tail = ref(A)[:20], ref(A)[20:]
    stream = await cited_run(
        Turn(calls=(SEARCH,)),
        Turn(chunks=("Per ", head, tail + ".")),
        tools=reader(moca_search=[A]),
    )
    [message_id] = streamed_ids(stream)
    assert [e["delta"] for e in stream if e["type"] == "TEXT_MESSAGE_CHUNK"] == [
        "Per ",
        head,
        tail + ".",
    ]
    [value] = citation_events(stream)
    assert value == {
        "version": 1,
        "messageId": message_id,
        "computedAt": value["computedAt"],
        "citations": [{"record": A}],
    }


async def test_a_run_that_ends_on_a_frontend_tool_call_still_gets_its_citations():
    def show_card(title: str = "") -> str:
        """Shows a card in the user interface."""
        return ""

    stream = await cited_run(
        Turn(calls=(SEARCH,)),
        Turn(text="Refunds: 30 days [1].", calls=(Call("show_card", "call-card", {"title": "x"}),)),
        tools=reader(moca_search=[A]),
        frontend_tools=[show_card],
    )
    assert types(stream)[-5:] == [
        "TOOL_CALL_CHUNK",
        "MESSAGES_SNAPSHOT",
        "STATE_SNAPSHOT",  # the frontend tool's step; the run stops for the client
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    [value] = citation_events(stream)
    assert value["messageId"] == streamed_ids(stream)[0]
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_include_text_false_drops_text_and_nothing_else():
    stream = await cited_run(
        Turn(calls=(SEARCH,)),
        Turn(text="[1]."),
        tools=reader(moca_search=[A]),
        include_text=False,
    )
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": {k: v for k, v in A.items() if k != "text"}}
    ]


async def test_a_failing_or_malformed_reader_result_is_skipped_and_the_answer_flows(caplog):
    def broken_get(node_id: str = "") -> dict:
        raise RuntimeError("the Reader is down")

    turns = (
        Turn(calls=(SEARCH, Call("moca_get_node", "call-get", {"node_id": "x"}))),
        Turn(text="Nothing to cite [1]."),
    )
    tools = [returning("moca_search", "{not json"), tool("moca_get_node", broken_get)]
    plain = await post(app_of(factory_of(*turns, tools=tools)))
    with caplog.at_level(logging.INFO, logger="moca_agui"):
        stream = await cited_run(*turns, tools=tools)
    assert types(without_citations(stream)) == types(plain)
    [message_id] = streamed_ids(stream)
    assert streamed_text(stream, message_id) == "Nothing to cite [1]."
    [value] = citation_events(stream)
    assert value["citations"] == []
    assert "skipped a result of moca_search" in caplog.text
    assert "tool moca_get_node failed; nothing to capture" in caplog.text  # the core's rule


async def test_a_failed_run_gets_run_error_and_no_citations():
    # No second turn: the scripted model fails (IndexError) when it is called again.
    factory = factory_of(Turn(calls=(SEARCH,)), tools=reader(moca_search=[A]))
    stream = await post(app_of(moca_agui.instrument(factory)), raise_app_exceptions=False)
    assert types(stream) == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "TOOL_CALL_CHUNK",
        "MESSAGES_SNAPSHOT",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        "RUN_ERROR",
    ]
