"""A real `StrandsAgent` served by `add_strands_fastapi_endpoint`, over HTTP, with a
scripted offline model: what its `moca.citations` events hold, where they go, and what
they leave out."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from ag_ui_strands import StrandsAgent, StrandsAgentConfig
from strands import Agent, tool
from strands.hooks import AfterToolCallEvent, HookProvider, HookRegistry
from strands.multiagent import GraphBuilder
from strands_support import (
    A,
    B,
    C,
    Call,
    Cite,
    ScriptedModel,
    answer_ids,
    kinds,
    last_snapshot_ids,
    reader_tools,
    run_both,
    strands_agent,
)

from support import citation_events, ref

TOOL_CALL = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
TEXT = ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]


async def test_one_search_then_an_answer_gives_one_event_before_run_finished() -> None:
    script = [
        [Call("moca_search", {"query": "a.md b.md"})],
        [f"Refunds take 14 days [1]; shipping is free ({ref(B)}).", Cite("Bedrock doc")],
    ]
    stream = await run_both(
        lambda: strands_agent(ScriptedModel(script), reader_tools(A, B, C)), "q"
    )
    assert kinds(stream) == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        *TOOL_CALL,
        "MESSAGES_SNAPSHOT",
        "TOOL_CALL_RESULT",
        "MESSAGES_SNAPSHOT",
        *TEXT,
        "MESSAGES_SNAPSHOT",
        "STATE_SNAPSHOT",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}, {"record": B}]
    # The id the client shows: the streamed message's, which the last snapshot keeps.
    assert value["messageId"] == answer_ids(stream)[0] == last_snapshot_ids(stream)[0]
    # Strands' own model citations ride on TEXT_MESSAGE_END, untouched (run_both compared
    # every event with the plain agent's).
    [end] = [e for e in stream if e["type"] == "TEXT_MESSAGE_END"]
    assert [c["title"] for c in end["metadata"]["citations"]] == ["Bedrock doc"]


async def test_text_before_the_tool_call_is_a_message_of_its_own_with_its_own_event() -> None:
    script = [["Let me look that up.", Call("moca_get_node", {"node_id": ref(A)})], [f"{ref(A)}"]]
    stream = await run_both(lambda: strands_agent(ScriptedModel(script), reader_tools(A)), "q")
    first, second = citation_events(stream)
    assert [first["messageId"], second["messageId"]] == answer_ids(stream)
    assert answer_ids(stream) == last_snapshot_ids(stream)
    assert first["citations"] == []  # written before anything was read
    assert second["citations"] == [{"record": A}]


async def test_invented_and_unreturned_refs_and_markers_are_left_out() -> None:
    never = "https://example.com/moca/test-kb@1.0.0#never-returned.md"
    script = [
        [Call("moca_get_node", {"node_id": ref(A)})],
        [f"See [1], [2] and {never}; also {ref(B)} and [7]."],
    ]
    stream = await run_both(lambda: strands_agent(ScriptedModel(script), reader_tools(A, B)), "q")
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_a_record_from_a_tool_that_is_not_a_reader_is_data_not_a_source() -> None:
    @tool
    def lookup_order(order_id: str) -> dict[str, Any]:
        """An order, which happens to look like a citation record."""
        return B

    script = [
        [
            Call("lookup_order", {"order_id": "1"}, "c1"),
            Call("moca_get_node", {"node_id": ref(A)}, "c2"),
        ],
        [f"Order: {ref(B)}; policy: {ref(A)}."],
    ]
    tools = [lookup_order, *reader_tools(A)]
    stream = await run_both(lambda: strands_agent(ScriptedModel(script), tools), "q")
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": A}]


async def test_a_named_reader_tool_counts_once_its_name_is_given() -> None:
    @tool
    def kb_lookup(node_id: str) -> dict[str, Any]:
        """The knowledge base's Reader, under another name."""
        return A

    script = [[Call("kb_lookup", {"node_id": ref(A)})], [f"See {ref(A)}."]]
    stream = await run_both(
        lambda: strands_agent(ScriptedModel(script), [kb_lookup]), "q", reader_tools=["kb_lookup"]
    )
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": A}]


async def test_failed_reader_calls_give_no_source() -> None:
    @tool
    def moca_get_node(node_id: str) -> dict[str, Any]:
        """Fails, after reading the record."""
        raise RuntimeError(json.dumps(A))

    @tool
    def moca_search(query: str) -> dict[str, Any]:
        """Answers in Strands' own result format, with an error status."""
        return {"status": "error", "content": [{"text": json.dumps(B)}]}

    script = [
        [
            Call("moca_get_node", {"node_id": ref(A)}, "c1"),
            Call("moca_search", {"query": "b"}, "c2"),
        ],
        [f"Nothing at {ref(A)} or {ref(B)} [1] [2]."],
    ]
    stream = await run_both(
        lambda: strands_agent(ScriptedModel(script), [moca_get_node, moca_search]), "q"
    )
    [value] = citation_events(stream)
    assert value["citations"] == []


async def test_a_result_is_read_as_the_model_is_sent_it_not_as_ag_ui_strands_repairs_it() -> None:
    @tool
    def moca_get_node(node_id: str) -> str:
        """Not JSON: single quotes. ag-ui-strands swaps them and sends a record on."""
        return json.dumps(A).replace('"', "'")

    @tool
    def moca_search(query: str) -> dict[str, Any]:
        """A JSON content block, in Strands' own result format."""
        return {"status": "success", "content": [{"json": {"query": query, "results": [B]}}]}

    script = [
        [
            Call("moca_get_node", {"node_id": ref(A)}, "c1"),
            Call("moca_search", {"query": "b"}, "c2"),
        ],
        [f"{ref(A)} and {ref(B)}."],
    ]
    stream = await run_both(
        lambda: strands_agent(ScriptedModel(script), [moca_get_node, moca_search]), "q"
    )
    results = {e["toolCallId"]: e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"}
    assert json.loads(results["c1"]) == A  # what the client is sent, not what the model saw
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": B}]


def out_of_order_reader() -> list[Any]:
    """`moca_get_node`, whose call for A finishes only after the call for B."""
    other_done = asyncio.Event()

    @tool
    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's record; the call for A waits for the call for B to finish."""
        if node_id == ref(A):
            await asyncio.wait_for(other_done.wait(), 10)
            return A
        other_done.set()
        return B

    return [moca_get_node]


async def test_two_reader_calls_in_one_response_are_numbered_in_call_order() -> None:
    calls = [Call("moca_get_node", {"node_id": ref(x)}, f"c{n}") for n, x in ((1, A), (2, B))]
    script = [calls, ["First [1], then [2]."]]
    stream = await run_both(
        lambda: strands_agent(ScriptedModel(script), out_of_order_reader()), "q"
    )
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]


@pytest.mark.parametrize("include_text", [True, False])
async def test_options_reach_the_event(include_text: bool) -> None:
    script = [[Call("moca_get_node", {"node_id": ref(A)})], [f"{ref(A)}"]]
    stream = await run_both(
        lambda: strands_agent(ScriptedModel(script), reader_tools(A)),
        "q",
        include_text=include_text,
    )
    [value] = citation_events(stream)
    expected = A if include_text else {k: v for k, v in A.items() if k != "text"}
    assert value["citations"] == [{"record": expected}]


class Rewriter(HookProvider):
    """An application's hook: retries each tool call once, then sends the model B instead."""

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(AfterToolCallEvent, self.after)

    def after(self, event: AfterToolCallEvent) -> None:
        if not event.invocation_state.setdefault("retried", False):
            event.invocation_state["retried"] = event.retry = True
        else:
            event.result = {**event.result, "content": [{"text": json.dumps(B)}]}


async def test_the_result_the_model_is_sent_counts_after_the_applications_hooks() -> None:
    script = [[Call("moca_get_node", {"node_id": ref(A)})], [f"{ref(A)} or {ref(B)}?"]]

    def make() -> StrandsAgent:
        return StrandsAgent(
            agent=Agent(model=ScriptedModel(script), tools=reader_tools(A), callback_handler=None),
            name="support",
            hooks=[Rewriter()],
        )

    stream = await run_both(make, "q")
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": B}]  # A was discarded for a retry, then replaced


async def test_hooks_from_thread_agent_kwargs_keep_the_reader_hook() -> None:
    script = [[Call("moca_get_node", {"node_id": ref(A)})], [f"{ref(A)} or {ref(B)}?"]]

    def make() -> StrandsAgent:
        config = StrandsAgentConfig(thread_agent_kwargs=lambda input_data: {"hooks": [Rewriter()]})
        return StrandsAgent(
            agent=Agent(model=ScriptedModel(script), tools=reader_tools(A), callback_handler=None),
            name="support",
            config=config,
        )

    stream = await run_both(make, "q")
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": B}]


async def test_a_graph_orchestrator_streams_no_tool_calls_so_its_answer_cites_nothing() -> None:
    script = [[Call("moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]]

    def graph() -> Any:
        builder = GraphBuilder()
        builder.add_node(
            Agent(model=ScriptedModel(script), tools=reader_tools(A), callback_handler=None),
            "reader",
        )
        builder.set_max_node_executions(3)
        return builder.build()

    stream = await run_both(lambda: StrandsAgent(agent=graph, name="graph"), "q")
    assert "TOOL_CALL_START" not in kinds(stream)
    [value] = citation_events(stream)
    assert value["citations"] == []
