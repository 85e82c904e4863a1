"""The reference Reader's captured answers, served over MCP stdio as it sent them, reach
the adapter through ADK's own `McpToolset`: records are cited byte for byte as sent
(`text` dropped only when asked), compact results only through a lookup, errors and a
tool that is no Reader tool never."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from adk_support import adk_agent, endpoint, llm_agent, post
from google.adk.tools.mcp_tool.mcp_session_manager import StdioConnectionParams
from google.adk.tools.mcp_tool.mcp_toolset import McpToolset
from mcp import StdioServerParameters
from reference_runs import (
    CONTROL,
    OPTIONS,
    WITH_OTHER,
    assert_cited_as_sent,
    assert_control_cites_other,
    script,
    web_search,
)

import moca_agui

pytestmark = pytest.mark.filterwarnings("ignore:\\[EXPERIMENTAL\\]:UserWarning")

REPLAY = Path(__file__).parents[1] / "reference_replay.py"


@pytest.fixture
async def reader() -> AsyncIterator[McpToolset]:
    """The replayed Reader over MCP stdio, one process for the test."""
    server = StdioServerParameters(command=sys.executable, args=[str(REPLAY)])
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=server, timeout=30))
    yield toolset
    await toolset.close()


@pytest.mark.parametrize("options", list(OPTIONS))
async def test_each_captured_answer_is_cited_as_the_reader_sent_it(
    reader: McpToolset, options: str
) -> None:
    cite, expect, captures = OPTIONS[options]
    for capture in captures:
        agent = adk_agent(llm_agent(script(capture), reader, web_search))
        stream = await post(endpoint(moca_agui.instrument(agent, **cite)), "q")
        assert_cited_as_sent(stream, capture, **expect)


async def test_the_other_tools_record_is_cited_once_it_counts_as_a_reader_tool(
    reader: McpToolset,
) -> None:
    agent = adk_agent(llm_agent(script(CONTROL), reader, web_search))
    app = endpoint(moca_agui.instrument(agent, reader_tools=WITH_OTHER))
    assert_control_cites_other(await post(app, "q", readers=WITH_OTHER))
