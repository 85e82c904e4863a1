"""`Snapshots`: what a MESSAGES_SNAPSHOT tells a stream's run.

A snapshot replaces the client's messages (as `@ag-ui/client` applies it): an answer it
gives another id (the same text, under an id the run had not seen) is cited under the
snapshot's id; one it leaves out otherwise is not cited.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..run import CitationRun
from .renames import renames

__all__ = ["Snapshots"]

logger = logging.getLogger("moca_agui")


class Snapshots:
    """Reads each snapshot of a stream into its run. `snapshot_text(message_id)` says
    whether a snapshot's assistant message the run has no text of is an answer of this
    run, whose text the snapshot is the only carrier of (a model that does not stream);
    None: no snapshot carries text. `question_id`, the id of the run's question (or what
    gives it, asked once, when a snapshot names a user message): a snapshot's assistant
    messages after it that the run has no text of are answers of this run as well."""

    __slots__ = ("_after_question", "_question_id", "_shown", "_snapshot_text")

    def __init__(
        self,
        snapshot_text: Callable[[str], bool] | None,
        question_id: str | Callable[[], str | None] | None,
    ) -> None:
        self._snapshot_text = snapshot_text
        self._question_id = question_id
        self._after_question: set[str] | None = None  # None: the question not seen yet
        #: The assistant messages of the snapshot being read: (id, content), in order.
        self._shown: list[tuple[str, object]] = []

    def started(self) -> None:
        self._shown = []
        self._after_question = None

    def shown(self, message_id: str, role: str, content: object) -> None:
        """The snapshot's next message."""
        if role == "user" and message_id == self._question():
            self._after_question = set()
        elif role == "assistant":
            self._shown.append((message_id, content))
            if self._after_question is not None:
                self._after_question.add(message_id)

    def _question(self) -> str | None:
        """The question's id, asked once (the body that holds it is read by then)."""
        if callable(self._question_id):
            self._question_id = self._question_id()
        return self._question_id

    def ended(self, run: CitationRun, open_ids: set[str]) -> list[str]:
        """The snapshot was read: the client now holds its messages and no other. The
        run's answers it renamed take their new ids; those it left out are cited no
        more. Returns the ended answers it carries the sources of."""
        shown, self._shown = self._shown, []
        ids = {message_id for message_id, _ in shown}
        for old, new in renames(run, shown, ids, open_ids):
            logger.debug("moca_agui: the snapshot names message %s %s", old, new)
            run.rename(old, new)
        after_question = self._after_question or set()
        for message_id, content in shown:
            if (
                isinstance(content, str)
                and content.strip()
                and not run.messages.text(message_id)
                and (
                    message_id in after_question
                    or (self._snapshot_text is not None and self._snapshot_text(message_id))
                )
            ):
                run.add_text(message_id, content)
        for message_id in run.messages.with_text():
            if message_id not in ids:
                logger.info("moca_agui: message %s is not in the snapshot; not cited", message_id)
                run.messages.mute(message_id)
        return [mid for mid in run.messages.citable() if mid in ids and mid not in open_ids]
