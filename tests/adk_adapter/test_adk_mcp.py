"""A Reader reached the way the reference Reader is deployed: an MCP server, over stdio.

The server is the demo Reader (`python -m moca_agui.demo.reader`), a real subprocess
speaking MCP; the agent reaches it through ADK's `McpToolset`, and the endpoint serves
the run over HTTP.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator

import pytest
from adk_support import Call, adk_agent, answer_ids, endpoint, kinds, llm_agent, post
from google.adk.tools.mcp_tool.mcp_session_manager import StdioConnectionParams
from google.adk.tools.mcp_tool.mcp_toolset import McpToolset
from mcp import StdioServerParameters

import moca_agui
from moca_agui.demo.reader import DemoReader
from support import citation_events

pytestmark = pytest.mark.filterwarnings("ignore:\\[EXPERIMENTAL\\]:UserWarning")

TOOL_CALL = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
MISSING = HANDBOOK + "no-such-node.md"


@pytest.fixture
async def reader() -> AsyncIterator[McpToolset]:
    """The demo Reader over MCP stdio, one subprocess for the test."""
    server = StdioServerParameters(command=sys.executable, args=["-m", "moca_agui.demo.reader"])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=server, timeout=30))
    yield toolset
    await toolset.close()


async def test_records_from_an_mcp_reader_are_cited_exactly_as_it_sent_them(reader):
    query = {"query": "register hives", "limit": 3, "detail": "full"}
    script = [
        [Call("moca_search", query, "c1")],
        [Call("moca_get_node", {"node_id": MISSING}, "c2")],  # an MCP error: no source
        [f"Register [1]; see also {HANDBOOK}hive-placement.md, not {MISSING}."],
    ]
    stream = await post(endpoint(moca_agui.instrument(adk_agent(llm_agent(script, reader)))), "q")
    assert kinds(stream) == [
        "RUN_STARTED",
        *TOOL_CALL,
        *TOOL_CALL,
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STATE_SNAPSHOT",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    returned = {r["node"]["ref"]: r for r in DemoReader().moca_search(**query)["results"]}
    assert [c.get("marker") for c in value["citations"]] == ["[1]", None]
    assert [c["record"] for c in value["citations"]] == [
        returned[HANDBOOK + "hive-registration.md"],
        returned[HANDBOOK + "hive-placement.md"],
    ]
