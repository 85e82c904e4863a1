"""The reference Reader's captured answers (`tests/data/reference-reader/`), read at test
time, and what citing each one must give: the records it holds, exactly as sent; nothing
for a compact result (unless a lookup finds the record), an error or a structure item.
(`reference_runs` replays them through a framework's agent.)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from reference_replay import captures

import moca_agui

#: The Reader tool calls (moca_list_packages is not a Reader tool), by capture.
CALLS = [capture for capture in captures() if capture["tool"] in moca_agui.DEFAULT_READER_TOOLS]
IDS = [f"{c['tool']}-{json.dumps(c['arguments'], sort_keys=True)}" for c in CALLS]


def reference_calls() -> Any:
    """`@reference_calls()`: a test parametrized with each captured Reader call."""
    return pytest.mark.parametrize("capture", CALLS, ids=IDS)


def result_json(capture: dict[str, Any]) -> Any:
    """The JSON in the result's one text item; None for an error that is not JSON."""
    (item,) = capture["result"]["content"]
    try:
        return json.loads(item["text"])
    except ValueError:
        return None


def items(capture: dict[str, Any]) -> list[dict[str, Any]]:
    """The records and compact results the result lists, in order."""
    value = result_json(capture)
    if capture["result"]["isError"] or not isinstance(value, dict):
        return []
    if "node" in value:  # moca_get_node
        return [value]
    listed = value.get("results", value.get("result"))
    return [item for item in listed or [] if isinstance(item, dict) and "iri" not in item]


def ref_of(item: dict[str, Any]) -> str:
    return str(item["node"]["ref"] if "node" in item else item["ref"])


def answer(capture: dict[str, Any]) -> str:
    """An answer that cites every node of the result by its versioned ref."""
    refs = [ref_of(item) for item in items(capture)]
    return "From the knowledge base: " + "; ".join(refs) + " (end)." if refs else "Nothing found."


def records(capture: dict[str, Any]) -> list[dict[str, Any]]:
    """The whole records of the result, as the Reader sent them."""
    return [item for item in items(capture) if "node" in item]


def by_get_node(ref: str) -> dict[str, Any] | None:
    """The captured `moca_get_node` result for `ref` (no locale), or None."""
    for capture in CALLS:
        if capture["tool"] == "moca_get_node" and capture["arguments"] == {"node_id": ref}:
            return dict(capture["result"])
    return None


def expected(
    capture: dict[str, Any], *, lookup: bool, include_text: bool = True
) -> list[dict[str, Any]]:
    """The `citations` of the answer's event: each node's whole record, in order; a compact
    result only when `lookup` asks the captured `moca_get_node` for its record. Without
    `include_text`, each record without its `text` and nothing else changed."""
    cited = []
    for item in items(capture):
        if "node" in item:
            cited.append(item)
        elif lookup and (found := by_get_node(item["ref"])) is not None:
            cited.append(json.loads(found["content"][0]["text"]))
    return [
        {"record": rec if include_text else {k: v for k, v in rec.items() if k != "text"}}
        for rec in cited
    ]


#: A `lookup` that asks the captured reference Reader, through `moca_agui.reader_lookup`.
LOOKUP = moca_agui.reader_lookup(by_get_node)


def named(name: str) -> dict[str, Any]:
    """The capture in `tests/data/reference-reader/<name>.json`."""
    from contract import CAPTURES

    capture: dict[str, Any] = json.loads((CAPTURES / f"{name}.json").read_text(encoding="utf-8"))
    return capture


#: The captures whose results are compact: their records come only through a lookup.
COMPACT = ["search_compact", "search_compact_delete", "sc_structure_nodes_compact"]
