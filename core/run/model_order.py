"""A run's entries in the order the model saw them, as far as its results are folded.

The thread's entries come first, then the results folded so far, each entry once with
the records of all its copies. Results are folded in the model's order (the ledger
works that order out); a result that would fall before one already folded is folded
into a new `ModelOrder`, never into this one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..records.entry import Entry

__all__ = ["Item", "ModelOrder", "Result", "Seen"]


@dataclass(slots=True)
class Seen:
    """An entry as the run has it: every record of it, in the model's order (a record is
    checked only when an answer needs it, so any of them may prove invalid)."""

    entry: Entry
    #: (record, when its result was captured, the tool that returned it), in order.
    records: list[tuple[dict[str, Any], datetime, str]]
    captured_at: datetime  # when the model was first shown the entry
    compact: bool  # named by a compact result: `lookup` may find its record
    earlier: bool = False  # read in an earlier turn: `lookup` may find its record
    #: How many of this run's results had arrived before the first that holds it (-1:
    #: the thread's): an answer that began before then was written without it.
    arrival: int = -1


#: One item of a result: its entry, its record (unchecked; None: a compact result, or a
#: value that is not plain JSON), whether it was compact.
Item = tuple[Entry, dict[str, Any] | None, bool]


@dataclass(slots=True, eq=False)  # compared by identity: the same result, folded
class Result:
    """One result of this run holding entries, as it arrived."""

    call_id: str | None
    arrival: int
    captured_at: datetime
    source: str  # the tool that returned it
    items: list[Item]


class ModelOrder:
    """The thread's entries, then the `folded` results', in the model's order: by entry
    (`seen`), as a list (`order`) and by node ref (`by_ref`)."""

    __slots__ = (
        "_held_unannounced",
        "_latest",
        "_reach",
        "_thread_reach",
        "_unannounced_from",
        "by_ref",
        "folded",
        "longest",
        "order",
        "seen",
    )

    def __init__(self) -> None:
        self.seen: dict[Entry, Seen] = {}
        self.order: list[Seen] = []
        self.by_ref: dict[str, list[Seen]] = {}
        self.longest = 0  # the length of the longest ref in `by_ref`
        self.folded: list[Result] = []  # the first len(folded) results, in model order
        #: call id -> how many `folded` results of that call were of no announced call
        #: when folded; they are the last of `folded`, from `_unannounced_from` on
        self._held_unannounced: dict[str, int] = {}
        self._unannounced_from = 0
        #: For the first k `folded` results: how many entries they and the thread hold,
        #: or -1 where a result that arrived later than the first k comes among them.
        self._reach: list[int] = []
        self._latest = -1  # the latest arrival among the `folded` results
        self._thread_reach = 0  # how many entries the thread holds

    def add_earlier(self, entries: Iterable[Entry]) -> None:
        """Entries the thread's earlier turns named, in the order the model read them
        (before any result is folded)."""
        now = datetime.now(UTC)
        for entry in entries:
            if entry not in self.seen:
                self._append(Seen(entry, [], now, False, earlier=True))
        self._thread_reach = len(self.order)

    def fold(self, fresh: list[Result], places: dict[str, int]) -> None:
        """Append `fresh`, results that fall after the `folded` ones, in the model's order;
        `places`: the announced calls."""
        seen, reach, latest, folded = self.seen, self._reach, self._latest, self.folded
        for result in fresh:
            for entry, record, compact in result.items:
                known = seen.get(entry)
                if known is None:
                    known = Seen(entry, [], result.captured_at, compact, arrival=result.arrival)
                    self._append(known)
                else:
                    known.compact = known.compact or compact
                    if not known.earlier and result.arrival < known.arrival:
                        known.arrival = result.arrival
                if record is not None:
                    known.records.append((record, result.captured_at, result.source))
            latest = max(latest, result.arrival)
            # the first k results in the model's order are the first k that arrived
            reach.append(len(self.order) if latest == len(reach) else -1)
            if result.call_id in places:  # then every folded result is of an announced call
                self._unannounced_from = len(folded) + 1
            elif result.call_id is not None:
                held = self._held_unannounced
                held[result.call_id] = held.get(result.call_id, 0) + 1
            folded.append(result)
        self._latest = latest

    def announced(self, call_id: str) -> bool:
        """`call_id` was announced, last of the calls; whether the order no longer holds: a
        folded result of it keeps its place only if it is the one first of the unannounced
        (it joins the announced ones, after all of them)."""
        held = self._held_unannounced.pop(call_id, 0)
        folded, first = self.folded, self._unannounced_from
        if held == 1 and first < len(folded) and folded[first].call_id == call_id:
            self._unannounced_from += 1
            return False
        return bool(held)

    def reach(self, cut: int) -> int | None:
        """How many entries the thread and the first `cut` results that arrived hold; None
        if a result that arrived later comes before one of them in the model's order."""
        if cut >= len(self.folded):
            return len(self.order)
        if cut <= 0:
            return self._thread_reach
        reach = self._reach[cut - 1]
        return reach if reach >= 0 else None

    def _append(self, seen: Seen) -> None:
        self.seen[seen.entry] = seen
        self.order.append(seen)
        self.by_ref.setdefault(seen.entry.ref, []).append(seen)
        self.longest = max(self.longest, len(seen.entry.ref))
