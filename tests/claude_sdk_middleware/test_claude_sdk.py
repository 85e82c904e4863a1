"""The Claude Agent SDK behind `CitationMiddleware`: the real Claude Code CLI, offline,
against a scripted Messages API on 127.0.0.1; the Reader as SDK MCP tools."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from ag_ui_claude_sdk import ClaudeAgentAdapter
from readme_code import readme_diffs

import moca_agui
from moca_agui.check import check_events, parse_stream
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import run_input
from support import HANDBOOK, assert_valid_stream, citation_events, demo_printed

QUESTION = "Do I need to register my hives?"
READERS = ["mcp__moca__moca_search", "mcp__moca__moca_get_node", "mcp__moca__moca_structure"]


def cited(stream: list[dict[str, Any]]) -> list[tuple[str, str]]:
    assert_valid_stream(stream)
    assert check_events(stream) == []
    (value,) = citation_events(stream)
    return [
        (c["marker"], c["record"]["node"]["ref"].removeprefix(HANDBOOK)) for c in value["citations"]
    ]


async def test_the_demo_app_cites_over_http() -> None:
    from moca_agui.demo.frameworks.claude_sdk import build_app

    transport = httpx.ASGITransport(app=build_app(DemoReader()))
    async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=60) as client:
        response = await client.post("/", json=run_input(QUESTION))
    assert response.status_code == 200, response.text
    stream = parse_stream(response.text)
    assert cited(stream) == [("[1]", "hive-registration.md"), ("[2]", "hive-placement.md")]
    types = [e["type"] for e in stream]
    assert types[-3:] == ["MESSAGES_SNAPSHOT", "CUSTOM", "RUN_FINISHED"]


def test_the_demo_prints_a_cited_stream() -> None:
    assert cited(demo_printed("claude-sdk", QUESTION)) == [
        ("[1]", "hive-registration.md"),
        ("[2]", "hive-placement.md"),
    ]


def test_instrument_on_the_adapter_names_the_middleware() -> None:
    with pytest.raises(TypeError, match=r"app.add_middleware\(CitationMiddleware\)"):
        moca_agui.instrument(ClaudeAgentAdapter(name="x"))


async def test_the_docs_diff_applied_gives_an_app_that_cites() -> None:
    """The page's diff as a user ends up with it, with the demo's offline options: its
    Reader as SDK MCP tools, the CLI on a scripted Messages API on 127.0.0.1."""
    from claude_agent_sdk import create_sdk_mcp_server

    from moca_agui.demo.frameworks.claude_sdk import (
        MODEL,
        SERVER,
        ScriptedMessagesAPI,
        offline_env,
        reader_tools,
    )
    from moca_agui.demo.model import next_step

    [code] = readme_diffs("The one line", "frameworks/claude-sdk.md")
    assert "app.add_middleware(CitationMiddleware)" in code
    model = ScriptedMessagesAPI(next_step)
    try:
        server = create_sdk_mcp_server(SERVER, "1.0.0", tools=reader_tools(DemoReader()))
        options = {
            "model": MODEL,
            "mcp_servers": {SERVER: server},
            "allowed_tools": READERS,
            "env": offline_env(model.url),
        }
        namespace: dict[str, Any] = {"options": options}
        exec(code, namespace)
        transport = httpx.ASGITransport(app=namespace["app"])
        async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=60) as http:
            response = await http.post("/", json=run_input(QUESTION))
    finally:
        model.close()
    assert cited(parse_stream(response.text)) == [
        ("[1]", "hive-registration.md"),
        ("[2]", "hive-placement.md"),
    ]
