"""LlamaIndex agents reaching a Reader over MCP stdio through LlamaIndex's own MCP client
(llama-index-tools-mcp): the "Connecting a real Reader" docs page's block against the demo
Reader, and the reference Reader's captured answers replayed as it sent them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from li_support import Call, Turn, post, scripted_llm
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow
from llama_index.protocols.ag_ui.router import get_ag_ui_workflow_router
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from readme_code import run_block
from reference_calls import CALLS, answer
from reference_runs import assert_cited_as_sent

import moca_agui
from moca_agui.demo.reader import DemoReader
from support import HANDBOOK, citation_events

mcp_tools = pytest.importorskip(
    "llama_index.tools.mcp", reason="needs llama-index-tools-mcp, which nox -s tests installs"
)
REPLAY = Path(__file__).parents[1] / "reference_replay.py"


async def test_the_docs_block_cites_compact_results_through_the_same_client() -> None:
    llm = scripted_llm(
        Turn(calls=(Call("moca_search", "c1", {"query": "register hives", "limit": 2}),)),
        Turn(text="Register every apiary [1]; mind the footpaths [2]."),
    )
    names = await run_block("## LlamaIndex (llama-index-tools-mcp)", "reader.md")
    app = FastAPI()
    app.include_router(names["citing_router"](llm))
    stream = await post(app, "Do I need to register my hives?")
    (value,) = citation_events(stream)
    reader = DemoReader()
    assert value["citations"] == [
        {"marker": "[1]", "record": reader.get(HANDBOOK + "hive-registration.md")},
        {"marker": "[2]", "record": reader.get(HANDBOOK + "hive-placement.md")},
    ]


async def test_each_captured_answer_is_cited_as_the_reader_sent_it() -> None:
    server = StdioServerParameters(command=sys.executable, args=[str(REPLAY)])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()  # one Reader process, one session, every capture
        tools = await mcp_tools.McpToolSpec(client=session).to_tool_list_async()
        for capture in CALLS:
            assert_cited_as_sent(await _ask(capture, tools), capture, lookup=False)


async def _ask(capture: dict[str, Any], tools: list[Any]) -> list[dict[str, Any]]:
    llm = scripted_llm(
        Turn(calls=(Call(capture["tool"], "c1", capture["arguments"]),)), Turn(answer(capture))
    )

    async def factory() -> AGUIChatWorkflow:
        return AGUIChatWorkflow(llm=llm, backend_tools=tools, timeout=30)

    app = FastAPI()
    app.include_router(get_ag_ui_workflow_router(workflow_factory=moca_agui.instrument(factory)))
    return await post(app)
