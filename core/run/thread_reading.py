"""The thread the model reads on this turn, read once into the run's ledger."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from ..records.history import earlier_results, kept_then_answers, kept_then_sent
from .hooks import Hooks
from .intake import Intake
from .ledger import Ledger

__all__ = ["ThreadReading"]

logger = logging.getLogger("moca_agui")


class ThreadReading:
    """Reads the thread once: its earlier Reader results become entries before this run's,
    with the markers the model was shown; a thread not read whole fails the run closed."""

    __slots__ = ("_hooks", "_intake", "_ledger", "_taken")

    def __init__(self, hooks: Hooks, intake: Intake, ledger: Ledger) -> None:
        self._hooks = hooks
        self._intake = intake
        self._ledger = ledger
        self._taken = False  # `read` was called

    def read(
        self,
        messages: Iterable[object],
        kept: Iterable[object] | None,
        only_answers: bool = False,
    ) -> None:
        """Take in the thread the model reads on this turn (`RunAgentInput.messages`, as
        `ag_ui.core` messages or wire dicts): the Reader results of its earlier turns
        become entries, before this run's, with the markers the model was shown. No
        record of the thread is kept (the client sent them): an earlier source is cited
        only with a record the Reader gives in this run (again, or through `lookup`).

        `kept`: the thread the framework keeps server-side (a checkpoint, a session, an
        agent's own messages, a thread store), as the model reads it; it comes first. The
        framework merges the client's thread into it (`kept_then_sent`: the messages of
        `messages` it does not hold follow), or, `only_answers`, takes from the client
        only its answers to calls the kept thread left open (`kept_then_answers`): a turn
        the client sends that the kept thread lacks never reaches the model, so it is
        never numbered. `kept` is read here, once: an iterator that raises fails the run
        closed, as below.

        Read once: later calls are passed over (a framework may start its model more than
        once in a run). Call it before the run's first result; after a numbered tool
        showed a marker, the thread is not numbered (the model was shown numbers that did
        not count it): the run fails closed. A thread that cannot be read whole is never
        numbered in part: the run fails closed (`unreadable`); the results it could read
        still name the nodes a versioned ref may cite."""
        if self._taken:
            logger.debug("moca_agui: the thread was read before; passed over")
            return
        self._taken = True
        self._take(messages, kept, only_answers)

    def unreadable(self, why: str) -> None:
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

    def _take(
        self, messages: Iterable[object], kept: Iterable[object] | None, only_answers: bool
    ) -> None:
        if not self._ledger.thread_read:
            return
        failed: Exception | None = None
        try:
            if kept is not None:
                merged = kept_then_answers if only_answers else kept_then_sent
                messages = merged(kept, messages)
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
            self.unreadable(f"{type(failed).__name__}: {failed}")
