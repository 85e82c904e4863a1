"""A Reader reached the way the reference Reader is deployed: an MCP server, over stdio.

The server is the demo Reader (`python -m moca_agui.demo.reader`), a real subprocess
speaking MCP; the agent reaches it through Strands' own `MCPClient`, and the app serves
the run over HTTP.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import StdioServerParameters, stdio_client
from strands.tools.mcp import MCPClient
from strands_support import (
    Call,
    CopyingModel,
    ScriptedModel,
    app_for,
    kinds,
    post,
    run_both,
    strands_agent,
)

import moca_agui
from support import citation_events

HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
MISSING = "https://example.org/moca/fernhollow-apiary@3.0.0#no-such-node.md"
TOOL_CALL = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]


@pytest.fixture(scope="module")
def mcp_tools() -> Iterator[list[Any]]:
    """The demo Reader's tools, over MCP stdio, for the module's tests."""
    server = StdioServerParameters(command=sys.executable, args=["-m", "moca_agui.demo.reader"])
    with MCPClient(lambda: stdio_client(server)) as client:
        yield client.list_tools_sync()


async def test_records_from_an_mcp_reader_are_cited_exactly_as_it_sent_them(
    mcp_tools: list[Any],
) -> None:
    search = {"query": "register hives", "limit": 3, "detail": "full"}
    script = [
        [Call("moca_search", search, "c1")],
        [Call("moca_get_node", {"node_id": MISSING}, "c2")],
        [f"Register before 1 April [1]; mind the footpath [2]; not {MISSING} [9]."],
    ]
    stream = await run_both(lambda: strands_agent(ScriptedModel(script), mcp_tools), "q")
    assert kinds(stream) == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        *TOOL_CALL,
        "MESSAGES_SNAPSHOT",
        "TOOL_CALL_RESULT",
        "MESSAGES_SNAPSHOT",
        *TOOL_CALL,
        "MESSAGES_SNAPSHOT",
        "TOOL_CALL_RESULT",  # the miss: isError, no source
        "MESSAGES_SNAPSHOT",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT",
        "STATE_SNAPSHOT",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    results = {e["toolCallId"]: e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"}
    sent = json.loads(results["c1"])["results"]  # what the Reader sent, as the client saw it
    assert [r["node"]["ref"] for r in sent] == [
        HANDBOOK + "hive-registration.md",
        HANDBOOK + "hive-placement.md",
    ]
    assert "error" in json.loads(results["c2"])
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": sent[0]},
        {"marker": "[2]", "record": sent[1]},
    ]


async def test_a_compact_mcp_result_is_resolved_through_the_lookup(
    mcp_tools: list[Any],
) -> None:
    from moca_agui.demo.reader import DemoReader

    reader = DemoReader()
    script = [
        [Call("moca_search", {"query": "register hives", "limit": 1}, "c1")],
        ["Register before 1 April [1]."],
    ]
    stream = await run_both(
        lambda: strands_agent(ScriptedModel(script), mcp_tools), "q", lookup=reader.get
    )
    [value] = citation_events(stream)
    [citation] = value["citations"]
    assert citation["marker"] == "[1]"
    assert citation["record"]["node"]["ref"] == HANDBOOK + "hive-registration.md"


async def test_numbered_mcp_tools_show_the_numbers_the_model_cites(mcp_tools: list[Any]) -> None:
    search = {"query": "register hives", "limit": 2, "detail": "full"}
    model = CopyingModel([Call("moca_search", search, "c1")])
    tools = moca_agui.numbered(mcp_tools)  # the one line
    app = app_for(moca_agui.instrument(strands_agent(model, tools)))
    stream = await post(app, "q")
    [content] = [e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    shown = json.loads(content)["results"]
    assert [item["marker"] for item in shown] == ["[1]", "[2]"]
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": item["marker"], "record": item["result"]} for item in shown
    ]
