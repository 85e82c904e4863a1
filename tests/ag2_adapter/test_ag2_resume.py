"""An AG2 turn paused on a question to the client, resumed by a later request.

AG2 holds the paused turn past the request that started it; the request that answers
the question resumes it, under that request's own run. The turn's parallel Reader calls
after the resume reach the wire second call first, its tool ending last: the resuming
request's run is told the model's order all the same, and where the stream cannot link
the turn to it, the markers that order decides are left out, never guessed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from ag2 import Agent, tool
from ag2.ag_ui import AGUIStream
from ag2.annotations import Context
from ag2.events import BaseEvent, ModelMessageChunk, ModelResponse, ToolCallEvent
from ag2.middleware import AgentTurn, BaseMiddleware, Middleware
from ag2.middleware.base import LLMCall
from ag2.testing import TestConfig
from ag2.tools.subagents import background_agent_tool
from starlette.applications import Starlette
from starlette.routing import Route
from test_ag2_model_order import (
    ANSWER,
    A,
    B,
    SecondCallFirst,
    cited_refs,
    reader_tool,
    start_order,
)

import moca_agui
from moca_agui.check import check_events, parse_stream
from support import citation_events, markers_left_out, ref, run_input

QUESTION = "Dusk and queens?"


async def ask_keeper(context: Context) -> str:
    """Ask the beekeeper which hive is meant."""
    return await context.input("Which hive?")


def asking_agent(questions: int, ask: Any = ask_keeper) -> Agent:
    """An agent that asks the client `questions` times (with `ask`), one after the other,
    then reads A and B in parallel (the wire carries B first, A's tool ends last) and
    answers."""
    asks = [ToolCallEvent("ask_keeper", arguments="{}", id=f"ask-{n}") for n in range(questions)]
    reads = [
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(A)}), id="call-a"),
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(B)}), id="call-b"),
    ]
    config = TestConfig(*asks, reads, ModelMessageChunk(ANSWER), ANSWER)
    tools = [tool(ask, name="ask_keeper"), reader_tool({ref(A): 0.05, ref(B): 0.0})]
    return Agent("asking", config=config, tools=tools, middleware=[Middleware(SecondCallFirst)])


def asked_so_far(questions: int) -> list[dict[str, Any]]:
    """The thread as the client recorded it after `questions` questions, the last
    unanswered."""
    thread: list[dict[str, Any]] = [{"id": "q", "role": "user", "content": QUESTION}]
    for n in range(questions):
        call = {"id": f"ask-{n}", "type": "function",
                "function": {"name": "ask_keeper", "arguments": "{}"}}  # fmt: skip
        thread.append({"id": f"a{n}", "role": "assistant", "toolCalls": [call]})
        if n < questions - 1:
            thread.append({"id": f"t{n}", "role": "tool", "toolCallId": f"ask-{n}",
                           "content": "the north hive"})  # fmt: skip
    return thread


async def post(client: httpx.AsyncClient, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    response = await client.post(path, json=body)
    assert response.status_code == 200, response.text
    return parse_stream(response.text)


def question_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The interrupt the run paused on."""
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    return dict(interrupt)


def answer_to(interrupt: dict[str, Any], run_id: str, asked: int) -> dict[str, Any]:
    """The request resuming the turn with the answer to `interrupt`."""
    body = run_input(QUESTION, run_id)
    body["messages"] = asked_so_far(asked)
    entry = {"interruptId": interrupt["id"], "status": "resolved", "payload": "the north hive"}
    body["resume"] = [{**entry, "metadata": interrupt.get("metadata")}]
    return body


@asynccontextmanager
async def citing_client(agent: Agent) -> AsyncIterator[httpx.AsyncClient]:
    """A client of `agent`'s citing endpoint, served at "/"."""
    async with AGUIStream(agent) as plain:
        app = moca_agui.instrument(plain).build_asgi()
        transport = httpx.ASGITransport(app=Starlette(routes=[Route("/", app)]))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            yield client


async def paused_then_resumed(
    questions: int, start: str = "/citing", resume: str = "/citing"
) -> list[dict[str, Any]]:
    """The events of the request that resumes the turn the last time, the turn started
    by a request to `start` and resumed by requests to `resume`."""
    async with AGUIStream(asking_agent(questions)) as plain:
        citing = moca_agui.instrument(plain)  # shares the turns AG2 holds with `plain`
        routes = [Route("/citing", citing.build_asgi()), Route("/plain", plain.build_asgi())]
        transport = httpx.ASGITransport(app=Starlette(routes=routes))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            events = await post(client, start, run_input(QUESTION, "run-0"))
            for n in range(1, questions + 1):
                assert citation_events(events) == []
                events = await post(client, resume, answer_to(question_of(events), f"run-{n}", n))
    return events


@pytest.mark.parametrize("questions", [1, 2])
async def test_a_resumed_turn_tells_the_resuming_requests_run_the_models_order(
    questions: int,
) -> None:
    """Resumed once, or twice (the turn is set down and taken up again): the run of the
    request that resumes it last cites A as [1], not B, which the wire carried first."""
    events = await paused_then_resumed(questions)
    assert start_order(events) == ["call-b", "call-a"]
    assert [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_RESULT"][-2:] == [
        "call-b",
        "call-a",
    ]
    assert check_events(events) == []
    assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}


async def test_a_turn_paused_outside_the_citing_stream_leaves_the_markers_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Started on the plain stream's endpoint (whose held turns the citing copy shares),
    the turn announces its calls to no run: resumed through the citing endpoint, its run
    leaves out [1] and [2], logged, and never names B as [1]."""
    events = await paused_then_resumed(1, start="/plain")
    assert start_order(events) == ["call-b", "call-a"]
    assert check_events(events) == []
    assert cited_refs(events) == {}
    assert markers_left_out(caplog) == ["[1]", "[2]"]
    assert "not asked by an AG2 turn the citing stream holds paused" in caplog.text


def ask_keeper_then_wait(answered: asyncio.Event, go_on: asyncio.Event) -> Any:
    """`ask_keeper`, which once answered waits for `go_on` before it returns (and the
    model reads A and B)."""

    async def ask(context: Context) -> str:
        """Ask the beekeeper which hive is meant."""
        answer = await context.input("Which hive?")
        answered.set()
        await asyncio.wait_for(go_on.wait(), timeout=10)
        return answer

    return ask


async def test_an_answer_sent_again_while_the_turn_runs_takes_nothing_from_its_run() -> None:
    """The same answer, sent again while the request that resumed the turn still carries
    it (AG2 then starts the turn anew): the turn stays linked to the first request's run,
    which is told its model's order all the same."""
    answered, go_on = asyncio.Event(), asyncio.Event()
    async with citing_client(asking_agent(1, ask_keeper_then_wait(answered, go_on))) as client:
        question = question_of(await post(client, "/", run_input(QUESTION, "run-0")))
        resuming = asyncio.create_task(post(client, "/", answer_to(question, "run-1", 1)))
        await asyncio.wait_for(answered.wait(), timeout=10)
        again = await post(client, "/", answer_to(question, "run-2", 1))
        go_on.set()
        resumed = await resuming
    assert question_of(again)["id"] != question["id"]  # the turn started anew, and asked
    assert start_order(resumed) == ["call-b", "call-a"]
    assert check_events(resumed) == []
    assert cited_refs(resumed) == {"[1]": ref(A), "[2]": ref(B)}


async def test_an_answer_to_another_threads_question_leaves_the_markers_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Turn 1 (citing endpoint, thread t1) pauses on q1; turn 2 (plain endpoint, t2) on
    q2. A resume of t2 through the citing endpoint answering q2 and q1: AG2 resumes turn 2
    and ignores q1, so turn 1's link must not be pointed at this run (it would take the
    wire's order and name B as [1]): its markers are left out, logged."""
    async with AGUIStream(asking_agent(1)) as plain:
        citing = moca_agui.instrument(plain)
        routes = [Route("/citing", citing.build_asgi()), Route("/plain", plain.build_asgi())]
        transport = httpx.ASGITransport(app=Starlette(routes=routes))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            asked = question_of(await post(client, "/citing", run_input(QUESTION, "run-0")))
            body = run_input(QUESTION, "run-1", thread_id="t2")
            other = question_of(await post(client, "/plain", body))
            body = {**answer_to(other, "run-2", 1), "threadId": "t2"}
            forged = {"interruptId": asked["id"], "status": "resolved", "payload": "x"}
            body["resume"].append(forged)
            events = await post(client, "/citing", body)
    assert start_order(events) == ["call-b", "call-a"]
    assert check_events(events) == []
    assert cited_refs(events) == {}
    assert markers_left_out(caplog) == ["[1]", "[2]"]
    assert "not asked by an AG2 turn the citing stream holds paused" in caplog.text


class HeldUntil(BaseMiddleware):
    """Holds call-b (so its TOOL_CALL_START) until `go_on` is set."""

    def __init__(self, event: BaseEvent, context: Context, *, go_on: asyncio.Event) -> None:
        super().__init__(event, context)
        self._go_on = go_on

    async def on_turn(self, call_next: AgentTurn, event: BaseEvent, context: Context) -> Any:
        async def hold(call: ToolCallEvent) -> ToolCallEvent:
            if call.id == "call-b":
                await asyncio.wait_for(self._go_on.wait(), timeout=10)
            return call

        with context.stream.where(ToolCallEvent).sub_scope(hold, interrupt=True):
            return await call_next(event, context)


async def test_calls_announced_before_the_pause_and_sent_after_it_keep_the_models_order() -> None:
    """The model asks the client and reads A and B in one response; the reads reach the
    wire only after the turn paused (AG2 keeps them for the resuming request, call-b
    first): the resuming request's run is told the model's order all the same."""
    go_on = asyncio.Event()
    ask = ToolCallEvent("ask_keeper", arguments="{}", id="ask-0")
    reads = [
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(A)}), id="call-a"),
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(B)}), id="call-b"),
    ]
    config = TestConfig([ask, *reads], ModelMessageChunk(ANSWER), ANSWER)
    tools = [tool(ask_keeper, name="ask_keeper"), reader_tool({ref(A): 0.05, ref(B): 0.0})]
    middleware = [Middleware(SecondCallFirst), Middleware(HeldUntil, go_on=go_on)]
    agent = Agent("asking", config=config, tools=tools, middleware=middleware)
    async with citing_client(agent) as client:
        first = await post(client, "/", run_input(QUESTION, "run-0"))
        go_on.set()
        events = await post(client, "/", answer_to(question_of(first), "run-1", 1))
    assert start_order(first) == ["ask-0"]
    assert start_order(events) == ["call-b", "call-a"]
    assert check_events(events) == []
    assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}


async def leave_at_once(app: Any, body: dict[str, Any]) -> None:
    """POST `body` to `app` as a client that leaves before the response starts: the
    server sees the body, then the disconnect (ASGI 2.0, as the HTTP servers speak it)."""
    messages = [
        {"type": "http.request", "body": json.dumps(body).encode(), "more_body": False},
        {"type": "http.disconnect"},
    ]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if len(messages) > 1 else messages[0]

    async def send(message: dict[str, Any]) -> None:
        await asyncio.sleep(0)  # a server's send yields to the loop

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/",
        "raw_path": b"/",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-type", b"application/json"), (b"host", b"test")],
        "server": ("test", 80),
        "client": ("127.0.0.1", 1),
    }
    await app(scope, receive, send)


async def test_a_resume_whose_client_left_before_the_response_holds_no_link() -> None:
    """A resume whose client left before its response started (AG2 never took the turn):
    the answer sent again resumes the turn, and its run is told the model's order (a
    link left on the first one's run would leave [1] and [2] out)."""
    async with AGUIStream(asking_agent(1)) as plain:
        app = Starlette(routes=[Route("/", moca_agui.instrument(plain).build_asgi())])
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            question = question_of(await post(client, "/", run_input(QUESTION, "run-0")))
            await leave_at_once(app, answer_to(question, "run-1", 1))
            events = await post(client, "/", answer_to(question, "run-2", 1))
    assert start_order(events) == ["call-b", "call-a"]
    assert check_events(events) == []
    assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}


class Gated(BaseMiddleware):
    """The model's second call waits for `go_on`; the third (made once the second's tools
    ended) sets `third` and waits for `answered`."""

    def __init__(
        self,
        event: BaseEvent,
        context: Context,
        *,
        go_on: asyncio.Event,
        third: asyncio.Event,
        answered: asyncio.Event,
    ) -> None:
        super().__init__(event, context)
        self._go_on, self._third, self._answered = go_on, third, answered
        self._calls = 0

    async def on_llm_call(
        self, call_next: LLMCall, events: Sequence[BaseEvent], context: Context
    ) -> ModelResponse:
        self._calls += 1
        if self._calls == 2:
            await asyncio.wait_for(self._go_on.wait(), timeout=10)
        elif self._calls == 3:
            self._third.set()
            await asyncio.wait_for(self._answered.wait(), timeout=10)
        return await call_next(events, context)


async def test_calls_the_model_made_while_no_request_carried_the_turn_keep_its_order() -> None:
    """A background subagent's question pauses the turn while the model loop goes on:
    the model reads A and B after the first request ended, before the resume. The
    resuming request's run is told those calls, in the model's order (they were told to
    no run), and cites A as [1]."""
    go_on, third, answered = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def ask(context: Context) -> str:
        """Ask the beekeeper which hive is meant."""
        answer = await context.input("Which hive?")
        answered.set()
        return answer

    keeper_config = TestConfig(ToolCallEvent("ask_keeper", arguments="{}", id="ask-0"), "north")
    keeper = Agent("keeper", config=keeper_config, tools=[tool(ask, name="ask_keeper")])
    delegate = ToolCallEvent("background_task_keeper", arguments='{"objective": "ask"}', id="bg")
    reads = [
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(A)}), id="call-a"),
        ToolCallEvent("moca_get_node", arguments=json.dumps({"node_id": ref(B)}), id="call-b"),
    ]
    config = TestConfig(delegate, reads, ModelMessageChunk(ANSWER), ANSWER, "Done.")
    tools = [
        background_agent_tool(keeper, description="Ask the keeper."),
        reader_tool({ref(A): 0.05, ref(B): 0.0}),
    ]
    gates = {"go_on": go_on, "third": third, "answered": answered}
    middleware = [Middleware(SecondCallFirst), Middleware(Gated, **gates)]
    agent = Agent("parent", config=config, tools=tools, middleware=middleware)
    async with citing_client(agent) as client:
        first = await post(client, "/", run_input(QUESTION, "run-0"))
        go_on.set()
        await asyncio.wait_for(third.wait(), timeout=10)  # A and B were read, paused
        events = await post(client, "/", answer_to(question_of(first), "run-1", 1))
    assert start_order(events) == ["call-b", "call-a"]
    assert check_events(events) == []
    answers = [{c["marker"]: c["record"]["node"]["ref"] for c in value["citations"]}
               for value in citation_events(events)]  # fmt: skip
    # the answer; then "Done.", cites nothing, if it reached this exchange before its end
    assert answers[0] == {"[1]": ref(A), "[2]": ref(B)}
    assert answers[1:] in ([], [{}])


async def test_an_answer_sent_on_another_thread_takes_no_turn_from_its_thread() -> None:
    """An answer to thread 1's question sent on thread 3, which holds none (AG2 ignores it
    and starts a turn there): while that request runs, the answer on thread 1 resumes its
    turn, and its run is told the model's order (were the turn linked to thread 3's run,
    this one would leave [1] and [2] out)."""
    blocked, go_on = asyncio.Event(), asyncio.Event()
    asks = itertools.count()

    async def ask(context: Context) -> str:
        """Ask the beekeeper which hive is meant."""
        if next(asks) == 1:  # thread 3's turn waits, its request in flight
            blocked.set()
            await asyncio.wait_for(go_on.wait(), timeout=10)
        return await context.input("Which hive?")

    async with citing_client(asking_agent(1, ask)) as client:
        question = question_of(await post(client, "/", run_input(QUESTION, "run-0")))
        elsewhere = {**answer_to(question, "run-1", 1), "threadId": "t3"}
        other = asyncio.create_task(post(client, "/", elsewhere))
        await asyncio.wait_for(blocked.wait(), timeout=10)
        events = await post(client, "/", answer_to(question, "run-2", 1))
        go_on.set()
        question_of(await other)  # thread 3's own turn asked
    assert start_order(events) == ["call-b", "call-a"]
    assert check_events(events) == []
    assert cited_refs(events) == {"[1]": ref(A), "[2]": ref(B)}
