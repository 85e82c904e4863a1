"""What a marker style is: the text that may be a marker of it, and the numbers it names."""

from __future__ import annotations

import re
from typing import Protocol

__all__ = ["LONGEST", "MAX_RANGE", "Item", "MarkerStyle", "canonical", "number"]

#: The most characters a marker's whole text may have, in any built-in style.
LONGEST = 64
#: The most numbers a range (`[1-10]`) may name; a longer one names nothing.
MAX_RANGE = 10

#: What a marker names, as written: a number, or a range `(low, high)`.
Item = int | tuple[int, int]


class MarkerStyle(Protocol):
    """One way a model writes a marker, e.g. `[1]`, `[1, 2]`, `[^1]` or `【1】`.

    The text a style's `pattern` matches is read where CommonMark shows text only (never
    in code, a link or an HTML comment); a marker table that holds that whole text gives
    its entry, else `items` says which numbers it names.
    """

    #: The character a marker of the style starts with, and the one it ends with.
    opener: str
    closer: str
    #: What may be a marker of the style: at most `LONGEST` characters, `opener` first.
    pattern: re.Pattern[str]

    def items(self, marker: str) -> tuple[Item, ...] | None:
        """The numbers `marker` names, as written; None if it is not of this style."""
        ...


def number(digits: str) -> int | None:
    """The number `digits` writes (ASCII digits, 1 to 999999999, no leading 0), or None."""
    if not (digits.isascii() and digits.isdigit()) or digits.startswith("0") or len(digits) > 9:
        return None
    return int(digits)


def canonical(entry_number: int) -> str:
    """The marker a marker table gives the `entry_number`-th source (from 1): `[n]`."""
    return f"[{entry_number}]"
