"""`CitationRun`: the state of one agent run, behind a short facade.

Its parts, one job each: `hooks` (the plugins, failures logged), `intake` (tool results
into the `ledger`, numbered views), `thread_reading` (the thread the model reads),
`messages` (the answers' text), `checks` (which records may be sent), `lookups` (whole
records for compact results), `resolve` (what an answer cites), `events` (the events)
and `ending` (which run a numbered call after the end belongs to). Each method's whole
story is on the part it hands to. Nothing is kept between runs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from ..context import ACTIVE_RUN
from ..markers import MarkerStyle
from ..options import CitationOptions
from ..records.order import result_key
from .ahead import LookAhead
from .checks import Checks
from .ending import Ending
from .events import Events
from .hooks import Hooks
from .intake import Intake
from .ledger import Ledger
from .lookups import Lookups
from .messages import Messages
from .resolve import Resolver
from .thread_reading import ThreadReading

__all__ = ["CitationRun"]

logger = logging.getLogger("moca_agui")


class CitationRun:
    """What one run's Reader returned, the text of its assistant messages, and its events.

    Create one per run (never share one between runs): adapters feed it Reader results
    (`capture`, the `RunFeed` side) and message text (`add_text`), then ask for its
    events (`events.due()`). Nothing here raises into the agent's run: failures are
    logged and the citation is left out.

    `reads_tool_call_results`: whether the stream's TOOL_CALL_RESULT content is read into
    the run; False (or `results_captured`) where an adapter captures each tool's own value:
    the wire's is the same result, serialised or cut down (and may be prose).
    """

    def __init__(
        self, options: CitationOptions | None = None, *, reads_tool_call_results: bool = True
    ) -> None:
        self.options = options = options or CitationOptions()
        self._reads_results = reads_tool_call_results  # a renewed run's setting
        self.reads_tool_call_results = reads_tool_call_results
        #: The assistant messages' text, which is cited (the stream engine's to feed).
        self.messages = messages = Messages()
        self._ledger = ledger = Ledger()  # every entry the model was shown, in its order
        self._hooks = hooks = Hooks(options)
        checks = Checks(options)
        self._intake = intake = Intake(hooks, checks, ledger)
        lookups = Lookups(options, checks)
        resolver = Resolver(hooks, ledger, checks, lookups, intake)
        self._thread = ThreadReading(hooks, intake, ledger)
        #: Lookups started while an answer streams (the stream engine's to start and end).
        self.ahead = LookAhead(intake, ledger, lookups, resolver)
        #: The run's `moca.citations` events (the stream engine's to ask for).
        self.events = Events(options, messages, resolver, checks, lookups)
        self._ending: Ending[CitationRun] = Ending()

    def results_captured(self) -> None:
        """The adapter captures each tool's own result from now on: TOOL_CALL_RESULT is not read."""
        self.reads_tool_call_results = False

    def renewed(self) -> CitationRun:
        """A new run in the same stream, with this one's options and settings: if this run's
        thread or turn, which its model reads, named a source, it fails closed."""
        run = CitationRun(self.options, reads_tool_call_results=self._reads_results)
        if not self._ledger.thread_read:  # the same thread, with this run's turn
            run._ledger.thread_unread()
        elif self._ledger.entries() or self._ledger.shows_markers:
            run.thread_unreadable("an earlier run in this stream named sources")
        run._ledger.after(self._ledger.order())  # the same emitter: its calls' order as known
        return run

    @property
    def marker_styles(self) -> tuple[MarkerStyle, ...]:
        """Every style of marker this run reads (`moca_marker_styles`)."""
        return self._hooks.marker_styles

    def is_reader_tool(self, tool_name: str) -> bool:
        """Whether results of `tool_name` are Reader results (asked once per name)."""
        return self._hooks.is_reader_tool(tool_name)

    @staticmethod
    def current() -> CitationRun | None:
        """The run of the stream whose `running()` this context entered: numbered tools'."""
        active = ACTIVE_RUN.get()
        run = active if isinstance(active, CitationRun) else getattr(active, "run", None)
        return run if isinstance(run, CitationRun) else None

    def end(self, after: Callable[[], CitationRun | None] | None = None) -> None:
        """The run's stream is over: a numbered tool called later (in a task that outlived
        it) numbers into `after()`, the run it belongs to, or not at all; never this run."""
        self._ending.end(after)

    def calls_out_of_order(self, *, this_run: bool = True) -> None:
        """The emitter sends the model's calls in an order of its own; `this_run=False`:
        this run's are announced in the model's order (`call_made`)."""
        self._ledger.by_emitter(announced=not this_run)

    def call_made(self, tool_call_id: str, tool_name: str) -> None:
        """The model issued a call: results number in the order calls are announced."""
        if self._hooks.is_reader_tool(tool_name):
            self._ledger.call_made(tool_call_id)

    def results_announced(self) -> None:
        """The emitter's call ids and order are its own: the adapter announces each result the
        model read, in order, by tool and text (`result_read`); all of them, or none is known."""
        self._ledger.results_announced()

    def result_read(self, tool_name: str, content: str) -> None:
        """The model read this result next (`results_announced`); ignored after `end`."""
        if not self._ending.ended and self._hooks.is_reader_tool(tool_name):
            self._ledger.call_made(result_key(tool_name, content))

    def order_not_known(self, why: str) -> None:
        """The model's order of this run's calls is not known (`why`, logged)."""
        self._ledger.order_not_known(why)

    def capture(
        self,
        tool_name: str,
        result: object,
        *,
        tool_call_id: str | None = None,
        failed: bool = False,
    ) -> None:
        """Take in one tool result (only a Reader tool's can hold sources), in the place of
        its call `tool_call_id`. A `failed` call's result holds no source (logged)."""
        if failed:
            logger.info("moca_agui: tool %s failed; nothing to capture", tool_name)
            return
        if self._ledger.by_result and self._hooks.is_reader_tool(tool_name):
            tool_call_id = result_key(tool_name, result) if isinstance(result, str) else None
        self._intake.capture(tool_name, result, tool_call_id)

    def read_history(
        self,
        messages: Iterable[object],
        *,
        kept: Iterable[object] | None = None,
        only_answers: bool = False,
    ) -> None:
        """Take in the thread the model reads, once (`ThreadReading.read`)."""
        self._thread.read(messages, kept, only_answers)

    def thread_unreadable(self, why: str) -> None:
        """The thread cannot be read whole: markers are left out (`ThreadReading.unreadable`)."""
        self._thread.unreadable(why)

    def numbered(self, tool_name: str, result: object) -> object:
        """The Reader result as the model reads it (`Intake.numbered`); after `end`, as the
        run it belongs to numbers it, or as it is."""
        if not self._ending.ended:
            return self._intake.numbered(tool_name, result)
        run = self._ending.run_after(self, tool_name)
        return result if run is None else run.numbered(tool_name, result)

    def began(self, message_id: str) -> None:
        """A message began: it names only what its model had been shown by now."""
        self.messages.began(message_id, self._ledger.arrived)

    def add_text(self, message_id: str, delta: str) -> None:
        """Append streamed text to an assistant message (one not begun begins now)."""
        if delta.__class__ is not str:
            raise TypeError(f"a text delta must be a str, not {type(delta).__name__}")
        parts = self.messages.parts(message_id)
        if not parts and not self.messages.cuts(message_id):  # no TEXT_MESSAGE_START began it
            self.messages.began(message_id, self._ledger.arrived)
        parts.append(delta)

    def rename(self, old: str, new: str) -> None:
        """The client now holds the message `old` as `new`: its event names `new`."""
        self.messages.rename(old, new)
        self.events.renamed(old)
