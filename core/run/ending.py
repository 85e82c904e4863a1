"""The run's end: a numbered tool called after it numbers into the run it belongs to."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Ending"]

logger = logging.getLogger("moca_agui")

Run = TypeVar("Run")


class Ending(Generic[Run]):
    """Whether a run's stream is over and, if so, which run a later numbered call belongs
    to (a task the run was active in can outlive it)."""

    __slots__ = ("_after", "ended")

    def __init__(self) -> None:
        self.ended = False
        self._after: Callable[[], Run | None] | None = None

    def end(self, after: Callable[[], Run | None] | None) -> None:
        """The stream is over; `after()` gives the run a later call belongs to."""
        self.ended = True
        self._after = after

    def run_after(self, run: Run, tool_name: str) -> Run | None:
        """The run a call of `tool_name` made after `run` ended numbers into, other than
        `run`; None (logged): not known, its result is shown without numbers."""
        later = self._after() if self._after is not None else None
        if later is None or later is run:
            logger.warning(
                "moca_agui: %s was called after its run ended, and the run it belongs "
                "to is not known: its result is shown without numbers",
                tool_name,
            )
            return None
        return later
