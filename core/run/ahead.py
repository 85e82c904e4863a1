"""Looking ahead: lookups started while an answer still streams."""

from __future__ import annotations

import logging

from .intake import Intake
from .ledger import Ledger
from .lookups import Lookups
from .resolve import Resolver

__all__ = ["LookAhead"]

logger = logging.getLogger("moca_agui")


class LookAhead:
    """Starts the lookups an answer's streaming text asks for, so they run while the model
    writes; ends those still running when the run ends."""

    __slots__ = ("_intake", "_ledger", "_lookups", "_resolver")

    def __init__(
        self, intake: Intake, ledger: Ledger, lookups: Lookups, resolver: Resolver
    ) -> None:
        self._intake = intake
        self._ledger = ledger
        self._lookups = lookups
        self._resolver = resolver

    @property
    def worth_it(self) -> bool:
        """Whether an answer's text is worth reading as it streams: a lookup can still
        start and some source's record can come only from it (a compact result, an
        earlier turn)."""
        return self._lookups.startable and (
            bool(self._intake.compact_tools) or self._ledger.has_earlier
        )

    def mentioned(self, text: str) -> None:
        """`text`, a part of an answer still streaming, may name sources only `lookup` can
        give a record of: start those lookups now, so they run while the model writes."""
        try:
            self._resolver.prefetch(text)
        except Exception:
            logger.exception("moca_agui: could not look ahead; lookups wait for the answer")

    def end(self) -> None:
        """End the lookups still running: the run ended, failed or lost its client."""
        self._lookups.cancel()
