"""Markers name the nodes in the order the model issued its calls: two Reader calls in one
model response, run concurrently by ToolNode, the first one finishing last. A graph of the
user's own that keeps results in another order makes only that turn's markers unsure."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from ag_ui_langgraph import LangGraphAgent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from lg_chat import Call, Say, ScriptedChatModel, StreamingChatModel, Turn
from lg_reader import A, B, C
from lg_service import agent, app_for, post
from thread_turns import Lookup, cited, new_thread_id, next_turn

import moca_agui
from support import assert_valid_stream, citation_events, markers_left_out, ref, run_input


def reverse_finishing_reader() -> list[Any]:
    """`moca_search` (called first) returns only once `moca_get_node` has returned."""
    got_node = asyncio.Event()

    @tool
    async def moca_search(query: str, detail: str = "full") -> dict[str, Any]:
        """Search the knowledge base."""
        await got_node.wait()
        return {"query": query, "results": [A, B]}

    @tool
    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """Read one node."""
        got_node.set()
        return C

    return [moca_search, moca_get_node]


@pytest.mark.parametrize("model", [StreamingChatModel, ScriptedChatModel])
async def test_parallel_results_arriving_in_reverse_are_numbered_in_call_order(model) -> None:
    script = [
        [
            Call("moca_search", {"query": "bees"}, "call-search"),
            Call("moca_get_node", {"node_id": "c"}, "call-get"),
        ],
        [Say("Water [1], shelter [2], winter food [3].")],
    ]
    stream = await post(
        app_for(agent(model(script=script), reverse_finishing_reader())), run_input()
    )
    assert_valid_stream(stream)

    results = [e["toolCallId"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert results == ["call-get", "call-search"]  # the second call finished first
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": B},
        {"marker": "[3]", "record": C},
    ]


class ByQuestion(StreamingChatModel):
    """Plays `steps[question]`, one turn per model call after the last question."""

    steps: dict[str, list[Turn]]

    def turn(self, messages: list[BaseMessage]) -> Turn:
        asked = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        answered = sum(isinstance(m, AIMessage) for m in messages[asked:])
        return self.steps[str(messages[asked].content)][answered]


def kept_as_finished(model: ByQuestion) -> Any:
    """A graph of the user's own whose tool node keeps parallel results as they finished
    (here: the last call's first), checkpointed."""
    records = {ref(A): A, ref(B): B, ref(C): C}

    @tool
    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """Read one node."""
        return records[node_id]

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    async def run_tools(state: MessagesState) -> dict[str, Any]:
        calls = state["messages"][-1].tool_calls  # type: ignore[attr-defined]
        results = await asyncio.gather(*(moca_get_node.ainvoke(call) for call in calls))
        return {"messages": results[::-1]}

    def route(state: MessagesState) -> str:
        return "tools" if state["messages"][-1].tool_calls else END  # type: ignore[attr-defined]

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", run_tools)
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", route, ["tools", END])
    graph.add_edge("tools", "model")
    return graph.compile(checkpointer=InMemorySaver())


async def test_a_checkpointed_turn_kept_out_of_call_order_costs_only_its_own_markers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Turn 1's results are kept B, A: on turn 3, [1] could be either, so it is left out,
    logged; C, read alone in turn 2, is [3] whatever turn 1's order."""
    read = [Call("moca_get_node", {"node_id": ref(n)}, f"c-{n['node']['path']}") for n in (A, B)]
    steps = {
        "q1": [read, [Say("A [1], B [2].")]],
        "q2": [[Call("moca_get_node", {"node_id": ref(C)}, "c-c")], [Say("C [3].")]],
        "q3": [[Say("Again: C [3]; A [1].")]],
    }
    graph = kept_as_finished(ByQuestion(script=[], steps=steps))
    served = moca_agui.instrument(LangGraphAgent(name="kb", graph=graph), lookup=Lookup(A, C))
    app, thread_id = app_for(served), new_thread_id()
    for n, question in enumerate(steps, start=1):
        caplog.clear()
        stream = await post(app, next_turn([], question, f"run-{n}", thread_id=thread_id))
    assert cited(stream) == [{"marker": "[3]", "record": C}]
    assert markers_left_out(caplog) == ["[1]"]
