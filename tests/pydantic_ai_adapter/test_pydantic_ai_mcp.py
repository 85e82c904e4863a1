"""A Reader reached the way the reference Reader is deployed: an MCP server, over stdio.

The server (`pai_mcp_reader.py`) is a real subprocess speaking MCP; the agent reaches it
through Pydantic AI's `MCPToolset`, and the app serves the run over HTTP.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp.client.transports import PythonStdioTransport
from pai_support import A, B, Call, agent, answer_ids, empty_message_ids, kinds, run_both, scripted
from pydantic_ai.mcp import MCPToolset

from support import citation_events, ref

SERVER = Path(__file__).with_name("pai_mcp_reader.py")
TOOL_CALL = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]


@pytest.fixture
def reader(tmp_path: Path) -> MCPToolset[Any]:
    """The MCP Reader over A and B, started as a subprocess for each run."""
    records = tmp_path / "records.json"
    records.write_text(json.dumps([A, B]), encoding="utf-8")
    transport = PythonStdioTransport(SERVER, args=[str(records)], python_cmd=sys.executable)
    return MCPToolset(transport)


async def test_records_from_an_mcp_reader_are_cited_exactly_as_it_sent_them(reader):
    model = scripted(
        [
            [Call("moca_search", {"query": "a.md", "detail": "full"})],
            [
                Call("moca_get_node", {"node_id": ref(B)}, "c2"),
                Call("moca_get_node", {"node_id": "https://example.com/nowhere"}, "c3"),
            ],
            [f"Refunds [1]; shipping {ref(B)}; nothing at https://example.com/nowhere."],
        ]
    )
    stream = await run_both(agent(model, toolsets=[reader]), "q")
    assert kinds(stream) == [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_END",
        *TOOL_CALL,
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_END",
        *TOOL_CALL[:3],
        *TOOL_CALL[:3],
        "TOOL_CALL_RESULT",
        "TOOL_CALL_RESULT",  # the miss: isError, a retry for the model, no source
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    assert len(empty_message_ids(stream)) == 2  # the two tool-only responses: no event
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [
        {"marker": "[1]", "record": {**A, "score": 1.0}},
        {"record": B},
    ]


async def test_compact_mcp_search_results_are_resolved_through_the_lookup(reader):
    def lookup(node_ref: str) -> dict[str, Any] | None:
        return {ref(A): A, ref(B): B}.get(node_ref)

    model = scripted(
        [
            [Call("moca_structure", {"op": "nodes", "iri": "urn:concept:refunds"})],
            [f"{ref(B)} first, then [1]."],
        ]
    )
    stream = await run_both(agent(model, toolsets=[reader]), "q", lookup=lookup)
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": B}, {"marker": "[1]", "record": A}]


@pytest.mark.parametrize("named", [False, True])
async def test_a_prefixed_mcp_reader_counts_once_its_tool_names_are_given(reader, named):
    model = scripted([[Call("kb_moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]])
    options = {"reader_tools": ["kb_moca_get_node"]} if named else {}
    stream = await run_both(agent(model, toolsets=[reader.prefixed("kb")]), "q", **options)
    [value] = citation_events(stream)
    assert value["citations"] == ([{"record": A}] if named else [])
