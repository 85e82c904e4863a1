"""Citing AG-UI adapters for Pydantic AI: raw tool results in, `moca.citations` events out.

An instrumented adapter is a subclass of the user's `AGUIAdapter` (class or instance)
that overrides one method, `transform_stream`, which both `dispatch_request` and
`run_stream` go through. Per run it makes a `CitationRun`, feeds it each tool's raw
return value from the Pydantic AI events going in, and lets `moca_agui.cite` place the
events in the AG-UI events coming out. The event stream itself is never built or
copied here, so its fields may change between minor versions without breaking this.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar, TypeVar

from pydantic_ai.messages import FunctionToolResultEvent, ModelMessage, ToolReturnPart
from pydantic_ai.ui.ag_ui import AGUIAdapter

from moca_agui import CitationOptions, cite
from moca_agui.adapter import CitationRun, RunFeed, citing_variant, options_of, tap

__all__ = ["CitingAdapter", "citing"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")


class CitingAdapter(AGUIAdapter[Any, Any]):
    """An `AGUIAdapter` whose runs send one `moca.citations` event per assistant message.

    Made by `moca_agui.instrument(AGUIAdapter)`, which binds the options; it adds no
    dataclass field, so `from_request`, `dispatch_request` and the constructor take
    exactly what the parent takes.
    """

    moca_agui_options: ClassVar[CitationOptions] = CitationOptions()

    def run_stream_native(self, *args: Any, **kwargs: Any) -> Any:
        """The parent's Pydantic AI events, carrying the `message_history` the run was
        given: the model reads it before the client's messages."""
        events = super().run_stream_native(*args, **kwargs)
        return _WithHistory(events, kwargs.get("message_history"))

    def transform_stream(self, stream: AsyncIterator[Any], *args: Any, **kwargs: Any) -> Any:
        """The parent's AG-UI events, plus the run's `moca.citations` events."""
        # Each tool's raw value is captured instead of the TOOL_CALL_RESULT content.
        run = CitationRun(options_of(self), reads_tool_call_results=False)
        self._read_thread(run, stream.history if isinstance(stream, _WithHistory) else None)
        events = super().transform_stream(tap(stream, partial(_capture, run)), *args, **kwargs)
        return cite(events, run=run)

    def _read_thread(self, run: RunFeed, history: Sequence[ModelMessage] | None) -> None:
        """Read the thread the model reads: a `message_history` given to the run, then the
        client's messages. A history the server keeps and cuts to the client's turn
        (`manage_message_history='server'`) or loads from a `conversation_store` is not
        known here: the run fails closed."""
        sent = self.run_input.messages or ()
        if getattr(self, "conversation_store", None) is not None:
            run.thread_unreadable("Pydantic AI loads the thread from a conversation_store")
        elif getattr(self, "manage_message_history", "client") != "client":
            run.thread_unreadable("Pydantic AI keeps the thread (manage_message_history)")
        elif history:
            try:
                kept = self.dump_messages(history)
            except Exception as failed:
                run.thread_unreadable(f"message_history ({type(failed).__name__}: {failed})")
            else:
                run.read_history([*kept, *sent])  # the model reads both, in this order
        else:
            run.read_history(sent)


class _WithHistory(AsyncIterator[Any]):
    """A run's Pydantic AI events, with the `message_history` it was given."""

    __slots__ = ("_events", "history")

    def __init__(self, events: AsyncIterator[Any], history: Sequence[ModelMessage] | None) -> None:
        self._events = events
        self.history = history

    async def __anext__(self) -> Any:
        return await self._events.__anext__()


def _capture(run: RunFeed, event: object) -> None:
    """Capture a tool return: its value, or a record in its `metadata`."""
    if not isinstance(event, FunctionToolResultEvent):
        return
    part = event.part
    if not isinstance(part, ToolReturnPart):
        return  # a retry prompt: the Reader answered nothing to cite
    failed = getattr(part, "outcome", "success") != "success"
    metadata = part.metadata
    result = part if isinstance(metadata, Mapping) and "moca_citation" in metadata else part.content
    run.capture(part.tool_name, result, tool_call_id=part.tool_call_id, failed=failed)


def citing(target: T, options: CitationOptions) -> T:
    """A citing copy of an `AGUIAdapter` subclass or instance, with `options`."""
    return citing_variant(target, CitingAdapter, options, copy=_copy)


def _copy(adapter: Any) -> Any:
    """A new adapter with the same init fields (a dataclass: fields differ between versions)."""
    fields = {f.name: getattr(adapter, f.name) for f in dataclasses.fields(adapter) if f.init}
    return type(adapter)(**fields)
