"""`moca_agui.numbered` on Agent Framework tools: the model reads each source beside its
run-wide marker, and the event's markers are those numbers.

The streams pass ag-ui-validate and both schemas, and `moca-agui check` (which reads the
numbered view) where the wire carries it as sent; a tool's own result parser that turns it
into prose leaves the checker nothing to read, so that stream is checked for grammar only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from af_support import (
    A,
    B,
    Reader,
    assert_passes_every_check,
    call,
    chat_agent,
    cited,
    needs_mcp_2_client,
    post,
    say,
    scripted,
)
from agent_framework import Content, FunctionTool, MCPStdioTool, Message, tool

import moca_agui
from moca_agui.demo.frameworks.agent_framework import ScriptedChatClient
from moca_agui.demo.reader import DemoReader
from support import assert_valid_stream, citation_events, types


def shown_markers(stream: list[dict[str, Any]]) -> list[list[tuple[str, str]]]:
    """(marker, path) of each source the model read, per TOOL_CALL_RESULT."""
    return [
        [(r["marker"], r["result"]["node"]["path"]) for r in json.loads(e["content"])["results"]]
        for e in stream
        if e["type"] == "TOOL_CALL_RESULT"
    ]


@pytest.mark.parametrize("kind", ["function tools", "plain functions"])
async def test_numbered_tools_show_the_model_the_markers_the_event_uses(kind: str):
    reader = Reader(A, B)
    plain = [reader.moca_search, reader.moca_get_node]
    tools = moca_agui.numbered(reader.tools if kind == "function tools" else plain)
    assert all(isinstance(t, FunctionTool) for t in tools) == (kind == "function tools")
    model = scripted(
        [
            [call("moca_get_node", "c1", node_id="https://example.com/moca/test-kb@1.0.0#b.md")],
            [call("moca_search", "c2", query="a.md b.md")],  # B again: it keeps [1]
            [say("Shipping [1], refunds [2].")],
        ]
    )
    stream = await post(cited(chat_agent(model, *tools)), "q")
    assert_passes_every_check(stream)
    assert shown_markers(stream) == [[("[1]", "b.md")], [("[2]", "a.md"), ("[1]", "b.md")]]
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": B}, {"marker": "[2]", "record": A}]
    assert types(stream)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]


async def test_a_numbered_tool_keeps_its_own_result_parser_and_the_original_is_untouched():
    @tool(name="moca_get_node", result_parser=lambda value: f"Reader says: {value}")
    def get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record."""
        return A

    [numbered] = moca_agui.numbered([get_node])
    assert numbered is not get_node and get_node.result_parser is not numbered.result_parser
    model = scripted([[call("moca_get_node", node_id="x")], [say("Refunds [1].")]])
    stream = await post(cited(chat_agent(model, numbered)), "q")
    assert_valid_stream(stream)
    [result] = [e["content"] for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert result.startswith('Reader says: {"results": [{"marker": "[1]"')
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]


def test_an_mcp_tool_itself_is_not_numbered_and_says_so():
    mcp = MCPStdioTool(name="reader", command="python", load_tools=False)
    with pytest.raises(TypeError, match="cannot number"):
        moca_agui.numbered(mcp)


@needs_mcp_2_client
async def test_an_mcp_tools_functions_are_numbered_and_the_model_reads_the_numbers():
    seen: list[str] = []

    def play(messages: Sequence[Message]) -> list[Content]:
        results = [c for m in messages for c in m.contents if c.type == "function_result"]
        if not results:
            return [call("moca_search", query="register hives", detail="full", limit=2)]
        seen.extend(str(c.result) for c in results)
        return [say("Register first [1]; footpaths [2].")]

    reader = MCPStdioTool(
        name="moca-reader", command=sys.executable, args=["-m", "moca_agui.demo.reader"]
    )
    async with reader:
        tools = moca_agui.numbered(list(reader.functions))
        stream = await post(cited(chat_agent(ScriptedChatClient(play), *tools)), "q")
    assert_passes_every_check(stream)
    [shown] = seen  # what the model read: each record beside its marker
    first, second = DemoReader().moca_search("register hives", 2, "full")["results"]
    assert [r["marker"] for r in json.loads(shown)["results"]] == ["[1]", "[2]"]
    [value] = citation_events(stream)
    assert value["citations"] == [
        {"marker": "[1]", "record": first},
        {"marker": "[2]", "record": second},
    ]
