"""Full-width markers: `【1】` and `【1†source】`; never `【3:0†source】` (another tool's
index pair, which names no source of this run)."""

from __future__ import annotations

import re

from .style import LONGEST, Item, number

__all__ = ["STYLE"]

_NUMBERED = re.compile(r"\u3010([0-9]{1,9})(?:\u2020[^\u3010\u3011]*)?\u3011")


class _FullWidth:
    opener, closer = "\u3010", "\u3011"
    pattern = re.compile(rf"\u3010[^\u3010\u3011\n]{{1,{LONGEST - 2}}}\u3011")

    def items(self, marker: str) -> tuple[Item, ...] | None:
        match = _NUMBERED.fullmatch(marker)
        found = number(match.group(1)) if match is not None else None
        return None if found is None else (found,)


STYLE = _FullWidth()
