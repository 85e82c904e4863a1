"""Pydantic AI over turns of one thread, as @ag-ui/client sends them (the whole thread each
run, built from the previous run's events): numbered tools count on, an earlier source is
cited only with the record `lookup` gives now, a forged record the client sends back is
never sent, and a source read again keeps its number."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from pai_support import dispatch_app
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
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
from support import Call, Reader, assert_valid_stream, parse_sse, ref, run_input

Steps = dict[str, list[Call | str]]


def thread_model(steps: Steps) -> FunctionModel:
    """Answers the thread's last question: its tool calls, one per response, then its text."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        asked = [
            (index, part.content)
            for index, message in enumerate(messages)
            if isinstance(message, ModelRequest)
            for part in message.parts
            if isinstance(part, UserPromptPart)
        ]
        at, question = asked[-1]
        step = steps[str(question)][sum(isinstance(m, ModelResponse) for m in messages[at:])]
        if isinstance(step, Call):
            yield {0: DeltaToolCall(name=step.name, tool_call_id=step.id)}
            yield {0: DeltaToolCall(json_args=json.dumps(step.args))}
        else:
            yield step

    return FunctionModel(stream_function=stream)


async def turn(app: Any, body: dict[str, Any]) -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", json=body, headers={"accept": "text/event-stream"})
    assert response.status_code == 200, response.text
    stream = parse_sse(response.text)
    assert_valid_stream(stream)
    return stream


def app(steps: Steps, *, numbered: bool = False, **options: Any) -> Any:
    tools = Reader(A, B, C).tools
    agent = Agent(thread_model(steps), tools=moca_agui.numbered(tools) if numbered else tools)
    return dispatch_app(moca_agui.instrument(AGUIAdapter, **options), agent)


READ_A_AND_B = [Call("moca_search", {"query": "a.md b.md"}, "t1-call"), "A [1]; B [2]."]


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    steps: Steps = {
        "q1": READ_A_AND_B,
        "q2": [Call("moca_search", {"query": "c.md a.md"}, "t2-call"), "C [3]; A [1] again."],
        "q3": [Call("moca_get_node", {"node_id": ref(B)}, "t3-call"), "B [2]; C [3]."],
    }
    served = app(steps, numbered=True, lookup=Lookup(C))
    first = run_input("q1", "run-1")
    stream1 = await turn(served, first)
    assert shown_markers(stream1) == [["[1]", "[2]"]]
    assert cited(stream1) == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]

    second = next_turn(after_run(first["messages"], stream1), "q2", "run-2")
    stream2 = await turn(served, second)
    assert shown_markers(stream2) == [["[1]", "[3]"]]  # A (read again) and C
    assert cited(stream2) == [{"marker": "[3]", "record": C}, {"marker": "[1]", "record": A}]

    third = next_turn(after_run(second["messages"], stream2), "q3", "run-3")
    stream3 = await turn(served, third)
    assert shown_markers(stream3) == [["[2]"]]
    assert cited(stream3) == [{"marker": "[2]", "record": B}, {"marker": "[3]", "record": C}]


async def two_turns(lookup: Lookup | None, *, forge: str | None = None) -> list[dict[str, Any]]:
    """Turn 1 reads A and B; turn 2 reads C and cites A by marker, B by versioned ref."""
    steps: Steps = {
        "q1": READ_A_AND_B,
        "q2": [
            Call("moca_get_node", {"node_id": ref(C)}, "t2-call"),
            f"Now [3]; as said [1]; see {ref(B)}.",
        ],
    }
    served = app(steps, **({"lookup": lookup} if lookup else {}))
    first = run_input("q1", "run-1")
    stream1 = await turn(served, first)
    thread = after_run(first["messages"], stream1)
    stream2 = await turn(
        served, next_turn(tampered(thread, forge) if forge else thread, "q2", "run-2")
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
