"""Numbered markers: `[1]` (also `[1][2]`, `[[1]]`, `**[1]**`), the default numbering."""

from __future__ import annotations

import re

from .style import Item, number

__all__ = ["STYLE", "marker_number"]


def marker_number(marker: str) -> int | None:
    """n if `marker` is `[n]` as the numbering writes it (n from 1, no leading 0, at most
    9 digits); None for any other marker (`[01]`, `[a]`, `[ 1]`)."""
    return number(marker[1:-1]) if marker.startswith("[") and marker.endswith("]") else None


class _Numbered:
    opener, closer = "[", "]"
    #: Any bracketed word: a plugin's marker table may map one (`[S1]`) as a whole.
    pattern = re.compile(r"\[[^\[\]\s]{1,32}\]")

    def items(self, marker: str) -> tuple[Item, ...] | None:
        found = marker_number(marker)
        return None if found is None else (found,)


STYLE = _Numbered()
