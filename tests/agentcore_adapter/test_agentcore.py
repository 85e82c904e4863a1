"""AWS Bedrock AgentCore: `serve_ag_ui(moca_agui.instrument(agent))` cites on both of
AgentCore's transports, SSE on `/invocations` and the WebSocket on `/ws`, because the
agent AgentCore runs is the instrumented one. The agents here are Strands agents (the
agent AgentCore's docs serve) with a scripted offline Strands model."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from bedrock_agentcore.runtime.ag_ui import AGUIApp, build_ag_ui_app
from readme_code import readme_diffs
from strands import Agent, tool

import moca_agui
from moca_agui.check import check_events, parse_stream
from served import served
from support import (
    HANDBOOK,
    Call,
    assert_valid_stream,
    citation_events,
    demo_printed,
    record,
    ref,
    run_input,
    types,
)

sys.path.insert(0, str(Path(__file__).parents[1] / "strands_adapter"))
from strands_support import CopyingModel, ScriptedModel, reader_tools, strands_agent

A, B = record("a.md"), record("b.md")
QUESTION = "Do I need to register my hives?"
INVENTED = "https://example.com/moca/test-kb@1.0.0#never-read.md"


def parallel_agent() -> Any:
    """Two Reader calls in one response, then an answer citing both by marker."""
    return strands_agent(parallel_model(), reader_tools(A, B))


def parallel_model() -> ScriptedModel:
    return ScriptedModel(
        [
            [
                Call("moca_get_node", {"node_id": ref(A)}, id="call-a"),
                Call("moca_get_node", {"node_id": ref(B)}, id="call-b"),
            ],
            ["A says [1]; B says [2]; C is made up [3] and cites nothing."],
        ]
    )


async def post(app: Any, thread_id: str = "thread-1") -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/invocations", json=run_input(QUESTION, thread_id=thread_id))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return parse_stream(response.text)


async def over_websocket(app: Any) -> list[dict[str, Any]]:
    async with served(app) as base:
        url = base.replace("http://", "ws://") + "/ws"
        async with websockets.connect(url) as socket:
            await socket.send(json.dumps(run_input(QUESTION, thread_id="thread-ws")))
            frames = [frame async for frame in socket]
    return parse_stream("".join(str(frame) for frame in frames))


def cited(stream: list[dict[str, Any]]) -> list[tuple[str, str]]:
    assert_valid_stream(stream)
    assert check_events(stream) == []
    (value,) = citation_events(stream)
    return [(c["marker"], c["record"]["node"]["ref"]) for c in value["citations"]]


async def test_sse_and_websocket_both_cite_the_models_order() -> None:
    app = build_ag_ui_app(moca_agui.instrument(parallel_agent()))
    sse, ws = await post(app), await over_websocket(app)
    assert cited(sse) == cited(ws) == [("[1]", ref(A)), ("[2]", ref(B))]
    # the event goes after the answer's TEXT_MESSAGE_END, just before RUN_FINISHED
    last = ["TEXT_MESSAGE_END", "CUSTOM:moca.citations", "RUN_FINISHED"]
    assert [t for t in types(sse) if not t.endswith("_SNAPSHOT")][-3:] == last
    assert types(sse) == types(ws)


async def test_the_plain_agent_sends_no_citations_on_either_transport() -> None:
    app = build_ag_ui_app(parallel_agent())
    for stream in (await post(app), await over_websocket(app)):
        assert "CUSTOM" not in types(stream) and types(stream)[-1] == "RUN_FINISHED"


async def test_a_function_entrypoint_taking_the_context_keeps_it() -> None:
    """AgentCore passes `context` to a handler whose second parameter is named so: the
    instrumented function keeps its signature, so it still gets it."""
    agent, contexts = parallel_agent(), []

    async def run(input_data: Any, context: Any) -> AsyncIterator[Any]:
        contexts.append(context)
        async for event in agent.run(input_data):
            yield event

    app = AGUIApp()
    app.entrypoint(moca_agui.instrument(run))
    assert cited(await post(app)) == [("[1]", ref(A)), ("[2]", ref(B))]
    assert len(contexts) == 1 and contexts[0] is not None


async def test_concurrent_runs_keep_their_own_citations() -> None:
    app = build_ag_ui_app(moca_agui.instrument(parallel_agent()))
    streams = await asyncio.gather(*(post(app, f"thread-{n}") for n in range(5)))
    for stream in streams:
        assert cited(stream) == [("[1]", ref(A)), ("[2]", ref(B))]


def test_instrument_refuses_the_app_and_names_the_line() -> None:
    with pytest.raises(TypeError, match=r"serve_ag_ui\(moca_agui.instrument\(agent\)\)"):
        moca_agui.instrument(AGUIApp())


def test_the_demo_prints_a_cited_stream() -> None:
    events = demo_printed("agentcore", QUESTION)
    assert [(c[0], c[1].removeprefix(HANDBOOK)) for c in cited(events)] == [
        ("[1]", "hive-registration.md"),
        ("[2]", "hive-placement.md"),
    ]


async def test_the_docs_diff_applied_serves_an_app_that_cites(monkeypatch) -> None:
    """The page's diff as a user ends up with it; the app `serve_ag_ui` builds is taken
    where it would start uvicorn, and posted to."""
    [code] = readme_diffs("The one line", "frameworks/agentcore.md")
    assert "serve_ag_ui(moca_agui.instrument(StrandsAgent(agent=strands_agent" in code
    served_apps: list[AGUIApp] = []
    monkeypatch.setattr(AGUIApp, "run", lambda app, **_: served_apps.append(app))
    plain = Agent(model=parallel_model(), tools=reader_tools(A, B), callback_handler=None)
    exec(code, {"strands_agent": plain})
    [app] = served_apps
    assert cited(await post(app)) == [("[1]", ref(A)), ("[2]", ref(B))]


async def test_invented_refs_and_other_tools_records_are_left_out_on_both_transports() -> None:
    """A ref no tool returned and a node only a non-Reader tool returned are not cited."""
    other = record("c.md")

    @tool
    def lookup_order(order_id: str) -> dict[str, Any]:
        """An order, which happens to look like a citation record: no Reader tool's."""
        return other

    model = ScriptedModel(
        [
            [Call("moca_get_node", {"node_id": ref(A)}, id="call-a")],
            [Call("lookup_order", {"order_id": "1"}, id="call-o")],
            [f"A [1]; the order {ref(other)}; made up [2] and {INVENTED}."],
        ]
    )
    agent = strands_agent(model, [*reader_tools(A, B), lookup_order])
    app = build_ag_ui_app(moca_agui.instrument(agent))
    sse, ws = await post(app), await over_websocket(app)
    assert cited(sse) == cited(ws) == [("[1]", ref(A))]


async def test_numbered_tools_show_the_model_the_markers_the_event_links() -> None:
    model = CopyingModel(
        [Call("moca_get_node", {"node_id": ref(B)}, id="call-b")],
        [Call("moca_get_node", {"node_id": ref(A)}, id="call-a")],
    )
    agent = strands_agent(model, moca_agui.numbered(reader_tools(A, B)))
    stream = await post(build_ag_ui_app(moca_agui.instrument(agent)))
    shown = [json.loads(e["content"]) for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert shown == [
        {"results": [{"marker": "[1]", "result": B}]},
        {"results": [{"marker": "[2]", "result": A}]},
    ]
    assert cited(stream) == [("[1]", ref(B)), ("[2]", ref(A))]
