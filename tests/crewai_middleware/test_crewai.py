"""CrewAI behind `CitationMiddleware`, served as its users serve it: a flow whose step runs a
CrewAI `Agent` with the Reader's tools, behind ag-ui-crewai's FastAPI endpoint, over
HTTP. The model is a scripted CrewAI `BaseLLM`, offline.

ag-ui-crewai streams no text for an agent's answer: the answer arrives in MESSAGES_SNAPSHOT
under an id it makes, after the run's question, and is cited under that id.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import litellm
import pytest
from ag_ui_crewai import add_crewai_crew_fastapi_endpoint, add_crewai_flow_fastapi_endpoint
from crewai import Agent, Crew, Task
from crewai.tools import tool
from fastapi import FastAPI
from litellm import CustomLLM
from pydantic import Field
from readme_code import readme_diffs
from thread_turns import after_run

import moca_agui
from moca_agui.asgi import CitationMiddleware
from moca_agui.check import check_events, parse_stream
from moca_agui.demo.frameworks.crewai import DemoLLM, build_app, chat_flow
from moca_agui.demo.reader import DemoReader
from support import (
    HANDBOOK,
    Call,
    assert_valid_stream,
    carried_by_snapshot,
    citation_events,
    demo_printed,
    record,
    ref,
    run_input,
    types,
)

QUESTION = "Do I need to register my hives?"
A, B = record("a.md"), record("b.md")
INVENTED = "https://example.com/moca/test-kb@1.0.0#never-read.md"

#: A script turn: the calls of one model response, or the answer (given the tool results
#: the model read, in its order: it may write the markers a numbered tool showed).
Turn = list[Call] | str | Callable[[list[str]], str]


class Scripted(DemoLLM):
    """A CrewAI LLM that plays `script`, one turn per model call after the question (the
    demo's model, its turns given)."""

    script: list[Any] = Field(default_factory=list)

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        turns = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        seen = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        turn = self.script[turns]
        if callable(turn):
            return turn(seen)
        if isinstance(turn, str):
            return turn
        return [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.args)}}
            for c in turn
        ]  # fmt: skip


def json_tool(name: str, function: Callable[..., Any]) -> Any:
    """A CrewAI tool named `name` returning `function`'s result as JSON text."""

    def run(node_id: str = "", query: str = "") -> str:
        """Look in the knowledge base."""
        result = function(node_id=node_id, query=query)
        return result if isinstance(result, str) else json.dumps(result)

    return tool(name)(run)


def get_node(node_id: str = "", query: str = "") -> Any:
    return {ref(r): r for r in (A, B)}.get(node_id) or {"error": f"no node {node_id}"}


def app_of(script: list[Turn], tools: list[Any], **options: Any) -> FastAPI:
    app = FastAPI()
    add_crewai_flow_fastapi_endpoint(app, chat_flow(Scripted(script=script), tools), "/")
    app.add_middleware(CitationMiddleware, **options)
    return app


async def post(app: Any, question: str = "q", thread_id: str = "thread-1") -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=120) as client:
        response = await client.post("/", json=run_input(question, thread_id=thread_id))
    assert response.status_code == 200, response.text
    stream = parse_stream(response.text)
    assert_valid_stream(stream)
    return stream


def cited(stream: list[dict[str, Any]]) -> list[tuple[str | None, str]]:
    assert check_events(stream) == []
    (value,) = citation_events(stream)
    return [(c.get("marker"), c["record"]["node"]["ref"]) for c in value["citations"]]


def held_when_it_arrives(stream: list[dict[str, Any]]) -> bool:
    """Whether `@ag-ui/client` holds the message the event names when it arrives."""
    at = types(stream).index("CUSTOM:moca.citations")
    held = after_run([], stream[:at])
    return any(m["id"] == stream[at]["value"]["messageId"] for m in held)


async def test_the_demo_app_cites_the_answer_only_the_snapshot_carries() -> None:
    stream = await post(build_app(DemoReader()), QUESTION)
    assert [t for t in types(stream) if not t.startswith("STEP_")] == [
        "RUN_STARTED",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]  # fmt: skip
    assert [(m, r.removeprefix(HANDBOOK)) for m, r in cited(stream)] == [
        ("[1]", "hive-registration.md"),
        ("[2]", "hive-placement.md"),
    ]
    [value] = citation_events(stream)
    assert held_when_it_arrives(stream)
    # a client that keeps only the snapshot's messages has the sources too
    assert carried_by_snapshot(stream) == {value["messageId"]: value}


def test_the_demo_prints_a_cited_stream() -> None:
    assert [(m, r.removeprefix(HANDBOOK)) for m, r in cited(demo_printed("crewai", QUESTION))] == [
        ("[1]", "hive-registration.md"),
        ("[2]", "hive-placement.md"),
    ]


async def test_invented_refs_and_other_tools_results_are_left_out() -> None:
    """A node only a non-Reader tool returned, and a ref no tool returned, are not cited."""
    script: list[Turn] = [
        [Call("moca_get_node", {"node_id": ref(A)}, "c1")],
        [Call("web_search", {"query": "b"}, "c2")],
        f"A [1]; B [2], see {ref(B)}; made up: {INVENTED}.",
    ]
    tools = [json_tool("moca_get_node", get_node), json_tool("web_search", lambda **_: B)]
    stream = await post(app_of(script, tools))
    assert cited(stream) == [("[1]", ref(A))]


async def test_parallel_calls_finishing_in_reverse_keep_the_numbers_numbered_tools_showed() -> None:
    """Two Reader calls in one response; A's finishes last. ag-ui-crewai sends each call as
    it finishes, under ids it makes: with numbered tools, the model reads each source's
    marker in its result, and the event links the marker it wrote to that source."""

    def slow_get_node(node_id: str = "", query: str = "") -> Any:
        if node_id == ref(A):
            time.sleep(0.3)
        return get_node(node_id)

    def answer(seen: list[str]) -> str:
        marker = {
            result["result"]["node"]["ref"]: result["marker"]
            for text in seen
            for result in json.loads(text)["results"]
        }
        return f"A {marker[ref(A)]}; B {marker[ref(B)]}."

    numbered = moca_agui.numbered(slow_get_node, name="moca_get_node")
    script: list[Turn] = [
        [Call("moca_get_node", {"node_id": ref(A)}, "ca"),
         Call("moca_get_node", {"node_id": ref(B)}, "cb")],
        answer,
    ]  # fmt: skip
    stream = await post(app_of(script, [json_tool("moca_get_node", numbered)]))
    results = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert [json.loads(e["content"])["results"][0]["result"]["node"]["ref"] for e in results] == [
        ref(B),
        ref(A),
    ]  # the order they finished in
    assert sorted(cited(stream)) == [("[1]", ref(B)), ("[2]", ref(A))]


@pytest.mark.parametrize("slow", [A, B], ids=["a-finishes-last", "b-finishes-last"])
async def test_parallel_calls_leave_out_the_markers_their_finishing_order_would_decide(
    slow: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """Two plain Reader calls in one response: CrewAI gives the model A's result first,
    ag-ui-crewai sends whichever finished first. The markers are left out, logged, in
    either order; the versioned ref is cited."""

    def slow_get_node(node_id: str = "", query: str = "") -> Any:
        if node_id == ref(slow):
            time.sleep(0.3)
        return get_node(node_id)

    script: list[Turn] = [
        [Call("moca_get_node", {"node_id": ref(A)}, "ca"),
         Call("moca_get_node", {"node_id": ref(B)}, "cb")],
        f"A [1]; B [2], see {ref(B)}.",
    ]  # fmt: skip
    stream = await post(app_of(script, [json_tool("moca_get_node", slow_get_node)]))
    assert cited(stream) == [(None, ref(B))]
    left_out = [r.getMessage() for r in caplog.records if "left out the marker" in r.getMessage()]
    assert [line.split(":", 2)[1].split()[-1] for line in left_out] == ["[1]", "[2]"]


async def test_a_search_then_a_read_of_a_hit_keeps_its_markers() -> None:
    """Sequential calls look like parallel ones on ag-ui-crewai's wire, but these give A
    and B the same numbers in either order."""

    def search(node_id: str = "", query: str = "") -> Any:
        return {"query": query, "results": [A, B]}

    script: list[Turn] = [
        [Call("moca_search", {"query": "hives"}, "c1")],
        [Call("moca_get_node", {"node_id": ref(A)}, "c2")],
        "A [1]; B [2].",
    ]
    tools = [json_tool("moca_search", search), json_tool("moca_get_node", get_node)]
    assert cited(await post(app_of(script, tools))) == [("[1]", ref(A)), ("[2]", ref(B))]


async def test_concurrent_runs_keep_their_own_citations() -> None:
    app = build_app(DemoReader())
    streams = await asyncio.gather(*(post(app, QUESTION, f"thread-{n}") for n in range(4)))
    for stream in streams:
        assert [m for m, _ in cited(stream)] == ["[1]", "[2]"]


def test_instrument_on_a_flow_names_the_middleware() -> None:
    flow = chat_flow(Scripted(script=["x"]), [])
    with pytest.raises(TypeError, match=r"app.add_middleware\(CitationMiddleware\)"):
        moca_agui.instrument(flow)


async def test_the_docs_diff_applied_gives_an_app_that_cites() -> None:
    [code] = readme_diffs("The one line", "frameworks/crewai.md")
    assert "app.add_middleware(CitationMiddleware)" in code
    script: list[Turn] = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], "See [1]."]
    namespace: dict[str, Any] = {
        "flow": chat_flow(Scripted(script=script), [json_tool("moca_get_node", get_node)])
    }
    exec(code, namespace)
    assert cited(await post(namespace["app"])) == [("[1]", ref(A))]


# -- a crew, served by add_crewai_crew_fastapi_endpoint ----------------------------------

CREW = "BeeCrew"


class ChatModel(CustomLLM):
    """The crew's chat model, offline through litellm's own seam for custom providers
    (`litellm.custom_provider_map`): it runs the crew, then answers with what the crew
    said (the crew's agent writes the markers)."""

    @staticmethod
    def reply(messages: list[dict[str, Any]], params: dict[str, Any]) -> tuple[str, Any]:
        names = [t["function"]["name"] for t in params.get("tools") or []]
        said = [str(m["content"]) for m in messages if m.get("role") == "tool"]
        if said:
            return "text", f"The crew says: {said[-1]}"
        if CREW in names and params.get("tool_choice") != "none":
            return "call", {"question": "Do I register my hives?"}
        return "text", "A crew that reads the handbook."  # the endpoint's descriptions

    def completion(self, model: str, messages: Any, *args: Any, **kwargs: Any) -> Any:
        kind, value = self.reply(messages, kwargs.get("optional_params") or {})
        assert kind == "text", "the endpoint streams the calls that run the crew"
        return litellm.completion(
            model="openai/scripted", messages=messages, mock_response=value, api_key="-"
        )

    async def acompletion(self, model: str, messages: Any, *args: Any, **kwargs: Any) -> Any:
        return self.completion(model, messages, *args, **kwargs)

    async def astreaming(self, model: str, messages: Any, *args: Any, **kwargs: Any) -> Any:
        kind, value = self.reply(messages, kwargs.get("optional_params") or {})
        end = {"text": "", "tool_use": None, "is_finished": True, "usage": None, "index": 0}
        if kind == "text":
            for start in range(0, len(value), 8):
                yield {**end, "text": value[start : start + 8], "is_finished": False,
                       "finish_reason": ""}  # fmt: skip
            yield {**end, "finish_reason": "stop"}
            return
        function = {"name": CREW, "arguments": json.dumps(value)}
        call = {"id": "call-crew", "type": "function", "index": 0, "function": function}
        yield {**end, "tool_use": call, "is_finished": False, "finish_reason": ""}
        yield {**end, "finish_reason": "tool_calls"}


class BeeCrew:
    """What the crew endpoint serves: an object whose `crew()` makes the crew."""

    name = CREW

    def __init__(self, script: list[Turn], tools: list[Any]) -> None:
        self.script, self.tools = script, tools

    def crew(self) -> Crew:
        agent = Agent(
            role="Handbook reader", goal="Answer from the handbook", backstory="A beekeeper.",
            llm=Scripted(script=self.script), tools=self.tools, verbose=False,
        )  # fmt: skip
        task = Task(description="Answer: {question}", expected_output="An answer", agent=agent)
        return Crew(agents=[agent], tasks=[task], chat_llm="scripted/chat", verbose=False)


async def test_a_crew_served_by_its_endpoint_is_cited(monkeypatch: pytest.MonkeyPatch) -> None:
    """The crew's agent reads A through the Reader (its call and result are on the wire)
    and writes "A [1]."; the chat model passes that on, streamed under one id and renamed
    by the snapshot: the event names the snapshot's id and links [1] to A."""
    monkeypatch.setattr(
        litellm, "custom_provider_map", [{"provider": "scripted", "custom_handler": ChatModel()}]
    )
    script: list[Turn] = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], "A [1]."]
    app = FastAPI()
    add_crewai_crew_fastapi_endpoint(
        app, BeeCrew(script, [json_tool("moca_get_node", get_node)]), "/"
    )
    app.add_middleware(CitationMiddleware)
    stream = await post(app)
    tool_call = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    assert [t for t in types(stream) if t not in ("TEXT_MESSAGE_CONTENT", "STEP_STARTED",
                                                  "STEP_FINISHED")] == [
        "RUN_STARTED",
        *tool_call,  # the chat model runs the crew (its result is not on the wire)
        *tool_call, "TOOL_CALL_RESULT",  # the crew's agent reads A through the Reader
        "STATE_SNAPSHOT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]  # fmt: skip
    assert cited(stream) == [("[1]", ref(A))]
    [value] = citation_events(stream)
    streamed = {e["messageId"] for e in stream if e["type"] == "TEXT_MESSAGE_CONTENT"}
    assert value["messageId"] not in streamed  # the snapshot's id of the answer
    assert held_when_it_arrives(stream)
    assert carried_by_snapshot(stream) == {value["messageId"]: value}
