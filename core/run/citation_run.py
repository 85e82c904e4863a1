"""`CitationRun`: the state of one agent run, behind a short facade.

Its parts, one job each: `hooks` (the plugins, failures logged), `intake` (tool results
into the `ledger`, numbered views), `messages` (the answers' text), `checks` (which
records may be sent), `lookups` (whole records for compact results) and `resolve` (what
an answer cites). Nothing is kept between runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from ag_ui.core import CustomEvent

from ..options import CitationOptions
from ..plugins.numbered import ACTIVE_RUN
from ..records.event import citations_event
from ..records.history import earlier_results, kept_then_answers, kept_then_sent
from .checks import Checks
from .hooks import Hooks
from .intake import Intake
from .ledger import Ledger
from .lookups import Lookups
from .messages import Messages
from .resolve import Resolver

__all__ = ["CitationRun"]

logger = logging.getLogger("moca_agui")


class CitationRun:
    """What one run's Reader returned, the text of its assistant messages, and its events.

    Create one per run (never share one between runs): adapters feed it Reader results
    (`capture`) and message text (`add_text`), then ask for its events
    (`citation_events`). Nothing here raises into the agent's run: failures are logged
    and the citation is left out.

    `reads_tool_call_results`: whether the stream's TOOL_CALL_RESULT content is read into
    the run. An adapter that captures each tool's own return value passes False: the
    content on the wire is the same result, serialised or cut down (and may be prose).
    """

    def __init__(
        self, options: CitationOptions | None = None, *, reads_tool_call_results: bool = True
    ) -> None:
        self.options = options or CitationOptions()
        self._reads_results = reads_tool_call_results
        self._messages = Messages()  # the run's assistant messages: their text, which are cited
        ledger = Ledger()  # every entry the model was shown, in the order it saw them
        self._hooks = Hooks(self.options)
        self._checks = Checks(self.options)
        self._intake = Intake(self._hooks, self._checks, ledger)
        self._lookups = Lookups(self.options, self._checks)
        self._resolver = Resolver(self._hooks, ledger, self._checks, self._lookups, self._intake)
        self._ledger = ledger
        #: message id -> (its text when its event was made, the event): a snapshot that
        #: carried the value and the event that follows send the same records
        self._made: dict[str, tuple[str, CustomEvent | None]] = {}
        self._ended = False
        self._thread_taken = False  # `read_history` or `read_kept_thread` was called
        self._after: Callable[[], CitationRun | None] | None = None

    @property
    def reads_tool_call_results(self) -> bool:
        """Whether the stream's TOOL_CALL_RESULT content is read into the run."""
        return self._reads_results

    def renewed(self) -> CitationRun:
        """A new run with this one's options and settings (a new run in the same stream).

        Its model reads this run's thread and turn, which the new run does not hold: if
        they named any source, the numbers it counts on from are not known, so the new
        run fails closed (`thread_unreadable`)."""
        run = CitationRun(self.options, reads_tool_call_results=self._reads_results)
        if not self._ledger.thread_read:  # the same thread, with this run's turn
            run._ledger.thread_unread()
        elif self._ledger.entries() or self._ledger.shows_markers:
            run.thread_unreadable("an earlier run in this stream named sources")
        run._ledger.after(self._ledger.order())  # the same emitter: its calls' order as known
        return run

    # -- what the run read -------------------------------------------------------------

    def is_reader_tool(self, tool_name: str) -> bool:
        """Whether results of `tool_name` are Reader results (asked once per name)."""
        return self._hooks.is_reader_tool(tool_name)

    @staticmethod
    def current() -> CitationRun | None:
        """The run active in this context (`active`, or the current run of the stream
        whose `running()` is entered), if any: numbered tools number into it."""
        active = ACTIVE_RUN.get()
        run = active if isinstance(active, CitationRun) else getattr(active, "run", None)
        return run if isinstance(run, CitationRun) else None

    @contextlib.contextmanager
    def active(self) -> Iterator[CitationRun]:
        """Make this the run numbered tools number into, in this context and the tasks and
        threads started from it, while the block runs. For a run with no stream of its
        own; a driver enters its stream's `CitationStream.running()` instead."""
        token = ACTIVE_RUN.set(self)
        try:
            yield self
        finally:
            ACTIVE_RUN.reset(token)

    def end(self, after: Callable[[], CitationRun | None] | None = None) -> None:
        """The run's stream is over: nothing more is numbered into it.

        A task the run was active in can outlive it: a framework that keeps a worker per
        thread (the Claude Agent SDK's session worker) runs the thread's later tool calls
        in the context of the run that started it. A numbered tool called there numbers
        into `after()`, the run the call belongs to when that can be known, or else shows
        its result without numbers (logged): never into this run, whose markers the
        later run's model never read and whose events were sent.
        """
        self._ended = True
        self._after = after

    def calls_out_of_order(self, *, this_run: bool = True) -> None:
        """The emitter sends a model's parallel calls in an order of its own (as each
        finishes or starts), so the thread the client sends back holds the earlier turns'
        calls in that order, and, with `this_run`, this run's are announced in it too: a
        default marker whose source depends on the model's order is left out (logged),
        never guessed. `this_run=False`: the adapter announces this run's calls in the
        model's order (`call_made`)."""
        self._ledger.by_emitter(announced=not this_run)

    def call_made(self, tool_call_id: str, tool_name: str) -> None:
        """The model issued a call: calls announced in the order it issued them number
        their results in that order, whenever the results arrive."""
        if self._hooks.is_reader_tool(tool_name):
            self._ledger.call_made(tool_call_id)

    def capture(
        self,
        tool_name: str,
        result: object,
        *,
        tool_call_id: str | None = None,
        failed: bool = False,
    ) -> None:
        """Take in one tool result; only a Reader tool's result can hold sources.

        `tool_call_id` is the id of the call that returned it, when the framework gives
        it: the result takes that call's place in the order the model issued its calls.
        A `failed` call's result (an error the model may retry on, or what an error
        handler answered for it) holds no source: it is not taken in (logged).
        """
        if failed:
            logger.info("moca_agui: tool %s failed; nothing to capture", tool_name)
            return
        self._intake.capture(tool_name, result, tool_call_id)

    def read_history(
        self, messages: Iterable[object], *, kept: Iterable[object] | None = None
    ) -> None:
        """Take in the thread the model reads on this turn (`RunAgentInput.messages`, as
        `ag_ui.core` messages or wire dicts): the Reader results of its earlier turns
        become entries, before this run's, with the markers the model was shown. No
        record of the thread is kept (the client sent them): an earlier source is cited
        only with a record the Reader gives in this run (again, or through `lookup`).

        `kept`: the thread the framework keeps server-side (a session, an agent's own
        history), as the model reads it, when the client may send only its new messages:
        it comes first, then the messages of `messages` it does not hold.

        Read once: later calls are passed over. Call it before the run's first result;
        after a numbered tool showed a marker, the thread is not numbered (the model was
        shown numbers that did not count it): the run fails closed. A thread that cannot
        be read whole is never numbered in part: the run fails closed
        (`thread_unreadable`); the results it could read still name the nodes a
        versioned ref may cite."""
        if self._thread_taken:
            logger.debug("moca_agui: the thread was read before; passed over")
            return
        self._thread_taken = True
        self._take_thread(messages, kept)

    def _take_thread(self, messages: Iterable[object], kept: Iterable[object] | None) -> None:
        if not self._ledger.thread_read:
            return
        failed: Exception | None = None
        try:
            if kept is not None:
                messages = kept_then_sent(kept, messages)
            results = earlier_results(messages, self._hooks.is_reader_tool)
        except Exception as exc:
            failed, results = exc, []
        for result in results:
            try:
                self._intake.earlier(result)
            except Exception as exc:
                failed = failed or exc
        if failed is not None:
            logger.debug("moca_agui: the thread not read whole", exc_info=failed)
            self.thread_unreadable(f"{type(failed).__name__}: {failed}")

    def thread_unreadable(self, why: str) -> None:
        """The thread the model reads on this turn cannot be read whole (too long for a
        limit, not parsed, cut), for the reason `why`: the numbers the model counted from
        it are not known, so every marker is left out and only versioned refs are cited,
        and a numbered tool shows its results without markers (one could name two
        sources). Logged once per run."""
        if not self._ledger.thread_read:
            return
        self._ledger.thread_unread()
        logger.warning(
            "moca_agui: the thread was not read: %s; which source a marker names is not "
            "known, so markers are left out (versioned refs are cited) and numbered tools "
            "show no markers",
            why,
        )

    def read_kept_thread(
        self, kept: Callable[[], Iterable[object] | None] | None, sent: Iterable[object]
    ) -> None:
        """Take in the thread the model reads where the framework keeps it server-side and
        takes from the client only its new turns (ADK's session, a Strands agent's own
        messages, Agent Framework's thread store): `kept()`, as the model reads it, then
        the client's `sent` answers to calls it left open (`kept_then_answers`). A turn
        the client sends that the kept thread lacks (dropped, edited, another server's)
        never reaches the model, so it is never numbered.

        Read once (with `read_history`): a framework may start its model more than once
        in a run (a batch of tool results, then a question); later calls are passed over,
        `kept` not called. Call it before the run's first result.

        `kept` None, or `kept()` None or raising: the thread the model reads cannot be
        read. The model's numbers count on from a thread the run does not know, so every
        marker is left out, only versioned refs are cited and numbered tools show no
        markers (logged once).
        """
        if self._thread_taken:
            return
        self._thread_taken = True
        why = "the framework gives no thread of its own to read"
        if kept is not None:
            try:
                held = kept()
                if held is not None:
                    self._take_thread(kept_then_answers(held, sent), None)
                    return
                why = "the framework's kept thread is not there"
            except Exception as failed:
                logger.debug("moca_agui: the kept thread not read", exc_info=failed)
                why = f"the framework's kept thread ({type(failed).__name__}: {failed})"
        self.thread_unreadable(why)

    def numbered(self, tool_name: str, result: object) -> object:
        """What the model reads of a Reader result: each source beside its run-wide
        marker, as JSON text (`{"results": [{"marker": "[1]", "result": ...}, ...]}`).

        The result is captured as it is, its entries numbered now, in the order results
        are produced, and those numbers are the run's marker table. A result with no
        source (an error, concepts) or of a tool that is not a Reader comes back as is.
        Called after the run ended (`end`): numbered by the run it belongs to, if known.
        """
        if self._ended:
            run = self._after() if self._after is not None else None
            if run is None or run is self:
                logger.warning(
                    "moca_agui: %s was called after its run ended, and the run it belongs "
                    "to is not known: its result is shown without numbers",
                    tool_name,
                )
                return result
            return run.numbered(tool_name, result)
        return self._intake.numbered(tool_name, result)

    # -- what the assistant wrote ------------------------------------------------------

    def add_text(self, message_id: str, delta: str) -> None:
        """Append streamed text to an assistant message."""
        if delta.__class__ is not str:
            raise TypeError(f"a text delta must be a str, not {type(delta).__name__}")
        self._messages.parts(message_id).append(delta)

    def text_of(self, message_id: str) -> str:
        """The whole text of a message so far."""
        return self._messages.text(message_id)

    def message_ids(self) -> list[str]:
        """Ids of the assistant messages that have text, in the order they began."""
        return self._messages.with_text()

    @property
    def looks_ahead(self) -> bool:
        """Whether an answer's text is worth reading as it streams: a `lookup` is set and
        some source's record can come only from it (a compact result, an earlier turn)."""
        return self._lookups.configured and (
            bool(self._intake.compact_tools) or self._ledger.has_earlier
        )

    def mentioned(self, text: str) -> None:
        """`text`, a part of an answer still streaming, may name sources only `lookup` can
        give a record of: start those lookups now, so they run while the model writes."""
        try:
            self._resolver.prefetch(text)
        except Exception:
            logger.exception("moca_agui: could not look ahead; lookups wait for the answer")

    def end_lookups(self) -> None:
        """End the lookups still running: the run ended, failed or lost its client."""
        self._lookups.cancel()

    def citable(self) -> list[str]:
        """Ids of the assistant messages with text that are cited, in the order they began."""
        return self._messages.citable()

    def mute(self, message_id: str) -> None:
        """Never cite this message (another role's, or one cited upstream)."""
        self._messages.mute(message_id)

    def rename(self, old: str, new: str) -> None:
        """The client now holds the message `old` as `new` (a MESSAGES_SNAPSHOT renamed
        it): its citation event names `new`."""
        self._messages.rename(old, new)
        self._made.pop(old, None)  # its event named `old`

    # -- what the answer cites ---------------------------------------------------------

    async def citation_events(self) -> AsyncIterator[CustomEvent]:
        """One `moca.citations` event per assistant message with text, for each message
        not muted and not given one before: each as soon as its own citations are
        resolved, so a slow lookup for one message holds back no other's (events ready
        together come in the order their messages began).

        Never raises: a failure is logged and no further event is made for the run.
        """
        try:
            due = self._messages.to_cite()
            if len(due) == 1:  # the common case: no task to make
                event = await self.event_for(due[0])
                if event is not None:
                    yield event
                return
            async for event in self._each_when_ready(due):
                yield event
        except Exception:
            logger.exception("moca_agui: no citations sent for this run; the answer is unchanged")
        finally:
            self._lookups.cancel()  # what was looked up ahead and never cited

    async def citation_values(self, message_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The value each of `message_ids` has in its event, as their text stands now, by
        message id; no event is marked made (a message's event is still sent when due).
        What a MESSAGES_SNAPSHOT's messages carry on their metadata."""
        return {
            event.value["messageId"]: event.value
            async for event in self._each_when_ready(message_ids)
        }

    async def _each_when_ready(self, message_ids: list[str]) -> AsyncIterator[CustomEvent]:
        """The events of `message_ids`, resolved together, each yielded once it is made."""
        pending = [asyncio.ensure_future(self.event_for(mid)) for mid in message_ids]
        try:
            while pending:
                await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                ready = [task for task in pending if task.done()]
                pending = [task for task in pending if not task.done()]
                for task in ready:
                    event = task.result()
                    if event is not None:
                        yield event
        finally:
            for task in pending:
                task.cancel()

    async def event_for(self, message_id: str) -> CustomEvent | None:
        """The `moca.citations` event for one message, or None if it has no text or failed;
        made once for a text (a message whose text grew since is made again)."""
        text = self._messages.text(message_id)
        made = self._made.get(message_id)
        if made is not None and made[0] == text:
            return made[1]
        event = await self._make_event(message_id, text)
        self._made[message_id] = (text, event)
        return event

    async def _make_event(self, message_id: str, text: str) -> CustomEvent | None:
        if not text.strip():
            return None
        try:
            citations = await self._resolver.citations(text)
            return citations_event(
                message_id,
                citations,
                include_text=self.options.include_text,
                max_event_bytes=self.options.max_event_bytes,
                records_bytes=self._checks.records_bytes(citations),
            )
        except Exception:
            logger.exception("moca_agui: no citations sent for message %s", message_id)
            return None
