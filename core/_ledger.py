"""The run's ledger: every source the model was shown, in the order it was shown them.

An entry is one (`node.ref`, `span`) pair, span compared by value, no span its own
value. Entries are ordered by the tool call that returned them, in the order the model
issued its calls (`call_made`), then by their position inside the result; a result
whose call was never announced comes after the announced ones, in arrival order. When
results arrive does not matter: the order is worked out when it is asked for.

Numbers shown to the model (`show`) are assigned as results are produced, and once a
run has shown any, they are its marker table.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

__all__ = ["Entry", "Ledger", "Seen"]


class Entry(NamedTuple):
    """One source the model was shown: a node and a span of it (None: no span).

    A named tuple: entries are hashed and compared on every step of numbering, in C.
    """

    ref: str
    span: tuple[int, int] | None = None


@dataclass(slots=True)
class Seen:
    """An entry as the run has it: the first record of it in the model's order, if any."""

    entry: Entry
    record: dict[str, Any] | None  # None: a compact result, or an invalid record
    captured_at: datetime
    compact: bool  # named by a compact result only: `lookup` may find its record


#: One item of a result: its entry, its valid record (or None), whether it was compact.
Item = tuple[Entry, dict[str, Any] | None, bool]


@dataclass(slots=True)
class _Result:
    call_id: str | None
    arrival: int
    captured_at: datetime
    items: list[Item]


class Ledger:
    """The entries of one run, numbered in the order the model saw them."""

    __slots__ = ("_calls", "_lock", "_order", "_results", "_shown")

    def __init__(self) -> None:
        self._calls: dict[str, int] = {}  # tool call id -> its place in the model's order
        self._results: list[_Result] = []  # in arrival order
        self._order: list[Seen] | None = None  # the entries in the model's order, cached
        self._shown: dict[Entry, str] = {}  # entry -> the marker the model was shown
        self._lock = threading.Lock()  # numbered tools may run in worker threads

    def call_made(self, call_id: str) -> None:
        """The model issued this call (calls are announced in the order it issued them)."""
        if call_id not in self._calls:
            self._calls[call_id] = len(self._calls)
            self._order = None

    def add(self, call_id: str | None, items: list[Item], captured_at: datetime) -> None:
        """One result's items, in the order the result gives them."""
        if items:
            self._results.append(_Result(call_id, len(self._results), captured_at, items))
            self._order = None

    def entries(self) -> list[Seen]:
        """Every entry once, in the model's order; a later copy of an entry with a record
        gives its record to an earlier one without (a compact result, an invalid record)."""
        if self._order is not None:
            return self._order
        unannounced = len(self._calls)
        calls = self._calls
        results = sorted(
            self._results,
            key=lambda r: (
                unannounced if r.call_id is None else calls.get(r.call_id, unannounced),
                r.arrival,
            ),
        )
        seen: dict[Entry, Seen] = {}
        for result in results:
            for entry, record, compact in result.items:
                known = seen.get(entry)
                if known is None:
                    seen[entry] = Seen(entry, record, result.captured_at, compact)
                elif known.record is None and record is not None:
                    known.record, known.captured_at = record, result.captured_at
                elif known.record is None:
                    known.compact = known.compact or compact
        self._order = list(seen.values())
        return self._order

    def show(self, entries: list[Entry]) -> list[str]:
        """The marker the model is shown for each entry, assigned run-wide in the order
        results are produced; an entry shown before keeps its marker."""
        with self._lock:
            for entry in entries:
                if entry not in self._shown:
                    self._shown[entry] = f"[{len(self._shown) + 1}]"
            return [self._shown[entry] for entry in entries]

    def shown(self) -> dict[Entry, str]:
        """The markers the model was shown, by entry (empty: it was shown none)."""
        return dict(self._shown)
