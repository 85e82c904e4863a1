"""`Citing`: the engine behind `CitationStream`, which every driver pushes events to.

It follows the stream as the client reads it (`follow.Follower`), takes what the run
needs from it (answer text, tool calls and results, snapshots), and says when the run's
citation events are due: after each message's TEXT_MESSAGE_END, before RUN_FINISHED,
never after RUN_ERROR, and none for a message started and never ended.
"""

from __future__ import annotations

import functools
import logging
import weakref
from collections.abc import AsyncIterator, Callable

from ag_ui.core import BaseEvent, RawEvent, TextMessageContentEvent

from ..run import CitationRun
from .follow import Follower, StreamSink
from .metadata import with_citations
from .read_ahead import AnswerReader, ReadAhead
from .snapshots import Snapshots

__all__ = ["Citing"]

logger = logging.getLogger("moca_agui")

#: The message no delta goes to: while the follower must see every delta (the layer is
#: off, or a chunked message is open), no message id is this.
_NO_MESSAGE = object()


class Citing(StreamSink):
    """The follower's sink that cites one stream: the engine behind `CitationStream`.

    `feed` each event (True: the run's citation events are due before it, `flush` them);
    after a snapshot for which `carries_sources` is true, send `await with_sources(it)` in
    its place; `close` when the stream ends, `stop` if it is cut off. Text deltas may skip
    `feed` where `delta_path` says (`CitationStream.push` does).

    A MESSAGES_SNAPSHOT replaces the client's messages, so each event names the id the
    client holds when it arrives (`Snapshots`, which `snapshot_text` and `question_id`,
    the id of the last user message the client sent, are for). Answers are read as they
    stream while the run looks sources up ahead (`ReadAhead`).

    A new RUN_STARTED in the same stream starts a new run with the same options (`run`
    names the current one; after a run that named sources it fails closed:
    `CitationRun.renewed`). Never raises into the stream: a failure turns the layer off
    for the run, logged, and the events flow on.
    """

    __slots__ = (
        "_ahead",
        "_alive",
        "_carried",
        "_due",
        "_follower",
        "_open",
        "_parts_of",
        "_pending",
        "_pending_of",
        "_proxy",
        "_read_ahead",
        "_reader",
        "_sent",
        "_snapshots",
        "_started",
        "carries_sources",
        "run",
    )

    def __init__(
        self,
        run: CitationRun,
        *,
        snapshot_text: Callable[[str], bool] | None = None,
        question_id: str | Callable[[], str | None] | None = None,
    ) -> None:
        # The follower and the look-ahead reach this engine through a weak proxy: were they
        # to hold it, the engine and its run would be a cycle, left for the garbage
        # collector to find (which then walks the whole run) when the stream is done.
        self._proxy = weakref.proxy(self)
        self._follower = Follower(self._proxy)
        #: Text deltas appended on the fast path, not yet the run's: all of one message.
        self._pending: list[str] = []
        self._pending_of = ""
        self._snapshots = Snapshots(snapshot_text, question_id)
        self._reset(run)

    def _reset(self, run: CitationRun) -> None:
        self.run = run
        self._alive = True  # False once the run ended or the layer failed: pass through only
        self._due = False  # the run's citation events are due before the current event
        self._sent = False
        self._started = False
        self._open: set[str] = set()  # messages started and not yet ended
        self._ahead = False  # whether answers are read as they stream (`run.ahead.worth_it`)
        self._read_ahead = ReadAhead(run, functools.partial(Citing._settle, self._proxy))
        self._carried: list[str] = []  # the answers the snapshot just read carries sources of
        self.carries_sources = False  # whether the event just fed is such a snapshot
        self._no_delta_path()

    def _no_delta_path(self) -> None:
        self._parts_of: object = _NO_MESSAGE
        self._reader: AnswerReader | None = None  # the reader of the deltas on that path

    def feed(self, event: object) -> bool:
        """Take in the stream's next event; True when the run's citation events are due
        before it (send what `flush()` yields first)."""
        if type(event) is RawEvent:  # the follower reads nothing of it, it closes nothing
            return False
        self._settle()
        due = self._observe(event)
        if self._alive and not self._follower.chunk:
            if type(event) is TextMessageContentEvent:
                message_id = event.__dict__.get("message_id")
            elif type(event) is dict and event.get("type") == "TEXT_MESSAGE_CONTENT":
                message_id = event.get("messageId")
            else:
                return due
            if type(message_id) is str:  # the next deltas most likely go to its message
                self._parts_of = self._pending_of = message_id
                if self._ahead:
                    self._reader = self._read_ahead.reader(message_id, self._pending)
        return due

    def reads(self, kind: str) -> bool:
        """Whether an event of type `kind` must be fed now (`Follower.reads`); none while
        citations are off, but a new run's start."""
        return kind == "RUN_STARTED" or (self._alive and self._follower.reads(kind))

    def _settle(self) -> None:
        """Hand the run the text deltas appended on the fast path, joined once."""
        if self._pending:
            if self._reader is not None:
                self._reader.settled()
            text = "".join(self._pending)
            self._pending.clear()
            self.run.add_text(self._pending_of, text)

    def delta_path(self) -> tuple[object, list[str], AnswerReader | None]:
        """Where the stream's next TEXT_MESSAGE_CONTENT deltas may go without `feed`: the
        message id they must name, the list to append each `str` delta to (handed to the
        run, joined, when the next event is fed), and the reader of an answer read as it
        streams (call its `read()` after appending a delta its `watch` matches). Most of
        a stream is its deltas, and they mostly share one message id object: appending
        them saves a call per delta. The id is no message's while every delta must be fed
        (no message open, a chunked message, the layer off); ask again after each
        `feed`."""
        return self._parts_of, self._pending, self._reader

    def _observe(self, event: object) -> bool:
        self._no_delta_path()
        if not self._alive and getattr(event, "type", None) != "RUN_STARTED":
            return False
        # A driver may hand the run results outside the stream (LlamaIndex): whether this
        # event's text is read ahead depends on what the run holds now.
        self._ahead = self.run.ahead.worth_it
        self.carries_sources = False
        try:
            self._follower.feed(event)
        except Exception:
            logger.exception("moca_agui: citations off for this run; the answer is unchanged")
            self._alive = False
            return False
        self._ahead = self._alive and self.run.ahead.worth_it
        due, self._due = self._due, False
        return due

    def stop(self) -> None:
        """The stream ends here, whatever it held (its client left): nothing of the run
        stays running."""
        self._alive = False
        self.run.ahead.end()
        self.run.end()  # a task it started that calls a numbered tool later: not into it

    async def with_sources(self, snapshot: BaseEvent) -> BaseEvent:
        """The MESSAGES_SNAPSHOT just fed, its ended answers carrying their citation values
        on their `metadata`, each the value their event has; `snapshot` itself if none
        has citations, or if its messages have no `metadata` (ag-ui-protocol 0.1)."""
        message_ids, self._carried = self._carried, []
        self.carries_sources = False
        try:
            values = await self.run.events.values(message_ids)
            return with_citations(snapshot, values) if values else snapshot
        except Exception:
            logger.exception("moca_agui: the snapshot carries no citations; sent as it came")
            return snapshot

    async def flush(self) -> AsyncIterator[BaseEvent]:
        """The run's citation events, once, each as soon as it is made; none if the run
        failed or errored."""
        if not self._alive or self._sent:
            return
        self._sent = True
        # A message's event goes after its TEXT_MESSAGE_END: one that never ended gets none.
        for message_id in self._open:
            logger.warning("moca_agui: message %.80s never ended; no citations for it", message_id)
            self.run.messages.mute(message_id)
        async for event in self.run.events.due():
            yield event

    async def close(self) -> AsyncIterator[BaseEvent]:
        """The stream ended: the citation events still due (an open chunked message ends)."""
        if not self._alive:
            return
        self._settle()
        try:
            self._follower.close()
        except Exception:
            logger.exception("moca_agui: citations off for this run; the answer is unchanged")
            self._alive = False
        async for event in self.flush():
            yield event

    # -- what the follower reports -----------------------------------------------------

    def run_started(self) -> None:
        if self._started:  # a new run in the same stream (`renewed`)
            if self._alive and not self._sent:
                logger.warning("moca_agui: a run began before the last one finished; no "
                               "citations for the unfinished one")  # fmt: skip
            self.run.ahead.end()
            ended = self.run
            self._reset(ended.renewed())
            ended.end(lambda: self.run)  # a task of this stream numbers into its run now
        self._started = True

    def message_opened(self, message_id: str, role: str) -> None:
        if role != "assistant":
            self.run.messages.mute(message_id)
        self.run.began(message_id)
        self._open.add(message_id)

    def message_closed(self, message_id: str) -> None:
        self._open.discard(message_id)
        self._read_ahead.closed(message_id, ahead=self._ahead)

    def text(self, message_id: str, delta: str) -> None:
        if delta:
            self.run.add_text(message_id, delta)
            if self._ahead:
                self._read_ahead.reader(message_id, self._pending).take(delta)

    def tool_call(self, tool_call_id: str, tool_name: str) -> None:
        self.run.call_made(tool_call_id, tool_name)  # the order the model issued its calls

    def tool_result(self, tool_call_id: str, tool_name: str | None, content: object) -> None:
        if not self.run.reads_tool_call_results:
            return
        if tool_name is None:
            logger.debug("moca_agui: result of unknown tool call %s ignored", tool_call_id)
            return
        self.run.capture(tool_name, content, tool_call_id=tool_call_id)

    def snapshot_started(self) -> None:
        self._snapshots.started()

    def snapshot_message(
        self, message_id: str, role: str, content: object, tool_call_id: str | None
    ) -> None:
        self._snapshots.shown(message_id, role, content)

    def snapshot_citations(self, message_id: str, value: object) -> None:
        self.run.messages.mute(message_id)  # cited upstream: its snapshot passes as it came

    def snapshot_ended(self) -> None:
        self._carried = self._snapshots.ended(self.run, self._open)
        self.carries_sources = bool(self._carried)

    def citations(self, value: object) -> None:
        if isinstance(value, dict):
            self.run.messages.mute(str(value.get("messageId")))  # already cited upstream

    def run_finished(self) -> None:
        self._due = True

    def run_error(self) -> None:
        self._alive = False
        self.run.ahead.end()

    def rejected(self, kind: str, reason: str) -> None:
        logger.debug("moca_agui: %s left out of every message: %s", kind, reason)

    def malformed(self, kind: str, reason: str) -> None:
        raise ValueError(f"a malformed {kind}: {reason}")
