"""The run's `moca.citations` events: one per assistant message with text."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import CustomEvent

from ..options import CitationOptions
from ..records.event import citations_event
from .checks import Checks
from .lookups import Lookups
from .messages import Messages
from .resolve import Resolver

__all__ = ["Events"]

logger = logging.getLogger("moca_agui")


class Events:
    """Makes each message's event once for a text, as soon as its citations are resolved."""

    __slots__ = ("_checks", "_lookups", "_made", "_messages", "_options", "_resolver")

    def __init__(
        self,
        options: CitationOptions,
        messages: Messages,
        resolver: Resolver,
        checks: Checks,
        lookups: Lookups,
    ) -> None:
        self._options = options
        self._messages = messages
        self._resolver = resolver
        self._checks = checks
        self._lookups = lookups
        #: message id -> (its text when its event was made, the event): a snapshot that
        #: carried the value and the event that follows send the same records
        self._made: dict[str, tuple[str, CustomEvent | None]] = {}

    async def due(self) -> AsyncIterator[CustomEvent]:
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

    async def values(self, message_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The value each of `message_ids` has in its event, as their text stands now, by
        message id; no event is marked made (a message's event is still sent when due).
        What a MESSAGES_SNAPSHOT's messages carry on their metadata."""
        return {
            event.value["messageId"]: event.value
            async for event in self._each_when_ready(message_ids)
        }

    def renamed(self, old: str) -> None:
        """The message `old` has a new id: its event, which named `old`, is made again."""
        self._made.pop(old, None)

    async def event_for(self, message_id: str) -> CustomEvent | None:
        """The `moca.citations` event for one message, or None if it has no text or failed;
        made once for a text (a message whose text grew since is made again)."""
        text = self._messages.text(message_id)
        made = self._made.get(message_id)
        if made is not None and made[0] == text:
            return made[1]
        event = await self._make(message_id, text)
        self._made[message_id] = (text, event)
        return event

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

    async def _make(self, message_id: str, text: str) -> CustomEvent | None:
        if not text.strip():
            return None
        try:
            citations = await self._resolver.citations(text, self._messages.cuts(message_id))
            return citations_event(
                message_id,
                citations,
                include_text=self._options.include_text,
                max_event_bytes=self._options.max_event_bytes,
                records_bytes=self._checks.records_bytes(citations),
            )
        except Exception:
            logger.exception("moca_agui: no citations sent for message %s", message_id)
            return None
