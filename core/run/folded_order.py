"""A run's entries in the order the model saw them, as far as its results are folded.

The thread's entries come first, then the results folded so far, each entry once with
the records of all its copies. Each result is folded once, in the order results arrived,
at its place in the model's order (its call's place, then its arrival; a result of no
announced call after the announced ones), at the cost of its items. A result that falls
after every result folded (the common case: results arrive in their calls' order) is
appended. Once one falls before them (one arriving in the reverse of their calls'
order) or a call is announced after its results were folded, the places of every copy
are worked out, once, and kept from then on: each copy of an entry is put in place by
bisection, so such a result renumbers no other, and a call announced late moves its
results at the same cost.
What an answer's cut of the arrivals holds (`reach`) and which entries no one knows the
place of, were the order of calls not known (`unsure`), are kept as results fold too.
"""

from __future__ import annotations

import sys
from bisect import bisect, bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from ..records.entry import Entry
from .turn_unsure import TurnUnsure

__all__ = ["UNANNOUNCED", "FoldedOrder", "Item", "Result", "Seen"]

#: The place of a result whose call was not announced: after every announced call's.
UNANNOUNCED = sys.maxsize


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

#: Where a copy of an entry falls in the model's order: its result's call's place, its
#: result's arrival, its index in the result (the thread's: -1, -1, its index).
Place = tuple[int, int, int]


@dataclass(slots=True, eq=False)  # compared by identity: the same result, folded
class Result:
    """One result of this run holding entries, as it arrived."""

    call_id: str | None
    arrival: int
    captured_at: datetime
    source: str  # the tool that returned it
    items: list[Item]
    place: int = UNANNOUNCED  # its call's place among the announced ones, as folded


_T = TypeVar("_T")


class FoldedOrder:
    """The thread's entries, then the `folded` results', in the model's order: by entry
    (`seen`), as a list (`order`) and by node ref (`by_ref`)."""

    __slots__ = (
        "_by_ref",
        "_counts",
        "_first",
        "_folded",
        "_held",
        "_order",
        "_places_kept",
        "_records",
        "_spoiled",
        "_thread",
        "_thread_reach",
        "by_ref",
        "folded",
        "longest",
        "order",
        "seen",
        "unsure",
    )

    def __init__(self) -> None:
        self.seen: dict[Entry, Seen] = {}
        self.order: list[Seen] = []
        self.by_ref: dict[str, list[Seen]] = {}
        self.longest = 0  # the length of the longest ref in `by_ref`
        self.folded: list[Result] = []  # the results folded, in the model's order
        #: whether the places below are kept (until a result falls out of place, every
        #: list is in the order its items were appended, and none is needed)
        self._places_kept = False
        self._first: dict[Entry, Place] = {}  # where each entry's first copy falls
        #: the places the items of `order` and `folded` fall at, beside them (`_insert`)
        self._order: list[Place] = []
        self._folded: list[tuple[int, int]] = []
        #: the same for each list of `by_ref` and for each entry's `Seen.records`
        self._by_ref: dict[str, list[Place]] = {}
        self._records: dict[Entry, list[Place]] = {}
        #: call id -> its folded results (in arrival order) folded before it was announced
        self._held: dict[str, list[Result]] = {}
        #: the cuts k where a result that arrived later than the first k comes among them
        self._spoiled = _Cuts()
        #: k - 1 -> how many entries the thread and the first k results that arrived hold
        self._counts: list[int] = []
        self._thread_reach = 0  # how many entries the thread holds
        self._thread: set[Entry] = set()  # the entries the thread holds
        #: the entries of the folded results no one knows the place of, were the run's order
        #: of calls not known
        self.unsure = TurnUnsure(self._thread)

    def add_earlier(self, entries: Iterable[Entry]) -> None:
        """Entries the thread's earlier turns named, in the order the model read them
        (before any result is folded)."""
        now = datetime.now(UTC)
        new: list[Seen] = []
        for entry in entries:
            if entry not in self.seen:
                self.seen[entry] = seen = Seen(entry, [], now, False, earlier=True)
                new.append(seen)
                self._thread.add(entry)
        self._extend(new)
        self._thread_reach = len(self.order)

    def fold(self, fresh: list[Result], places: dict[str, int]) -> None:
        """Fold `fresh`, the results that arrived after the `folded` ones, in the order
        they arrived; `places`: the announced calls."""
        folded = self.folded
        for result in fresh:
            call_id = result.call_id
            if call_id is None:
                result.place = UNANNOUNCED
            else:
                result.place = places.get(call_id, UNANNOUNCED)
                if call_id not in places:
                    self._held.setdefault(call_id, []).append(result)
            if not self._places_kept and (not folded or folded[-1].place <= result.place):
                folded.append(result)  # after every result folded: the common case
                self._append(result)
            else:
                self._keep_places()
                self._place(result)
                for index, (entry, record, compact) in enumerate(result.items):
                    self._copy(result, index, entry, record, compact)
            self._counts.append(len(self.seen))
            self.unsure.add(map(_entry_of, result.items))

    def announced(self, call_id: str, place: int) -> None:
        """`call_id` was announced, at `place` (after every call announced before it): its
        results folded before move after the announced calls' results, before the others."""
        held = self._held.pop(call_id, ())
        if held:
            self._keep_places()
        for result in held:
            _remove(self.folded, self._folded, (result.place, result.arrival))
            was, result.place = result.place, place
            self._place(result)
            for index, (entry, record, _) in enumerate(result.items):
                seen, copy = self.seen[entry], (place, result.arrival, index)
                if record is not None:
                    records, at = seen.records, self._records[entry]
                    _insert(records, at, _remove(records, at, (was, result.arrival, index)), copy)
                if not seen.earlier and copy < self._first[entry]:
                    self._move(seen, copy, result.captured_at)

    def reach(self, cut: int) -> int | None:
        """How many entries the thread and the first `cut` results that arrived hold; None
        if a result that arrived later comes before one of them in the model's order."""
        if cut >= len(self.folded):
            return len(self.order)
        if cut <= 0:
            return self._thread_reach
        return None if self._spoiled.spoiled(cut) else self._counts[cut - 1]

    def refs(self) -> Iterator[str]:
        """Every node ref, in the model's order of its first entry."""
        return iter(dict.fromkeys(seen.entry.ref for seen in self.order))

    def _place(self, result: Result) -> None:
        """Put `result` in `folded` at its place; a result that arrived earlier and falls
        after it spoils the cuts between their arrivals (the one right after it spoils
        every cut another would: any later one that arrived earlier still did already)."""
        folded = self.folded
        at = _insert(folded, self._folded, result, (result.place, result.arrival))
        if at + 1 < len(folded) and folded[at + 1].arrival < result.arrival:
            self._spoiled.spoil(folded[at + 1].arrival, result.arrival)

    def _append(self, result: Result) -> None:
        """Take in `result`, which falls after every result folded, while no place is
        kept: its new entries and its records are appended, and no entry moves (it
        arrived last: no entry was first shown in a result that falls after it)."""
        captured_at, source, arrival = result.captured_at, result.source, result.arrival
        seen_of = self.seen
        new: list[Seen] = []
        for entry, record, compact in result.items:
            seen = seen_of.get(entry)
            if seen is None:
                seen_of[entry] = seen = Seen(entry, [], captured_at, compact, arrival=arrival)
                new.append(seen)
            elif compact:
                seen.compact = True
            if record is not None:
                seen.records.append((record, captured_at, source))
        self._extend(new)

    def _extend(self, new: list[Seen]) -> None:
        """Append `new`, entries first shown after every other, to `order` and `by_ref`
        (while no place is kept)."""
        self.order.extend(new)
        by_ref = self.by_ref
        for seen in new:
            ref = seen.entry.ref
            of_ref = by_ref.get(ref)
            if of_ref is None:
                by_ref[ref] = [seen]
                self.longest = max(self.longest, len(ref))
            else:
                of_ref.append(seen)

    def _keep_places(self) -> None:
        """Work out where each item of every list falls and keep it from now on (once:
        until now each list was appended to in the model's order)."""
        if self._places_kept:
            return
        self._places_kept = True
        first = self._first
        for index, seen in enumerate(self.order[: self._thread_reach]):
            first[seen.entry] = (-1, -1, index)  # the thread's, in the order it was read
        for result in self.folded:
            for index, (entry, record, _) in enumerate(result.items):
                copy = (result.place, result.arrival, index)
                first.setdefault(entry, copy)
                if record is not None:
                    self._records.setdefault(entry, []).append(copy)
        self._order = [first[seen.entry] for seen in self.order]
        self._folded = [(result.place, result.arrival) for result in self.folded]
        for ref, seens in self.by_ref.items():
            self._by_ref[ref] = [first[seen.entry] for seen in seens]

    def _copy(
        self, result: Result, index: int, entry: Entry, record: dict[str, Any] | None, compact: bool
    ) -> None:
        """Take in the `index`-th item of `result`, a copy of `entry`."""
        copy = (result.place, result.arrival, index)
        seen = self.seen.get(entry)
        if seen is None:
            seen = Seen(entry, [], result.captured_at, compact, arrival=result.arrival)
            self._put(seen, copy)
        else:
            seen.compact = seen.compact or compact
            if not seen.earlier:
                seen.arrival = min(seen.arrival, result.arrival)
                if copy < self._first[entry]:
                    self._move(seen, copy, result.captured_at)
        if record is not None:
            at = self._records.setdefault(entry, [])
            _insert(seen.records, at, (record, result.captured_at, result.source), copy)

    def _put(self, seen: Seen, first: Place) -> None:
        """Put `seen`, its first copy at `first`, in `order` and `by_ref`."""
        entry = seen.entry
        self.seen[entry] = seen
        self._first[entry] = first
        _insert(self.order, self._order, seen, first)
        places = self._by_ref.get(entry.ref)
        if places is None:
            places = self._by_ref[entry.ref] = []
            self.longest = max(self.longest, len(entry.ref))
        _insert(self.by_ref.setdefault(entry.ref, []), places, seen, first)

    def _move(self, seen: Seen, first: Place, captured_at: datetime) -> None:
        """`seen`'s first copy is now the one at `first`, shown to the model at `captured_at`."""
        was = self._first[seen.entry]
        _remove(self.order, self._order, was)
        _remove(self.by_ref[seen.entry.ref], self._by_ref[seen.entry.ref], was)
        seen.captured_at = captured_at
        self._put(seen, first)


def _entry_of(item: Item) -> Entry:
    return item[0]


def _insert(items: list[_T], places: list[Any], item: _T, place: Any) -> int:
    """Put `item` in `items`, kept in the order of their `places` (a list beside it),
    after those of a lower place; where it went (at the end, the common case, at no
    search)."""
    at = len(places)
    if at and places[-1] > place:
        at = bisect(places, place)
    places.insert(at, place)
    items.insert(at, item)
    return at


def _remove(items: list[_T], places: list[Any], place: Any) -> _T:
    """Take the item at `place` out of `items`, kept beside their `places`."""
    at = bisect_left(places, place)
    del places[at]
    return items.pop(at)


class _Cuts:
    """The cuts k (of the first k results to arrive) that are spoiled, marked an interval
    at a time at a cost of the cuts not marked before (each cut is marked once)."""

    __slots__ = ("_next",)

    def __init__(self) -> None:
        #: a spoiled cut -> a later cut, no further than the first one not spoiled after it
        self._next: dict[int, int] = {}

    def spoil(self, after: int, upto: int) -> None:
        """Spoil the cuts after `after`, up to `upto`."""
        cut = self._unspoiled(after + 1)
        while cut <= upto:
            self._next[cut] = cut + 1
            cut = self._unspoiled(cut + 1)

    def spoiled(self, cut: int) -> bool:
        return cut in self._next

    def _unspoiled(self, cut: int) -> int:
        """The first cut from `cut` on not spoiled (the path to it shortened)."""
        skip = self._next
        first = cut
        while first in skip:
            first = skip[first]
        while cut != first:
            skip[cut], cut = first, skip[cut]
        return first
