"""The "Connecting a real Reader" docs page's block for the bare AG-UI SDK, run as written:
the agent reaches the demo Reader over MCP stdio through the `mcp` client, its compact
`moca_search` results become whole records through `reader_lookup` on the same session."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent
from readme_code import run_block

from moca_agui.demo.reader import DemoReader
from streams import message, run, tool_call
from support import HANDBOOK, citation_events, wire


async def run_agent(input_data: Any, session: Any) -> AsyncIterator[BaseEvent]:
    """An agent that searches the Reader (compact results, its default) and cites both."""
    arguments = {"query": "register hives", "limit": 2}
    result = await session.call_tool("moca_search", arguments)
    (content,) = result.content
    for event in run(
        tool_call("c1", "moca_search", content.text, args=json.dumps(arguments)),
        message("m1", "Register every apiary [1]; mind the footpaths [2]."),
    ):
        yield event


async def test_the_docs_block_cites_compact_results_through_the_same_session() -> None:
    sent: list[BaseEvent] = []
    names = await run_block("## The bare AG-UI SDK (the `mcp` client)", "reader.md")
    await names["answer"](run_agent, None, sent.append)
    events = [wire(event) for event in sent]
    (search,) = [e for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert all("node" not in r for r in json.loads(search["content"])["results"])  # compact
    (value,) = citation_events(events)
    reader = DemoReader()
    assert value["citations"] == [
        {"marker": "[1]", "record": reader.get(HANDBOOK + "hive-registration.md")},
        {"marker": "[2]", "record": reader.get(HANDBOOK + "hive-placement.md")},
    ]
