"""The default numbering: the marker `[n]` of the n-th source, and back."""

from __future__ import annotations

__all__ = ["marker_number", "numbered_marker"]


def numbered_marker(number: int) -> str:
    """The marker the numbering gives the `number`-th source (from 1): `[number]`."""
    return f"[{number}]"


def marker_number(marker: str) -> int | None:
    """n if `marker` is `[n]` as the numbering writes it (n from 1, no leading 0, at most
    9 digits); None for any other marker (`[01]`, `[a]`, `[ 1]`)."""
    inner = marker[1:-1] if marker.startswith("[") and marker.endswith("]") else ""
    if not (inner.isascii() and inner.isdigit()) or inner.startswith("0") or len(inner) > 9:
        return None
    return int(inner)
