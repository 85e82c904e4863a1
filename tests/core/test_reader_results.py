"""Reader results as the reference Reader really sends them (tests/data/reference-reader,
captured over MCP): as JSON, as `mcp` 2.x result objects and as TOOL_CALL_RESULT text."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from contract import CAPTURES
from mcp.types import CallToolResult

import moca_agui
from moca_agui.adapter import CompactResult
from moca_agui.records.extract import reader_items
from streams import message, run, source, tool_call
from support import citation_events, collect

LOGGER = "moca_agui"


def captured(name: str) -> dict[str, Any]:
    """One captured call: `{"tool", "arguments", "result"}`; `result` the CallToolResult."""
    value: dict[str, Any] = json.loads((CAPTURES / name).read_text(encoding="utf-8"))
    return value


def as_object(name: str, **changes: Any) -> CallToolResult:
    """The captured result as the `mcp` 2.x client returns it (a pydantic object)."""
    return CallToolResult.model_validate(captured(name)["result"]).model_copy(update=changes)


def payload(name: str) -> Any:
    """The JSON the Reader wrote in its one text content item."""
    return json.loads(captured(name)["result"]["content"][0]["text"])


def refs(name: str) -> list[str]:
    body = payload(name)
    listed = body.get("results", body.get("result")) if "node" not in body else [body]
    return [item.get("ref") or item["node"]["ref"] for item in listed]


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno >= 30]


RECORD_FILES = [
    "search_full.json",
    "search_full_limit1.json",
    "get_node_refund_ref.json",
    "get_node_refund_id.json",
    "get_node_refund_fr.json",
    "get_node_shipping_ref.json",
    "get_node_deletion_ref.json",
    "sc_structure_nodes_full.json",
]
COMPACT_FILES = [
    "search_compact.json",
    "search_compact_delete.json",
    "sc_structure_nodes_compact.json",
]
NOTHING_FILES = [
    "get_node_missing.json",
    "search_bad_args.json",
    "structure_concept.json",
    "structure_nodes.json",
    "structure_sequence.json",
    "sc_structure_concept.json",
    "sc_structure_requires.json",
    "list_packages.json",
]


@pytest.mark.parametrize("name", RECORD_FILES + COMPACT_FILES + NOTHING_FILES)
def test_every_capture_reads_alike_as_json_object_and_text(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    result = captured(name)["result"]
    as_json = reader_items(result)
    assert reader_items(as_object(name)) == as_json
    assert reader_items(json.dumps(result)) == as_json
    if name in RECORD_FILES:
        assert [item["node"]["ref"] for item in as_json] == refs(name)  # type: ignore[index]
    elif name in COMPACT_FILES:
        assert as_json == [CompactResult(ref) for ref in refs(name)]
        assert [c.result for c in as_json] == payload(name).get(  # type: ignore[union-attr]
            "results", payload(name).get("result")
        )
    else:
        assert as_json == []
    assert warnings(caplog) == []


def test_an_mcp_2_error_result_counts_nothing_whatever_it_holds() -> None:
    """mcp 2.x names the flag `is_error`: an error result holding a record is no source."""
    assert reader_items(as_object("get_node_refund_ref.json")) != []
    assert reader_items(as_object("get_node_refund_ref.json", is_error=True)) == []
    flagged = {**captured("get_node_refund_ref.json")["result"], "isError": True}
    assert reader_items(flagged) == []


@pytest.mark.parametrize(
    "form",
    [
        lambda: as_object("search_bad_args.json"),
        lambda: captured("search_bad_args.json")["result"],
        lambda: captured("search_bad_args.json")["result"]["content"],  # the parts alone
        lambda: captured("search_bad_args.json")["result"]["content"][0]["text"],  # its text
    ],
    ids=["object", "json", "parts", "text"],
)
def test_a_non_json_error_text_is_a_debug_line(form: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    assert reader_items(form()) == []
    assert warnings(caplog) == []
    (line,) = [r for r in caplog.records if r.name == LOGGER]
    assert line.levelno == logging.DEBUG
    assert "the Reader answered an error: MCP error -32602" in line.getMessage()


async def test_each_compact_result_left_out_is_named_once_with_the_tool_that_returned_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    search, structure = refs("search_compact.json"), refs("sc_structure_nodes_compact.json")
    events = run(
        tool_call("c1", "moca_search", captured("search_compact.json")["result"]),
        tool_call("c2", "moca_structure", captured("sc_structure_nodes_compact.json")["result"]),
        message("m1", f"See [1], [2] and {structure[0]}."),
        message("m2", "Again [1] and [2] [3]."),
    )
    values = citation_events(await collect(moca_agui.cite(source(events))))
    assert [v["citations"] for v in values] == [[], []]
    assert sorted(warnings(caplog)) == sorted(
        [
            f"moca_agui: left out {ref}: {tool} returned a compact result, not a citation "
            f'record; call {tool} with detail: "full", or pass lookup=<ref -> record> to '
            "moca_agui"
            for ref, tool in [
                (search[0], "moca_search"),
                (search[1], "moca_search"),
                (structure[0], "moca_structure"),
            ]
        ]
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [("“", "”"), ("‘", "’"), ("«", "»"), ("« ", " »"), ("（", "）"), ("„", "“"), ("「", "」")],  # noqa: RUF001
    ids=["double", "single", "guillemets", "french-spaced", "full-width", "german", "cjk"],
)
async def test_refs_in_typographic_quotes_and_brackets_are_found(before: str, after: str) -> None:
    (refund,) = refs("get_node_refund_ref.json")
    (shipping,) = refs("get_node_shipping_ref.json")
    events = run(
        tool_call("c1", "moca_get_node", captured("get_node_refund_ref.json")["result"]),
        tool_call("c2", "moca_get_node", captured("get_node_shipping_ref.json")["result"]),
        message("m1", f"Refunds: {before}{refund}{after}, shipping: {before}{shipping}{after}."),
    )
    [value] = citation_events(await collect(moca_agui.cite(source(events))))
    assert [c["record"]["node"]["ref"] for c in value["citations"]] == [refund, shipping]
    assert value["citations"][0]["record"] == payload("get_node_refund_ref.json")
