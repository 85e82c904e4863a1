"""`CitationStream`: one AG-UI stream's citations, one call per event.

Every driver pushes each event to it and sends what comes back: `cite` (a stream of
`ag_ui.core` events), the ASGI middleware (the same events read from SSE) and the
adapters that write their own events. The engine behind it (`engine.Citing`) follows the
stream as the client reads it and makes the citation events when they are due.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextvars import Token
from types import TracebackType
from typing import Any, TypeAlias, TypeVar

from ag_ui.core import BaseEvent, TextMessageContentEvent

from ..context import ACTIVE_RUN, NumberingRun
from ..run import CitationRun
from .engine import Citing

__all__ = ["CitationStream", "Sent", "running"]

logger = logging.getLogger("moca_agui")


#: What a driver pushes: an `ag_ui.core` event, or the wire dict of a text delta.
Pushed = TypeVar("Pushed", BaseEvent, dict[str, Any])
#: What `CitationStream.push` returns: the event pushed itself when it is all there is to
#: send (most events), else an async iterator of the events to send, in order, each as
#: soon as it is made (a citation event may wait for a lookup; the one before it need not).
Sent: TypeAlias = Pushed | AsyncIterator[Pushed | BaseEvent]


class CitationStream:
    """Push every event of one stream to it, in order, and send what it returns::

        stream = CitationStream(run)
        with stream.running():  # where the agent's tools run
            async for event in events:
                sent = stream.push(event)
                if sent is event:
                    send(event)
                else:
                    async for extra in sent:
                        send(extra)
            async for extra in stream.finish():
                send(extra)

    `push` gives the citation events due before the event (after each message's
    TEXT_MESSAGE_END, before RUN_FINISHED, never after RUN_ERROR), then the event itself:
    a MESSAGES_SNAPSHOT carries its ended answers' citation values on their `metadata`,
    for a client that keeps messages, not events. `finish` gives those still due when the
    stream ends. `close()` when the stream is cut off (its client left): nothing of the
    run stays running. A driver that reads the wire asks `reads(type)` first: an event
    it does not read may be sent unparsed. `snapshot_text` and `question_id`: see
    `engine.Citing`; `where` names the stream in log lines (e.g. "POST /agent").

    A new RUN_STARTED in the same stream starts a new run (`run` names the current one).
    Never raises into the stream: a failure turns citations off for the run, logged.
    """

    __slots__ = ("_citing", "_parts", "_parts_of", "_reader", "_where")

    def __init__(
        self,
        run: CitationRun,
        *,
        snapshot_text: Callable[[str], bool] | None = None,
        question_id: str | Callable[[], str | None] | None = None,
        where: str = "this run",
    ) -> None:
        self._citing = Citing(run, snapshot_text=snapshot_text, question_id=question_id)
        self._where = where
        self._parts_of, self._parts, self._reader = self._citing.delta_path()

    @property
    def run(self) -> CitationRun:
        """The stream's current run."""
        return self._citing.run

    def push(self, event: Pushed) -> Sent[Pushed]:
        """What to send for the stream's next event (`Sent`): the citation events due
        before it, then the event (a snapshot, carrying its answers' citations).

        `event` is an `ag_ui.core` event, or a wire dict (camelCase) of a
        TEXT_MESSAGE_CONTENT: a driver that reads the wire need not build the event."""
        try:  # most of a stream: a text delta, appended, nothing due
            if type(event) is TextMessageContentEvent:
                fields = event.__dict__
                message_id, delta = fields["message_id"], fields["delta"]
            elif isinstance(event, dict) and event["type"] == "TEXT_MESSAGE_CONTENT":
                message_id, delta = event["messageId"], event["delta"]
            else:
                message_id = delta = None
        except KeyError:  # the engine says what is wrong
            message_id = delta = None
        if type(delta) is str and (
            message_id is self._parts_of
            or (type(message_id) is str and message_id == self._parts_of)
        ):
            self._parts.append(delta)
            reader = self._reader  # an answer read as it streams: most deltas it need not read
            if reader is not None and reader.watch(delta) is not None:
                reader.read()
            return event
        citing = self._citing
        due = citing.feed(event)
        self._parts_of, self._parts, self._reader = citing.delta_path()
        if due or citing.carries_sources:
            return self._waited(event, due)
        return event

    async def _waited(self, event: Pushed, due: bool) -> AsyncIterator[Pushed | BaseEvent]:
        citing = self._citing
        sent: Pushed | BaseEvent = event
        try:
            if due:
                async for extra in citing.flush():
                    yield extra
            if citing.carries_sources and isinstance(event, BaseEvent):
                sent = await citing.with_sources(event)
        except Exception:
            logger.exception("moca_agui: citations off for %s; the stream flows on", self._where)
            citing.stop()
        yield sent

    async def finish(self) -> AsyncIterator[BaseEvent]:
        """The stream ended: the citation events still due (an open chunked message ends)."""
        try:
            async for extra in self._citing.close():
                yield extra
        except Exception:
            logger.exception("moca_agui: no citations sent for %s", self._where)
            self._citing.stop()

    def reads(self, kind: str) -> bool:
        """Whether an event of type `kind` must be pushed now: one it would read nothing of
        (and that closes nothing open) may be sent as it is, unparsed even."""
        return self._citing.reads(kind)

    def close(self) -> None:
        """The stream ends here, whatever it held: nothing of the run stays running."""
        self._citing.stop()

    def running(self) -> _Running:
        """A context manager: while it is entered, the agent's tools run in this stream's
        run (numbered tools number into it, a new run in the stream included), in this
        context and the tasks and threads started from it."""
        return _Running(self)

    def numbered(self, tool_name: str, result: object) -> object:
        """What the model reads of a result of `tool_name`, numbered by the current run."""
        return self._citing.run.numbered(tool_name, result)


class _Running:
    """The stream's run is the one tools number into while this is entered. It may be
    entered again once left (a driver enters it for a step made from another context)."""

    __slots__ = ("_stream", "_token")

    def __init__(self, stream: NumberingRun) -> None:
        self._stream = stream

    def __enter__(self) -> None:
        self._token: Token[NumberingRun | None] = ACTIVE_RUN.set(self._stream)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            ACTIVE_RUN.reset(self._token)
        except ValueError:  # left in another context (a generator closed elsewhere): that
            return  # context's run is its own; the one entered went with its context


def running(numbering: NumberingRun) -> _Running:
    """`CitationStream.running()` for a driver whose tools number through an object of its
    own that forwards to its stream (the ASGI middleware's, which lets the run go as soon
    as its response has ended, while the app that made it still runs)."""
    return _Running(numbering)
