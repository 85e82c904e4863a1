"""Footnote markers: `[^1]`, inline or as a footnote definition `[^1]: ...`."""

from __future__ import annotations

import re

from .style import Item, number

__all__ = ["STYLE"]


class _Footnote:
    opener, closer = "[", "]"
    #: A definition line `[^1]: ...` is a mention too: the same text, at a line's start.
    pattern = re.compile(r"\[\^[0-9]{1,9}\]")

    def items(self, marker: str) -> tuple[Item, ...] | None:
        found = number(marker[2:-1]) if marker.startswith("[^") else None
        return None if found is None else (found,)


STYLE = _Footnote()
