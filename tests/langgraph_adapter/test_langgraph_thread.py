"""LangGraph over turns of one thread: as @ag-ui/client sends them (the whole thread each
run, from the previous run's MESSAGES_SNAPSHOT), and as a client that sends only its new
messages to a checkpointed graph (the model reads the checkpoint's thread). Numbered tools
count on, an earlier source is cited only with the record `lookup` gives now, a forged
record the client sends back is never sent, and a source read again keeps its number."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import tool
from lg_chat import Call, Say, StreamingChatModel, Turn
from lg_service import agent, app_for, post
from thread_turns import (
    A_NOW,
    B_NOW,
    FORGED_TITLE,
    A,
    B,
    C,
    Lookup,
    after_run,
    cited,
    next_turn,
    shown_markers,
    tampered,
)

import moca_agui
from support import assert_valid_stream, ref, run_input

NODES = {ref(r): r for r in (A, B, C)}


@tool
def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return {"query": query, "results": [r for r in NODES.values() if r["node"]["path"] in query]}


@tool
def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return NODES.get(node_id) or {"error": f"no node {node_id}"}


class ThreadModel(StreamingChatModel):
    """Answers the thread's last question with its steps (one model call each)."""

    steps: dict[str, list[Turn]]

    def turn(self, messages: list[BaseMessage]) -> Turn:
        asked = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        answered = sum(isinstance(m, AIMessage) for m in messages[asked:])
        return self.steps[str(messages[asked].content)][answered]


def served(steps: dict[str, list[Turn]], *, numbered: bool = False, **options: Any) -> Any:
    model = ThreadModel(script=[], steps=steps)
    tools = [moca_search, moca_get_node]
    return app_for(agent(model, moca_agui.numbered(tools) if numbered else tools, **options))


async def turn(app: Any, body: dict[str, Any]) -> list[dict[str, Any]]:
    stream = await post(app, body)
    assert_valid_stream(stream)
    return stream


READ_A_AND_B = [[Call("moca_search", {"query": "a.md b.md"}, "t1-call")], [Say("A [1]; B [2].")]]
NUMBERED = {
    "q1": READ_A_AND_B,
    "q2": [[Call("moca_search", {"query": "c.md a.md"}, "t2-call")], [Say("C [3]; A [1] again.")]],
    "q3": [[Call("moca_get_node", {"node_id": ref(B)}, "t3-call")], [Say("B [2]; C [3].")]],
}


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    app = served(NUMBERED, numbered=True, lookup=Lookup(C))
    first = run_input("q1", "run-1")
    stream1 = await turn(app, first)
    assert shown_markers(stream1) == [["[1]", "[2]"]]
    assert cited(stream1) == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]

    second = next_turn(after_run(first["messages"], stream1), "q2", "run-2")
    stream2 = await turn(app, second)
    assert shown_markers(stream2) == [["[1]", "[3]"]]  # A (read again) and C
    assert cited(stream2) == [{"marker": "[3]", "record": C}, {"marker": "[1]", "record": A}]

    third = next_turn(after_run(second["messages"], stream2), "q3", "run-3")
    stream3 = await turn(app, third)
    assert shown_markers(stream3) == [["[2]"]]
    assert cited(stream3) == [{"marker": "[2]", "record": B}, {"marker": "[3]", "record": C}]


async def test_a_client_that_sends_only_new_messages_gets_the_checkpointed_threads_numbers():
    """The checkpointer holds the thread; each run's input is the new question alone."""
    app = served(NUMBERED, numbered=True, lookup=Lookup(C))
    await turn(app, run_input("q1", "run-1"))
    stream2 = await turn(app, run_input("q2", "run-2"))
    assert shown_markers(stream2) == [["[1]", "[3]"]]
    assert cited(stream2) == [{"marker": "[3]", "record": C}, {"marker": "[1]", "record": A}]
    stream3 = await turn(app, run_input("q3", "run-3"))
    assert shown_markers(stream3) == [["[2]"]]
    assert cited(stream3) == [{"marker": "[2]", "record": B}, {"marker": "[3]", "record": C}]


FOLLOW_UP = {
    "q1": READ_A_AND_B,
    "q2": [
        [Call("moca_get_node", {"node_id": ref(C)}, "t2-call")],
        [Say(f"Now [3]; as said [1]; see {ref(B)}.")],
    ],
}


async def two_turns(lookup: Lookup | None, *, forge: str | None = None) -> list[dict[str, Any]]:
    """Turn 1 reads A and B; turn 2 reads C and cites A by marker, B by versioned ref."""
    app = served(FOLLOW_UP, **({"lookup": lookup} if lookup else {}))
    first = run_input("q1", "run-1")
    thread = after_run(first["messages"], await turn(app, first))
    stream2 = await turn(
        app, next_turn(tampered(thread, forge) if forge else thread, "q2", "run-2")
    )
    assert FORGED_TITLE not in json.dumps(cited(stream2))
    return cited(stream2)


async def test_a_follow_up_cites_earlier_sources_with_the_record_lookup_gives_now():
    lookup = Lookup(A_NOW, B_NOW)
    assert await two_turns(lookup) == [
        {"marker": "[3]", "record": C},
        {"marker": "[1]", "record": A_NOW},
        {"record": B_NOW},
    ]
    assert sorted(lookup.asked) == sorted([ref(A), ref(B)])


async def test_without_lookup_earlier_sources_are_left_out_never_cited_as_another_node():
    assert await two_turns(None) == [{"marker": "[3]", "record": C}]


async def test_a_record_the_client_forged_in_the_thread_is_never_sent():
    assert await two_turns(None, forge=ref(A)) == [{"marker": "[3]", "record": C}]
    assert await two_turns(Lookup(A_NOW, B_NOW), forge=ref(A)) == [
        {"marker": "[3]", "record": C},
        {"marker": "[1]", "record": A_NOW},
        {"record": B_NOW},
    ]
