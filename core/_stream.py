"""`cite`: the stream middleware that adds `moca.citations` events to any AG-UI stream."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import Any, TypeVar

from ag_ui.core import BaseEvent
from pydantic import BaseModel

from ._active import ACTIVE_RUN
from ._citations import EVENT_NAME
from ._options import CitationOptions
from ._run import CitationRun

__all__ = ["cite", "tap"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")


def cite(
    events: AsyncIterable[BaseEvent], *, run: CitationRun | None = None, **options: Any
) -> AsyncIterator[BaseEvent]:
    """Yield `events` unchanged, in order, plus one `moca.citations` event per assistant
    message with text, after its last TEXT_MESSAGE_END (or chunk) and before RUN_FINISHED.

    `options` are those of `CitationOptions` (`reader_tools`, `include_text`, `lookup`,
    `packages`, ...). An adapter that also captures Reader results outside the stream
    passes its own `run` instead. Nothing is sent after RUN_ERROR; if anything in the
    citation layer fails, it is logged and the events flow on untouched.
    """
    if run is not None and options:
        raise TypeError("pass either run= or options, not both: the run holds its options")
    if not isinstance(events, AsyncIterable):
        kind = type(events).__name__
        raise TypeError(f"cite() needs an async iterable of AG-UI events, not {kind}")
    return _cited(events, _Tracker(run or CitationRun(CitationOptions.from_kwargs(**options))))


async def _cited(events: AsyncIterable[BaseEvent], tracker: _Tracker) -> AsyncIterator[BaseEvent]:
    iterator = aiter(events)
    try:
        while True:
            # The stream makes each event with its run active: numbered tools it calls
            # (and tasks it starts) number into this run.
            token = ACTIVE_RUN.set(tracker.run)
            try:
                event = await anext(iterator)
            except StopAsyncIteration:
                break
            finally:
                ACTIVE_RUN.reset(token)
            if tracker.alive and getattr(event, "type", None) == "TEXT_MESSAGE_CONTENT":
                # Most of a stream: its text deltas, taken in here rather than by a handler.
                try:
                    tracker.run.add_text(event.message_id, event.delta)  # type: ignore[attr-defined]
                except Exception:  # not a real delta: the handler logs it, citations off
                    tracker.observe(event)
            elif tracker.observe(event):
                for extra in await tracker.flush():
                    yield extra
            yield event
        for extra in await tracker.flush():
            yield extra
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


class _Tracker:
    """Follows one stream: message text, tool names, where the run ends."""

    __slots__ = (
        "_chunk_id", "_handlers", "_sent", "_started", "_tool_names", "alive", "run",
    )  # fmt: skip

    def __init__(self, run: CitationRun) -> None:
        self._handlers: dict[str, Callable[[Any], bool]] = {
            "RUN_STARTED": self._run_started,
            "TEXT_MESSAGE_START": self._text_start,
            "TEXT_MESSAGE_CONTENT": self._text_content,
            "TEXT_MESSAGE_CHUNK": self._text_chunk,
            "TOOL_CALL_START": self._tool_start,
            "TOOL_CALL_CHUNK": self._tool_start,
            "TOOL_CALL_RESULT": self._tool_result,
            "CUSTOM": self._custom,
            "RUN_FINISHED": self._run_finished,
            "RUN_ERROR": self._run_error,
        }
        self._reset(run)

    def _reset(self, run: CitationRun) -> None:
        self.run = run
        self.alive = True  # False once the run ended or the layer failed: pass through only
        self._tool_names: dict[str, str] = {}  # tool call id -> tool name
        self._sent = False
        self._started = False
        self._chunk_id: str | None = None

    def observe(self, event: object) -> bool:
        """Take in one event; True when the run's citation events are due before it."""
        handler = self._handlers.get(getattr(event, "type", None))  # type: ignore[arg-type]
        if handler is None or not (self.alive or handler == self._run_started):
            return False
        try:
            return handler(event)
        except Exception:
            logger.exception("moca_agui: citations off for this run; the answer is unchanged")
            self.alive = False
            return False

    async def flush(self) -> list[BaseEvent]:
        """The citation events of the run, once; none if the run failed or errored."""
        if not self.alive or self._sent:
            return []
        self._sent = True
        return list(await self.run.citation_events())

    def _run_started(self, event: Any) -> bool:
        if self._started:  # a new run in the same stream starts clean
            if self.alive and not self._sent:
                logger.warning("moca_agui: a run began before the last one finished; no "
                               "citations for the unfinished one")  # fmt: skip
            self._reset(CitationRun(self.run.options))
        self._started = True
        return False

    def _text_start(self, event: Any) -> bool:
        if event.role not in (None, "assistant"):
            self.run.mute(event.message_id)
        return False

    def _text_content(self, event: Any) -> bool:
        self.run.add_text(event.message_id, event.delta)
        return False

    def _text_chunk(self, event: Any) -> bool:
        message_id = event.message_id or self._chunk_id
        if message_id is None:
            return False
        self._chunk_id = message_id
        if event.role not in (None, "assistant"):
            self.run.mute(message_id)
        if event.delta:
            self.run.add_text(message_id, event.delta)
        return False

    def _tool_start(self, event: Any) -> bool:
        if event.tool_call_id and event.tool_call_name:
            self._tool_names[event.tool_call_id] = event.tool_call_name
            self.run.call_made(event.tool_call_id, event.tool_call_name)  # the model's order
        return False

    def _tool_result(self, event: Any) -> bool:
        if not self.run.reads_tool_call_results:
            return False
        name = self._tool_names.get(event.tool_call_id)
        if name is None:
            logger.debug("moca_agui: result of unknown tool call %s ignored", event.tool_call_id)
            return False
        content = event.content
        if isinstance(content, list):  # ag-ui-protocol 1.x content parts
            content = [_plain(part) for part in content]
        self.run.capture(name, content, tool_call_id=event.tool_call_id)
        return False

    def _custom(self, event: Any) -> bool:
        if event.name == EVENT_NAME and isinstance(event.value, dict):
            self.run.mute(str(event.value.get("messageId")))  # already cited upstream
        return False

    def _run_finished(self, event: Any) -> bool:
        return True

    def _run_error(self, event: Any) -> bool:
        self.alive = False
        return False


def _plain(part: object) -> object:
    """A content part as plain data (`{"type": "text", "text": ...}`)."""
    return part.model_dump() if isinstance(part, BaseModel) else part


async def tap(stream: AsyncIterable[T], watch: Callable[[T], object]) -> AsyncIterator[T]:
    """Yield `stream` unchanged, calling `watch` on each item before it is yielded.

    For adapters that read a framework's own events on their way to its AG-UI emitter.
    A `watch` that raises is logged and the item still flows; closing the tap closes
    `stream`.
    """
    iterator = aiter(stream)
    try:
        async for item in iterator:
            try:
                watch(item)
            except Exception:
                logger.exception("moca_agui: could not read an event; it flows on unchanged")
            yield item
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()
