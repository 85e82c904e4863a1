"""A scripted model's side of markers: the numbers it writes come from what it was shown.

A model writes `[n]` for the n-th source its thread showed it (a source shown again keeps
its number), or the marker a numbered tool showed beside it. `markers_shown` reads that
off the tool results of the thread the model was given, so a test model built on it
writes the markers its own thread gives: a run that numbers another thread (a discarded
branch, the client's order instead of the model's) shows as a citation of the wrong node.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping
from typing import Any

from support import record

A, B, C, D = record("a.md"), record("b.md"), record("c.md"), record("d.md")
NODES = {r["node"]["path"]: r for r in (A, B, C, D)}

#: Which Reader tool results the model numbers (the reference Reader's tools).
READER_TOOLS = {"moca_search", "moca_get_node"}


def markers_shown(results: Iterable[object]) -> dict[str, str]:
    """node path -> the marker the model reads for it, from the Reader tool results it was
    shown (their contents: values, JSON or Python repr text), in the order shown."""
    markers: dict[str, str] = {}
    for content in results:
        for marker, entry in _entries(_value(content)):
            path = entry.get("node", {}).get("path")
            if path and path not in markers:
                markers[path] = marker or f"[{len(markers) + 1}]"
    return markers


def answer(paths: Iterable[str], shown: Mapping[str, str]) -> str:
    """The answer citing `paths`, each by the marker the model was shown for it."""
    return "; ".join(f"{path} {shown[path]}" for path in paths) + "."


def get(path: str) -> dict[str, Any]:
    """The Reader's `moca_get_node` over A, B, C, D, by path."""
    return NODES[path]


def _value(content: object) -> object:
    if not isinstance(content, str):
        return content
    try:
        return json.loads(content)
    except ValueError:
        return ast.literal_eval(content)


def _entries(value: object) -> list[tuple[str | None, dict[str, Any]]]:
    """(the marker shown beside it, or None) and each source of one tool result."""
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("results"), list):
        return [
            (item["marker"], item["result"]) if "marker" in item else (None, item)
            for item in value["results"]
            if isinstance(item, dict)
        ]
    return [(None, value)] if "node" in value else []
