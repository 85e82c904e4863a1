"""An entry: one source the model was shown, a node and a span of it."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Entry", "entry_of"]


class Entry(NamedTuple):
    """One source the model was shown: a node and a span of it (None: no span).

    A named tuple: entries are hashed and compared on every step of numbering, in C.
    """

    ref: str
    span: tuple[int, int] | None = None


def entry_of(item: object) -> Entry | None:
    """The entry a record-shaped value names: its `node.ref` (if a non-empty string) and
    its span (if of two integers: JSON's 7.0 is 7, as the record schema reads it); None
    if it names no node."""
    if not isinstance(item, dict):
        return None
    node = item.get("node")
    ref = node.get("ref") if isinstance(node, dict) else None
    if not isinstance(ref, str) or not ref:
        return None
    span = item.get("span")
    if isinstance(span, dict):
        start, end = span.get("start"), span.get("end")
        if type(start) is int and type(end) is int:
            return Entry(ref, (start, end))
        start, end = _integer_offset(start), _integer_offset(end)
        if start is not None and end is not None:
            return Entry(ref, (start, end))
    return Entry(ref)


def _integer_offset(offset: object) -> int | None:
    """A span offset as an int, if it is an integer (7 or 7.0); else None."""
    if type(offset) is int:
        return offset
    if type(offset) is float and offset.is_integer():
        return int(offset)
    return None
