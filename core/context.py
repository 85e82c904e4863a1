"""The run context: what numbers the Reader results of the agent running in a context.

The stream engine owns it: `CitationStream.running()` sets it, entered where the agent's
tools run (and `running()` beside it, for the ASGI middleware's stand-in that lets a run
go when its response ends). Numbered tools read it (`plugins.numbered`), and so does
`CitationRun.current()` and the adapter kit's `request_run()`. Per context, so concurrent
runs never see each other's.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol

__all__ = ["ACTIVE_RUN", "NumberingRun"]


class NumberingRun(Protocol):
    """What numbers Reader results: a stream's current run (`CitationStream`), or a run
    itself (`CitationRun`)."""

    def numbered(self, tool_name: str, result: object) -> object: ...


#: What numbers the results of the agent running in this context, if anything.
ACTIVE_RUN: ContextVar[NumberingRun | None] = ContextVar("moca_agui_active_run", default=None)
