"""The run whose agent is running in this context: numbered tools number into it."""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._run import CitationRun

__all__ = ["ACTIVE_RUN"]

#: Set by `CitationRun.active` and by `cite` while the stream it wraps makes each event;
#: per context, so concurrent runs never see each other's.
ACTIVE_RUN: ContextVar[CitationRun | None] = ContextVar("moca_agui_active_run", default=None)
