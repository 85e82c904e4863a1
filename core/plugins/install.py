"""What an adapter needs installed: the install command of an extra, and the guard that
names it when an import fails."""

from __future__ import annotations

import importlib

__all__ = ["pip_install", "require"]


def pip_install(extras: str) -> str:
    """How to install `extras` (e.g. "langgraph" or "langgraph,demo"), as one phrase."""
    return (
        f"pip install -e '.[{extras}]' in a clone of moca-agui "
        f"(once released: pip install 'moca-agui[{extras}]')"
    )


def require(adapter: str, extra: str, *modules: str) -> None:
    """Import `modules`, or raise an ImportError naming the install that brings them.

    An adapter module calls it before importing its framework, e.g.
    `require("LangGraph", "langgraph", "ag_ui_langgraph", "langgraph.graph")`.
    """
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(
                f"moca_agui's {adapter} adapter needs {module}: {pip_install(extra)} ({exc})"
            ) from exc
