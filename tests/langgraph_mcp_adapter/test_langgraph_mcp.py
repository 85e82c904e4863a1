"""LangGraph agents on the real langchain-mcp-adapters `MultiServerMCPClient` tools, over
MCP stdio: the "Connecting a real Reader" docs page's block and the demo's scripted agent
against the demo Reader, and the reference Reader's captured answers replayed as it sent
them. langchain-mcp-adapters 0.3 needs mcp 1.x: `nox -s tests-langgraph-mcp`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

mcp_adapters = pytest.importorskip(
    "langchain_mcp_adapters.client",
    reason="langchain-mcp-adapters needs mcp<2: nox -s tests-langgraph-mcp runs these",
)
mcp_tools = pytest.importorskip(
    "langchain_mcp_adapters.tools", reason="nox -s tests-langgraph-mcp runs these"
)

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint  # noqa: E402
from fastapi import FastAPI  # noqa: E402
from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import BaseMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatGenerationChunk  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from readme_code import run_block  # noqa: E402
from reference_calls import CALLS, IDS, answer, expected  # noqa: E402

import moca_agui  # noqa: E402
from moca_agui.check import check_events  # noqa: E402
from moca_agui.demo.frameworks import langgraph as demo  # noqa: E402
from moca_agui.demo.model import KNOWN_QUESTIONS  # noqa: E402
from moca_agui.demo.reader import DemoReader  # noqa: E402
from moca_agui.demo.server import ask, build  # noqa: E402
from moca_agui.demo.steps import Answer, ToolCall  # noqa: E402

HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
REPLAY = Path(__file__).parents[1] / "reference_replay.py"
DEMO_READER = {
    "transport": "stdio",
    "command": sys.executable,
    "args": ["-m", "moca_agui.demo.reader"],
}


class OneCallModel(demo.ScriptedChatModel):
    """Calls one tool, then gives one answer (the demo model's streaming, another script)."""

    call: ToolCall
    text: str

    def _stream(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Iterator[Any]:
        answered = any(isinstance(message, ToolMessage) for message in messages)
        step = Answer(self.text) if answered else self.call
        for chunk in demo._chunks(step):
            yield ChatGenerationChunk(message=chunk)


async def stream(app: Any, question: str) -> list[dict[str, Any]]:
    return [json.loads(event) async for event in ask(app, question)]


def served(agent: LangGraphAgent) -> FastAPI:
    app = FastAPI()
    add_langgraph_fastapi_endpoint(app, agent, "/")
    return app


def cited(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [
        e["value"]["citations"]
        for e in events
        if e["type"] == "CUSTOM" and e["name"] == moca_agui.EVENT_NAME
    ]


async def test_the_docs_block_cites_compact_results_through_the_same_client() -> None:
    model = OneCallModel(
        call=ToolCall("moca_search", {"query": "register hives", "limit": 2}),
        text="Register every apiary [1]; mind the footpaths [2].",
    )
    names = await run_block("## LangGraph (langchain-mcp-adapters, mcp 1.x)", "reader.md")
    agent = await names["citing_agent"](model)
    events = await stream(served(agent), "Do I need to register my hives?")
    (result,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert '\\"node\\"' not in result["content"]  # compact results: no record in sight
    reader = DemoReader()
    assert cited(events) == [
        [
            {"marker": "[1]", "record": reader.get(HANDBOOK + "hive-registration.md")},
            {"marker": "[2]", "record": reader.get(HANDBOOK + "hive-placement.md")},
        ]
    ]


@pytest.mark.parametrize("question", KNOWN_QUESTIONS)
async def test_the_demo_agent_on_mcp_tools_cites_as_the_demo_does(question: str) -> None:
    client = mcp_adapters.MultiServerMCPClient({"moca": DEMO_READER})
    graph = create_agent(
        demo.ScriptedChatModel(), await client.get_tools(), checkpointer=InMemorySaver()
    )
    agent = moca_agui.instrument(LangGraphAgent(name="apiary", graph=graph))
    events = await stream(served(agent), question)
    assert [str(f) for f in check_events(events) if f.level == "error"] == []
    demo_events = await stream(build("ag-ui"), question)

    def refs(events: list[dict[str, Any]]) -> list[list[tuple[str | None, str]]]:
        return [[(c.get("marker"), c["record"]["node"]["ref"]) for c in e] for e in cited(events)]

    assert refs(events) == refs(demo_events) != [[]]


async def test_each_captured_answer_is_cited_as_the_reader_sent_it() -> None:
    replay = {"transport": "stdio", "command": sys.executable, "args": [str(REPLAY)]}
    client = mcp_adapters.MultiServerMCPClient({"reference": replay})
    async with client.session("reference") as session:  # one Reader process for all
        tools = await mcp_tools.load_mcp_tools(session)
        for capture, name in zip(CALLS, IDS, strict=True):
            model = OneCallModel(
                call=ToolCall(capture["tool"], capture["arguments"]), text=answer(capture)
            )
            graph = create_agent(model, tools, checkpointer=InMemorySaver())
            agent = moca_agui.instrument(LangGraphAgent(name="kb", graph=graph))
            events = await stream(served(agent), "q")
            assert [str(f) for f in check_events(events) if f.level == "error"] == [], name
            (citations,) = cited(events)
            sent = expected(capture, lookup=False)  # byte for byte: key order, JSON types
            assert json.dumps(citations) == json.dumps(sent), name
