"""The reference Reader's captured answers, served over MCP stdio as it sent them, reach
the adapter through Pydantic AI's own `MCPToolset`: records are cited exactly as sent,
compact results through `moca_agui.reader_lookup` on the same toolset, errors never."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from fastmcp.client.transports import PythonStdioTransport
from pai_support import Call, agent, cited, post, scripted
from pydantic_ai.mcp import MCPToolset
from reference_calls import CALLS, COMPACT, answer, expected, named
from reference_runs import assert_cited_as_sent

import moca_agui

REPLAY = Path(__file__).parents[1] / "reference_replay.py"


async def ask(
    reader: MCPToolset[Any], capture: dict[str, Any], **options: Any
) -> list[dict[str, Any]]:
    model = scripted([[Call(capture["tool"], capture["arguments"])], [answer(capture)]])
    return await post(cited(agent(model, toolsets=[reader]), **options), "q")


async def test_each_captured_answer_is_cited_as_the_reader_sent_it() -> None:
    reader = MCPToolset(PythonStdioTransport(REPLAY, python_cmd=sys.executable))
    async with reader:  # one Reader process for every capture
        for capture in CALLS:
            assert_cited_as_sent(await ask(reader, capture), capture, lookup=False)


async def test_compact_results_are_resolved_through_the_same_mcp_toolset() -> None:
    reader = MCPToolset(PythonStdioTransport(REPLAY, python_cmd=sys.executable))
    lookup = moca_agui.reader_lookup(
        lambda ref: reader.direct_call_tool("moca_get_node", {"node_id": ref})
    )
    async with reader:
        for name in COMPACT:
            capture = named(name)
            assert_cited_as_sent(await ask(reader, capture, lookup=lookup), capture, lookup=True)
    assert expected(named("search_compact"), lookup=True) != []  # the lookup found records
