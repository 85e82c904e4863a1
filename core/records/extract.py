"""Recognise what a Reader tool returned: whole records, compact search results, errors.

Knows the reference Reader's result shapes (`moca_search`, `moca_get_node`,
`moca_structure`), the MCP text-content wrapper around them, a lone `{"result": ...}`
wrapper (a tool's non-dict return, as a framework may send it on), and objects that carry a
record in `metadata["moca_citation"]`. Knows no framework.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import from_json, to_json

from .schema import WireText, looks_like_record

__all__ = [
    "MAX_RESULT_CHARS",
    "CompactResult",
    "ReaderItem",
    "ReaderItems",
    "numbered_items",
    "numbered_view",
    "parse_json",
    "reader_items",
]

logger = logging.getLogger("moca_agui")

#: A tool result longer than this is not parsed (a whole `moca_search` page is far smaller).
MAX_RESULT_CHARS = 8 * 1024 * 1024
_MAX_DEPTH = 6  # wrappers inside wrappers; real results need at most 4
#: How an MCP server words an error it raised (`McpError`): "MCP error -32602: ...".
_MCP_ERROR = re.compile(r"\s*MCP error -?\d+:")


@dataclass(frozen=True, slots=True)
class CompactResult:
    """A compact search result: it names a node (`ref`) but is not a citation record."""

    ref: str
    #: The compact result as the Reader gave it (what the model reads of it), if known.
    result: Mapping[str, Any] | None = field(default=None, compare=False)


#: One thing a Reader result holds: a candidate citation record, or a compact result.
ReaderItem = dict[str, Any] | CompactResult


def parse_json(text: str) -> Any:
    """Parse JSON strictly (no NaN or Infinity, no number out of range, no duplicated key);
    raise ValueError otherwise."""
    return _parsed_and_wire(text)[0]


def _parsed_and_wire(text: str) -> tuple[Any, WireText | None]:
    """`parse_json`, and the text as `WireText` if pydantic's parser read it: its objects
    are then plain wire JSON no one else holds. None: Python's stricter parser read it (a
    rare text), and its records are copied before they are kept."""
    if len(text) > MAX_RESULT_CHARS:
        raise ValueError(f"{len(text)} characters, over the {MAX_RESULT_CHARS} this layer parses")
    plain = _read_plain(text)
    if plain is not None:
        return plain
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            object_pairs_hook=_unique_keys,
        )
    except RecursionError:
        raise ValueError("nested too deeply") from None
    return value, None


def _read_plain(text: str) -> tuple[Any, WireText] | None:
    """`text` read by `from_json`, if that reads it as the strict parse does; None if it
    may not (the strict parse then decides, and words the error).

    `from_json` keeps the last of two equal keys, and reads 1e999 as infinity, which
    `to_json` writes `Infinity`. Every object member has one colon outside strings, and
    `to_json` writes each string it kept with the colons it had in the text (a text
    escaping one, `\\u003a`, is left to the strict parse). So as many colons and
    `Infinity`s in what it writes as in the text mean no key was dropped and no number
    overflowed. Writing it also proves every string is UTF-8.
    """
    if "\\u003" in text:  # maybe an escaped colon
        return None
    try:
        # Keys only in its process-wide string cache (bounded, and keys name fields):
        # values would keep a run's text after the run.
        value = from_json(text, allow_inf_nan=False, cache_strings="keys")
        written = to_json(value)
    except (ValueError, TypeError):  # TypeError: a lone surrogate in the str itself
        return None
    if written.count(b":") != text.count(":"):
        return None
    if b"Infinity" in written and written.count(b"Infinity") != text.count("Infinity"):
        return None
    return value, WireText(len(written))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # JavaScript reads it as Infinity, and writes that as null
        raise ValueError(f"not plain JSON: {text:.40} is out of a double's range")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Parsers differ on which of two equal keys wins: such a value reads two ways.
    value = dict(pairs)
    if len(value) != len(pairs):
        raise ValueError("duplicate key in an object; JSON parsers disagree on which one wins")
    return value


def reader_items(result: object) -> ReaderItems:
    """The records and compact results in one Reader tool result, in the order given.

    Raises ValueError for a result it cannot read (malformed JSON, too large); a Reader
    error (`{"error": ...}`, an MCP result's `isError` or `is_error`, an MCP error's text)
    and anything unrecognised give an empty list.
    """
    items = ReaderItems()
    _collect(result, items, 0)
    return items


class ReaderItems(list[ReaderItem]):
    """The items of one Reader result, and the texts its records were read from.

    A record read from a text (in `read_from`, matched by identity) is plain JSON no one
    else holds, as it is kept; any other (a Python value, or a dict a plugin put in its
    place) is to be copied before it is kept. `wire` is the text being read, while it is
    read.
    """

    __slots__ = ("read_from", "wire")

    def __init__(self) -> None:
        super().__init__()
        #: id(record) -> the record and the text it was read from.
        self.read_from: dict[int, tuple[dict[str, Any], WireText]] = {}
        self.wire: WireText | None = None

    def add_record(self, value: dict[str, Any], wire: WireText | None) -> None:
        """A candidate record, as read from `wire` if it was (None: a value to copy)."""
        if wire is None:
            self.append(dict(value))
        else:
            self.read_from[id(value)] = (value, wire)
            self.append(value)


def numbered_view(result: object) -> list[tuple[str | None, object]] | None:
    """Each entry of a numbered result (what `moca_agui.numbered` showed the model): its
    marker (None: it names no node) and the Reader's result beside it; None if `result`
    is not one."""
    try:
        value = parse_json(result) if isinstance(result, str) else result
    except ValueError:  # not JSON: a Reader's error text, say
        return None
    entries = value.get("results") if isinstance(value, Mapping) else None
    if not isinstance(entries, list) or not entries:
        return None
    if not all(isinstance(entry, Mapping) and _is_numbered(entry) for entry in entries):
        return None
    return [
        (entry["marker"] if isinstance(entry.get("marker"), str) else None, entry["result"])
        for entry in entries
    ]


def numbered_items(result: object) -> list[ReaderItem] | None:
    """The Reader's items in a numbered result, or None if `result` is not one. For
    readers of the wire, such as the checker: a run captured them itself when it numbered
    them, so `reader_items` skips them."""
    view = numbered_view(result)
    return None if view is None else reader_items([shown for _, shown in view])


def _collect(value: object, items: ReaderItems, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise ValueError("wrapped too deeply to be a Reader result")
    if isinstance(value, str | bytes | bytearray):
        text = value if isinstance(value, str) else bytes(value).decode("utf-8")
        if _MCP_ERROR.match(text):  # the text of an MCP error, e.g. invalid arguments
            logger.debug("moca_agui: the Reader answered an error: %.200s", text)
            return
        value, wire = _parsed_and_wire(text)
        outer, items.wire = items.wire, wire  # a text inside a text is read on its own
        try:
            _collect(value, items, depth + 1)
        finally:
            items.wire = outer
    elif isinstance(value, Mapping):
        _collect_mapping(value, items, depth)
    elif isinstance(value, list | tuple):
        for entry in value:
            _collect_entry(entry, items, depth)
    else:
        _collect_object(value, items, depth)


def _collect_mapping(value: Mapping[Any, Any], items: ReaderItems, depth: int) -> None:
    if looks_like_record(value):
        items.add_record(value, items.wire)
    elif value.get("isError") is True:
        _log_error(value.get("content"))
    elif "error" in value:
        logger.info("moca_agui: the Reader answered an error: %.200r", value["error"])
    elif isinstance(value.get("results"), list):  # moca_search
        _collect(value["results"], items, depth + 1)
    elif "op" in value and "result" in value:  # moca_structure
        if isinstance(value["result"], list):
            _collect(value["result"], items, depth + 1)
    elif isinstance(value.get("content"), list):  # MCP CallToolResult
        _collect(value["content"], items, depth + 1)
    elif value.keys() == {"result"}:  # a tool's non-dict return, wrapped
        _collect(value["result"], items, depth + 1)
    elif _is_numbered(value):
        logger.debug("moca_agui: a numbered result: captured when it was numbered")
    elif _is_compact(value):
        items.append(CompactResult(value["ref"], dict(value)))
    elif isinstance(value.get("metadata"), Mapping) and "moca_citation" in value["metadata"]:
        _collect_citation(value["metadata"]["moca_citation"], items, depth)


def _collect_entry(entry: object, items: ReaderItems, depth: int) -> None:
    if looks_like_record(entry):  # most entries: a search result's records
        items.add_record(entry, items.wire)
    elif isinstance(entry, Mapping):
        if entry.get("type") == "text" and isinstance(entry.get("text"), str):  # MCP text
            _collect(entry["text"], items, depth + 1)
        elif _is_numbered(entry):  # one a numbered view lists
            logger.debug("moca_agui: a numbered result: captured when it was numbered")
        else:
            _collect_mapping(entry, items, depth + 1)
    elif getattr(entry, "type", None) == "text" and isinstance(getattr(entry, "text", None), str):
        _collect(entry.text, items, depth + 1)  # type: ignore[attr-defined]  # a text part object
    elif not isinstance(entry, str | int | float | bool | type(None)):
        _collect_object(entry, items, depth + 1)


def _collect_object(value: object, items: ReaderItems, depth: int) -> None:
    """Objects: a record in `metadata["moca_citation"]`, or MCP-style `content` parts."""
    if depth > _MAX_DEPTH:  # objects whose parts hold objects, or themselves
        raise ValueError("wrapped too deeply to be a Reader result")
    metadata = getattr(value, "metadata", None)
    if isinstance(metadata, Mapping) and "moca_citation" in metadata:
        _collect_citation(metadata["moca_citation"], items, depth)
        return
    # mcp 2.x: is_error (where reading isError warns it is deprecated); 1.x: isError.
    error = getattr(value, "is_error", None)
    if error is None:
        error = getattr(value, "isError", None)
    if error is True:
        _log_error(getattr(value, "content", None))
        return
    content = getattr(value, "content", None)
    if isinstance(content, list):
        for part in content:
            text = getattr(part, "text", None)
            if getattr(part, "type", None) == "text" and isinstance(text, str):
                _collect(text, items, depth + 1)
            else:
                _collect_entry(part, items, depth + 1)


def _log_error(content: object) -> None:
    """An MCP error result: its JSON `error` is worth an info line; other text (an MCP
    error such as invalid arguments, which the model retries) a debug line."""
    parts = content if isinstance(content, list) else []
    texts = [t for part in parts if isinstance(t := _text_of(part), str)]
    text = "\n".join(texts)
    try:
        parsed = parse_json(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, Mapping) and "error" in parsed:
        logger.info("moca_agui: the Reader answered an error: %.200r", parsed["error"])
    else:
        logger.debug("moca_agui: the Reader answered an error: %.200s", text)


def _text_of(part: object) -> object:
    """The text of an MCP text content part (a dict or an object), else None."""
    if isinstance(part, Mapping):
        return part.get("text") if part.get("type") == "text" else None
    return getattr(part, "text", None) if getattr(part, "type", None) == "text" else None


def _collect_citation(value: object, items: ReaderItems, depth: int) -> None:
    wire = items.wire
    if isinstance(value, str):
        value, wire = _parsed_and_wire(value)
    if looks_like_record(value):
        items.add_record(value, wire)


def _is_numbered(value: Mapping[Any, Any]) -> bool:
    """An entry of what a numbered Reader tool shows the model: `{"marker", "result"}`, or
    `{"result"}` alone for an entry that names no node."""
    return value.keys() <= {"marker", "result"} and "result" in value


def _is_compact(value: Mapping[Any, Any]) -> bool:
    ref = value.get("ref")
    return isinstance(ref, str) and bool(ref) and "node" not in value and "package" not in value
