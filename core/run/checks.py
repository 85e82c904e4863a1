"""Which of a run's records may be sent: valid, of a loaded package, each checked once."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from ..options import CitationOptions
from ..records.event import Citation
from ..records.schema import InvalidRecord, WireText, check, private_record
from .ledger import Seen

__all__ = ["Checks", "Found"]

logger = logging.getLogger("moca_agui")

#: A record found for an entry: the record, when it was captured, its span.
Found = tuple[dict[str, Any], datetime, tuple[int, int] | None]


class Checks:
    """The records a run keeps, each checked only when an answer needs it."""

    __slots__ = ("_checked", "_packages", "_read_from")

    def __init__(self, options: CitationOptions) -> None:
        self._packages = options.packages
        self._checked: dict[int, dict[str, Any] | None] = {}  # id(candidate) -> its record
        #: id(record) -> the record and the text it was read from, for every record kept:
        #: what bounds its size.
        self._read_from: dict[int, tuple[dict[str, Any], WireText]] = {}

    def keep(self, item: dict[str, Any], read: tuple[dict[str, Any], WireText] | None) -> None:
        """Keep `item`, the very dict read from `read`'s text (no one else holds it)."""
        if read is not None:
            self._read_from[id(item)] = read

    def copied(self, item: object) -> dict[str, Any]:
        """A private copy of `item`, kept by the run (`InvalidRecord` if it has none)."""
        record, text = private_record(item)
        self._read_from[id(record)] = (record, text)
        return record

    def record(self, seen: Seen) -> Found | None:
        """An entry's first record, in the model's order, that is valid and of a loaded
        package, when it was captured, and its span (the entry's); None if it has none."""
        for candidate, captured_at, source in seen.records:
            key = id(candidate)  # the ledger holds every candidate: its id stays its own
            if key not in self._checked:
                self._checked[key] = self.accept(source, candidate)
            record = self._checked[key]
            if record is not None:
                return record, captured_at, seen.entry.span
        return None

    def accept(self, source: str, record: dict[str, Any]) -> dict[str, Any] | None:
        """`record` (kept by the run) if it is valid and of a loaded package, else None
        (logged)."""
        try:
            check(record)
        except InvalidRecord as exc:
            logger.warning("moca_agui: skipped an invalid record from %s: %s", source, exc)
            return None
        packages = self._packages
        if packages is not None and record["package"]["digest"] not in packages:
            logger.warning(
                "moca_agui: skipped a record of package %.200s: its digest %s is not in `packages`",
                record["package"]["id"],
                record["package"]["digest"],
            )
            return None
        return record

    def records_bytes(self, citations: list[Citation]) -> int | None:
        """At most how many bytes the citations' records take as compact JSON: the sizes of
        the texts they were read from, each once (None: one was not measured)."""
        texts: dict[WireText, int] = {}
        for citation in citations:
            found = self._read_from.get(id(citation.record))
            if found is None or found[0] is not citation.record or found[1].size is None:
                return None
            texts[found[1]] = found[1].size
        return sum(texts.values())
