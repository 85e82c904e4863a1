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
from typing import Any

import litellm
import pytest
from ag_ui_crewai import add_crewai_crew_fastapi_endpoint
from crewai_support import (
    INVENTED,
    A,
    B,
    BeeCrew,
    ChatModel,
    Scripted,
    Turn,
    app_of,
    cited,
    get_node,
    json_tool,
    post,
)
from fastapi import FastAPI
from readme_code import readme_diffs
from thread_turns import after_run

import moca_agui
from moca_agui.adapters.crewai import CitingCrew, CitingFlow
from moca_agui.asgi import CitationMiddleware
from moca_agui.demo.frameworks.crewai import build_app, chat_flow
from moca_agui.demo.reader import DemoReader
from support import (
    HANDBOOK,
    Call,
    carried_by_snapshot,
    citation_events,
    demo_printed,
    ref,
    types,
)

QUESTION = "Do I need to register my hives?"


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


def test_instrument_on_a_flow_or_a_crew_gives_a_citing_copy_and_uninstrument_the_original() -> None:
    flow = chat_flow(Scripted(script=["x"]), [])
    citing = moca_agui.instrument(flow)
    assert isinstance(citing, CitingFlow) and isinstance(citing, type(flow))
    assert moca_agui.uninstrument(citing) is flow and not isinstance(flow, CitingFlow)
    assert moca_agui.uninstrument(moca_agui.instrument(citing)) is flow  # idempotent
    crew = BeeCrew(["x"], []).crew()
    assert isinstance(moca_agui.instrument(crew), CitingCrew)
    assert moca_agui.uninstrument(moca_agui.instrument(crew)) is crew


def test_instrument_refuses_a_class_and_options_naming_the_lines() -> None:
    with pytest.raises(TypeError, match=r"not its class: add_crewai_flow_fastapi_endpoint"):
        moca_agui.instrument(type(chat_flow(Scripted(script=["x"]), [])))
    with pytest.raises(TypeError, match="pass them to CitationMiddleware"):
        moca_agui.instrument(chat_flow(Scripted(script=["x"]), []), include_text=False)


async def test_the_docs_diff_applied_gives_an_app_that_cites() -> None:
    """The page's one line: two reads of different nodes keep their default markers."""
    [code] = readme_diffs("The one line", "frameworks/crewai.md")
    assert "app.add_middleware(CitationMiddleware)" in code
    assert "moca_agui.instrument(flow)" in code
    script: list[Turn] = [
        [Call("moca_get_node", {"node_id": ref(A)}, "c1")],
        [Call("moca_get_node", {"node_id": ref(B)}, "c2")],
        "A [1]; B [2].",
    ]
    namespace: dict[str, Any] = {
        "flow": chat_flow(Scripted(script=script), [json_tool("moca_get_node", get_node)])
    }
    exec(code, namespace)
    assert cited(await post(namespace["app"])) == [("[1]", ref(A)), ("[2]", ref(B))]


# -- a crew, served by add_crewai_crew_fastapi_endpoint ----------------------------------


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
