"""The install command of an extra: from a clone today, from PyPI once released."""

from __future__ import annotations

__all__ = ["pip_install"]


def pip_install(extras: str) -> str:
    """How to install `extras` (e.g. "langgraph" or "langgraph,demo"), as one phrase."""
    return (
        f"pip install -e '.[{extras}]' in a clone of moca-agui "
        f"(once released: pip install 'moca-agui[{extras}]')"
    )
