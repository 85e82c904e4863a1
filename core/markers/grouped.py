"""Grouped and ranged markers: `[1, 2]`, `[1,2]`, `[1-3]`, `[1, 3-5]`; a range's dash may be
an en dash (U+2013) too."""

from __future__ import annotations

import re

from .style import LONGEST, Item, number

__all__ = ["STYLE"]

_RANGE = r"[0-9]{1,9}[-\u2013][0-9]{1,9}"
_ITEM = r"[0-9]{1,9}(?:[-\u2013][0-9]{1,9})?"
_SEPARATOR = re.compile(r"[ \t]*,[ \t]*")


class _Grouped:
    opener, closer = "[", "]"
    #: One range, or two items or more (at most as many as fit in `LONGEST` characters);
    #: never one number alone, the numbered style's `[1]`.
    pattern = re.compile(rf"\[(?:{_RANGE}|{_ITEM}(?:[ \t]*,[ \t]*{_ITEM}){{1,31}})\]")

    def items(self, marker: str) -> tuple[Item, ...] | None:
        if len(marker) > LONGEST or not (marker.startswith("[") and marker.endswith("]")):
            return None  # `【1, 2】`: full-width brackets hold one number only
        items: list[Item] = []
        for written in _SEPARATOR.split(marker[1:-1]):
            low, dash, high = written.replace("\u2013", "-").partition("-")
            first, last = number(low), number(high) if dash else None
            if first is None or (dash and last is None):
                return None  # `[01, 2]`: not a group of numbers
            items.append((first, last) if last is not None else first)
        if len(items) == 1 and isinstance(items[0], int):
            return None  # `[1]`: a numbered marker
        return tuple(items)


STYLE = _Grouped()
