"""`cite`: the stream middleware that adds `moca.citations` events to any AG-UI stream."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import Any, TypeVar

from ag_ui.core import BaseEvent, RawEvent, TextMessageContentEvent

from ._active import ACTIVE_RUN
from ._follow import Follower, StreamSink
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
    follower = tracker.follower
    iterator = aiter(events)
    # The stream makes each event with its run active, so numbered tools it calls (and
    # tasks it starts) number into this run. Set only when another run (or none) is
    # active, as when one task reads two streams in turn: one lookup per event.
    active, activate = ACTIVE_RUN.get, ACTIVE_RUN.set
    outside = active()
    try:
        activate(tracker.run)
        # Most of a stream is its text deltas: appended here, to the parts of the message
        # the last delta went to, rather than by the follower (a stream's deltas mostly
        # share one message id object). What decides this fast path changes only when
        # the tracker observes an event, so it is worked out then.
        nowhere: list[str] = []  # the parts no delta is added to (no message id matches)
        run, parts_of, parts = tracker.run, _NO_MESSAGE, nowhere
        async for event in iterator:
            if type(event) is TextMessageContentEvent:
                fields = event.__dict__
                try:
                    message_id, delta = fields["message_id"], fields["delta"]
                except KeyError:  # built without validation: the follower says what is wrong
                    message_id = delta = None
                if type(delta) is str and (
                    message_id is parts_of or (type(message_id) is str and message_id == parts_of)
                ):
                    parts.append(delta)
                    yield event
                    if active() is not run:
                        activate(run)
                    continue
            if type(event) is RawEvent:  # the follower reads nothing of it, it closes nothing
                yield event
                if active() is not run:
                    activate(run)
                continue
            if tracker.observe(event):
                for extra in await tracker.flush():
                    yield extra
            run = tracker.run
            parts_of, parts = _NO_MESSAGE, nowhere
            if tracker.alive and not follower.chunk and type(event) is TextMessageContentEvent:
                message_id = event.__dict__.get("message_id")
                if type(message_id) is str:  # the next deltas most likely go to its message
                    parts_of, parts = message_id, run.text_parts(message_id)
            yield event
            if active() is not run:
                activate(run)
        for extra in await tracker.flush():
            yield extra
    finally:
        ACTIVE_RUN.set(outside)
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


#: The message no delta goes to: while the follower must see every delta (the layer is
#: off, or a chunked message is open), no message id is this.
_NO_MESSAGE = object()


class _Tracker(StreamSink):
    """What `cite` makes of the stream the follower reads: a run's text, results, its end."""

    __slots__ = ("_due", "_open", "_sent", "_started", "alive", "follower", "run")

    def __init__(self, run: CitationRun) -> None:
        self.follower = Follower(self)
        self._reset(run)

    def _reset(self, run: CitationRun) -> None:
        self.run = run
        self.alive = True  # False once the run ended or the layer failed: pass through only
        self._due = False  # the run's citation events are due before the current event
        self._sent = False
        self._started = False
        self._open: set[str] = set()  # messages started and not yet ended

    def observe(self, event: object) -> bool:
        """Take in one event; True when the run's citation events are due before it."""
        if not self.alive and getattr(event, "type", None) != "RUN_STARTED":
            return False
        try:
            self.follower.feed(event)
        except Exception:
            logger.exception("moca_agui: citations off for this run; the answer is unchanged")
            self.alive = False
            return False
        due, self._due = self._due, False
        return due

    async def flush(self) -> list[BaseEvent]:
        """The citation events of the run, once; none if the run failed or errored."""
        if not self.alive or self._sent:
            return []
        self._sent = True
        # A message's event goes after its TEXT_MESSAGE_END: one that never ended gets none.
        for message_id in self._open:
            logger.warning("moca_agui: message %.80s never ended; no citations for it", message_id)
            self.run.mute(message_id)
        return list(await self.run.citation_events())

    # -- what the follower reports -----------------------------------------------------

    def run_started(self) -> None:
        if self._started:  # a new run in the same stream starts clean
            if self.alive and not self._sent:
                logger.warning("moca_agui: a run began before the last one finished; no "
                               "citations for the unfinished one")  # fmt: skip
            self._reset(CitationRun(self.run.options))
        self._started = True

    def message_opened(self, message_id: str, role: str) -> None:
        if role != "assistant":
            self.run.mute(message_id)
        self._open.add(message_id)

    def message_closed(self, message_id: str) -> None:
        self._open.discard(message_id)

    def text(self, message_id: str, delta: str) -> None:
        if delta:
            self.run.add_text(message_id, delta)

    def tool_call(self, tool_call_id: str, tool_name: str) -> None:
        self.run.call_made(tool_call_id, tool_name)  # the order the model issued its calls

    def tool_result(self, tool_call_id: str, tool_name: str | None, content: object) -> None:
        if not self.run.reads_tool_call_results:
            return
        if tool_name is None:
            logger.debug("moca_agui: result of unknown tool call %s ignored", tool_call_id)
            return
        self.run.capture(tool_name, content, tool_call_id=tool_call_id)

    def citations(self, value: object) -> None:
        if isinstance(value, dict):
            self.run.mute(str(value.get("messageId")))  # already cited upstream

    def run_finished(self) -> None:
        self._due = True

    def run_error(self) -> None:
        self.alive = False

    def rejected(self, kind: str, reason: str) -> None:
        logger.debug("moca_agui: %s left out of every message: %s", kind, reason)

    def malformed(self, kind: str, reason: str) -> None:
        raise ValueError(f"a malformed {kind}: {reason}")


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
