"""The Reader result shapes the core recognises (`moca_agui.records.extract.reader_items`)."""

from __future__ import annotations

import json

import pytest
from ag_ui.core import TextMessageChunkEvent, ToolCallResultEvent, ToolCallStartEvent

import moca_agui
from moca_agui.adapter import CompactResult
from moca_agui.records.extract import reader_items
from streams import run, source
from support import citation_events, collect, record, ref

A, B = record("a.md"), record("b.md")


def mcp_text(value):
    return [{"type": "text", "text": json.dumps(value, indent=2)}]


class Node:
    """A retriever node the way the MOCA LlamaIndex retriever hands records over."""

    def __init__(self, citation):
        self.metadata = {"moca_citation": citation, "file_name": "a.md"}


class McpText:
    type = "text"

    def __init__(self, text):
        self.text = text


class McpResult:
    def __init__(self, content, is_error=False):
        self.content, self.isError = content, is_error


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (A, [A]),
        ([A, B], [A, B]),
        (json.dumps([A, B]), [A, B]),
        ({"query": "q", "results": [A, B]}, [A, B]),
        ({"query": "q", "results": [{"ref": ref(A), "title": "A"}]}, [CompactResult(ref(A))]),
        ({"op": "nodes", "iri": "x:c", "result": [B, {"ref": ref(A)}]}, [B, CompactResult(ref(A))]),
        ({"op": "concept", "iri": "x:c", "result": [{"iri": "x:c", "label": "C"}]}, []),
        ({"op": "concept", "iri": "x:c", "result": {"iri": "x:c"}}, []),
        (mcp_text({"query": "q", "results": [A]}), [A]),
        ({"content": mcp_text(B)}, [B]),
        ({"content": mcp_text({"error": "no node"}), "isError": True}, []),
        ({"error": "no node x"}, []),
        ([Node(A), Node(json.dumps(B))], [A, B]),
        (Node(A), [A]),
        (McpResult([McpText(json.dumps(A))]), [A]),
        (McpResult([McpText(json.dumps({"error": "x"}))], is_error=True), []),
        ([McpText(json.dumps(B))], [B]),
        (json.dumps(A).encode(), [A]),
        ({"result": json.dumps({"query": "q", "results": [A]})}, [A]),
        ({"result": [B, "not a record"]}, [B]),
        ({"unrelated": 1}, []),
        (42, []),
    ],
    ids=[
        "record", "list", "json-list", "search-full", "search-compact", "structure-nodes",
        "structure-concepts", "structure-single", "mcp-text", "mcp-result", "mcp-error",
        "get-node-error", "retriever-nodes", "retriever-node", "mcp-objects", "mcp-object-error",
        "text-part-objects",
        "bytes", "wrapped-json", "wrapped-list", "unrelated", "number",
    ],
)  # fmt: skip
def test_reader_shapes(result, expected):
    assert reader_items(result) == expected


@pytest.mark.parametrize(
    "result",
    ['{"query": "q", "results": [', '{"score": NaN}', "[" * 100_000 + "]" * 100_000],
    ids=["truncated", "nan", "deep"],
)
def test_unreadable_results_raise_value_error(result):
    with pytest.raises(ValueError):
        reader_items(result)


async def test_ag_ui_1x_content_parts_are_read():
    import ag_ui.core

    if not hasattr(ag_ui.core, "TextPart"):
        pytest.skip("content parts exist from ag-ui-protocol 1.0 on: nox -s tests")
    TextPart = ag_ui.core.TextPart

    events = run(
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="moca_get_node"),
        ToolCallResultEvent(
            message_id="t1", tool_call_id="c1", content=[TextPart(text=json.dumps(A))]
        ),
        TextMessageChunkEvent(message_id="m1", role="assistant", delta=ref(A)),
    )
    [value] = citation_events(await collect(moca_agui.cite(source(events))))
    assert value["citations"] == [{"record": A}]
