"""The reference Reader's captured answers, served over MCP stdio as it sent them, reach
the adapter through Strands' own `MCPClient`: records are cited byte for byte as sent
(`text` dropped only when asked), compact results only through a lookup, errors and a
tool that is no Reader tool never."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters, stdio_client
from reference_runs import (
    CONTROL,
    OPTIONS,
    WITH_OTHER,
    assert_cited_as_sent,
    assert_control_cites_other,
    script,
    web_search,
)
from strands import tool
from strands.tools.mcp import MCPClient
from strands_support import ScriptedModel, app_for, post, strands_agent

import moca_agui

REPLAY = Path(__file__).parents[1] / "reference_replay.py"


@pytest.fixture(scope="module")
def tools() -> Iterator[list[Any]]:
    """The replayed Reader's tools over MCP stdio (one process for the module), and a
    tool that is no Reader tool."""
    server = StdioServerParameters(command=sys.executable, args=[str(REPLAY)])
    with MCPClient(lambda: stdio_client(server)) as client:
        yield [*client.list_tools_sync(), tool(web_search)]


@pytest.mark.parametrize("options", list(OPTIONS))
async def test_each_captured_answer_is_cited_as_the_reader_sent_it(
    tools: list[Any], options: str
) -> None:
    cite, expect, captures = OPTIONS[options]
    for capture in captures:
        agent = strands_agent(ScriptedModel(script(capture)), tools)
        stream = await post(app_for(moca_agui.instrument(agent, **cite)), "q")
        assert_cited_as_sent(stream, capture, **expect)


async def test_the_other_tools_record_is_cited_once_it_counts_as_a_reader_tool(
    tools: list[Any],
) -> None:
    agent = strands_agent(ScriptedModel(script(CONTROL)), tools)
    app = app_for(moca_agui.instrument(agent, reader_tools=WITH_OTHER))
    assert_control_cites_other(await post(app, "q", readers=WITH_OTHER))
