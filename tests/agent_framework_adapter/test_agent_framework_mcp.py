"""A Reader reached the way the reference Reader is deployed: an MCP server.

The server is the demo Reader (`python -m moca_agui.demo.reader`), a real subprocess
speaking MCP over stdio; the agent reaches it through Agent Framework's own
`MCPStdioTool`, and the endpoint serves the run over HTTP. The MCP tool's
TOOL_CALL_RESULT is the framework's host payload (the whole MCP result); records are read
from the tool's own result. A provider-hosted MCP tool (the model service calls the
server itself) is played by the chat client: its call and output contents.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator

import pytest
from af_support import (
    answer_ids,
    assert_passes_every_check,
    call,
    chat_agent,
    cited,
    events_of,
    needs_mcp_2_client,
    post,
    post_raw,
    say,
    scripted,
    snapshot_answers,
)
from agent_framework import Content, MCPStdioTool
from readme_code import run_block

from moca_agui.demo.frameworks.agent_framework import endpoint_options
from moca_agui.demo.reader import DemoReader
from support import citation_events, types

MISSING = "https://example.org/moca/fernhollow-apiary@3.0.0#no-such-node.md"
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
HANDBOOK_REF = HANDBOOK + "hive-registration.md"


@pytest.fixture
async def reader() -> AsyncIterator[MCPStdioTool]:
    tool = MCPStdioTool(
        name="moca-reader", command=sys.executable, args=["-m", "moca_agui.demo.reader"]
    )
    async with tool:
        yield tool


@needs_mcp_2_client
async def test_records_from_an_mcp_reader_are_cited_exactly_as_it_sent_them(reader):
    search = {"query": "register hives", "limit": 3, "detail": "full"}
    model = scripted(
        [
            [call("moca_search", "c1", **search), call("moca_get_node", "c2", node_id=MISSING)],
            [say(f"Register first [1]; keep eight metres from footpaths [2]; not {MISSING}.")],
        ]
    )
    body = await post_raw(cited(chat_agent(model, reader)), "Do I need to register my hives?")
    stream = events_of(body)
    assert_passes_every_check(stream)
    assert types(stream) == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        *["TOOL_CALL_START", "TOOL_CALL_ARGS"] * 2,
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",  # the miss: isError, so no source
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    [value] = citation_events(stream)
    [answer] = answer_ids(stream)
    assert value["messageId"] == answer and answer in snapshot_answers(stream)
    first, second = DemoReader().moca_search(**search)["results"][:2]
    assert value["citations"] == [
        {"marker": "[1]", "record": first},
        {"marker": "[2]", "record": second},
    ]
    for citation in value["citations"]:  # as the Reader wrote it, key for key
        sent = json.dumps(citation["record"], ensure_ascii=False, separators=(",", ":"))
        assert sent in body


async def test_a_provider_hosted_mcp_readers_results_are_cited():
    """A model service that calls a remote MCP Reader itself (a hosted MCP tool) streams
    the call and its output in one response; no local tool runs."""
    record = DemoReader().moca_get_node(HANDBOOK_REF)
    reader_text = json.dumps(record, indent=2, ensure_ascii=False)
    model = scripted(
        [
            [
                Content.from_mcp_server_tool_call(
                    "m1", "moca_get_node", server_name="moca", arguments={"node_id": HANDBOOK_REF}
                ),
                Content.from_mcp_server_tool_result("m1", output=[Content.from_text(reader_text)]),
                Content.from_mcp_server_tool_call(
                    "m2", "moca_get_node", server_name="moca", arguments={"node_id": MISSING}
                ),
                Content.from_mcp_server_tool_result(
                    "m2", output=[Content.from_text(json.dumps({"error": f"no node {MISSING}"}))]
                ),
                say(f"Register first [1]; not {MISSING}."),
            ]
        ]
    )
    stream = events_of(await post_raw(cited(chat_agent(model)), "q"))
    assert_passes_every_check(stream)
    assert types(stream)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"marker": "[1]", "record": record}]


@needs_mcp_2_client
async def test_the_docs_block_connecting_a_real_reader_cites_compact_results():
    if not endpoint_options():
        pytest.skip(
            "this agent-framework-ag-ui takes no single_user argument; the newest does: "
            "nox -s tests-agent-framework(newest)"
        )
    model = scripted(
        [
            [call("moca_search", query="register hives", limit=2)],  # compact, its default
            [say("Register every apiary [1]; mind the footpaths [2].")],
        ]
    )
    names = await run_block("## Microsoft Agent Framework (`MCPStdioTool`)", "reader.md")
    app = names["citing_app"](model)
    async with app.router.lifespan_context(app):  # the Reader connected, closed after
        stream = await post(app, "q")
    assert_passes_every_check(stream)
    [value] = citation_events(stream)
    reader = DemoReader()
    assert value["citations"] == [
        {"marker": "[1]", "record": reader.get(HANDBOOK + "hive-registration.md")},
        {"marker": "[2]", "record": reader.get(HANDBOOK + "hive-placement.md")},
    ]
