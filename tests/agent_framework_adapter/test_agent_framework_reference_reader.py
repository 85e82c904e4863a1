"""The reference Reader's captured answers, served over MCP stdio as it sent them, reach
the adapter through Agent Framework's own `MCPStdioTool`: records are cited byte for byte
as sent (`text` dropped only when asked), compact results only through a lookup, errors
and a tool that is no Reader tool never."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from af_support import call, chat_agent, cited, needs_mcp_2_client, post, say, scripted
from agent_framework import MCPStdioTool, tool
from reference_runs import (
    CONTROL,
    OPTIONS,
    WITH_OTHER,
    assert_cited_as_sent,
    assert_control_cites_other,
    script,
    web_search,
)

from support import Call, assert_valid_stream

pytestmark = needs_mcp_2_client

REPLAY = Path(__file__).parents[1] / "reference_replay.py"


@pytest.fixture
async def tools() -> AsyncIterator[list[Any]]:
    """The replayed Reader over MCP stdio (one process for the test), and a tool that is
    no Reader tool."""
    reader = MCPStdioTool(name="reference-reader", command=sys.executable, args=[str(REPLAY)])
    async with reader:
        yield [reader, tool(web_search)]


def played(turns: list[list[Call | str]]) -> Any:
    """The framework's scripted chat client playing `reference_runs.script`."""
    return scripted(
        [
            [call(s.name, s.id, **s.args) if isinstance(s, Call) else say(s) for s in turn]
            for turn in turns
        ]
    )


@pytest.mark.parametrize("options", list(OPTIONS))
async def test_each_captured_answer_is_cited_as_the_reader_sent_it(
    tools: list[Any], options: str
) -> None:
    cite, expect, captures = OPTIONS[options]
    for capture in captures:
        stream = await post(cited(chat_agent(played(script(capture)), *tools), **cite), "q")
        assert_valid_stream(stream)
        assert_cited_as_sent(stream, capture, **expect)


async def test_the_other_tools_record_is_cited_once_it_counts_as_a_reader_tool(
    tools: list[Any],
) -> None:
    agent = chat_agent(played(script(CONTROL)), *tools)
    stream = await post(cited(agent, reader_tools=WITH_OTHER), "q")
    assert_valid_stream(stream)
    assert_control_cites_other(stream)
