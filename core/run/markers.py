"""The run's marker table: which entry each marker the model may write names.

The built-in table (the markers the model was shown, else the default numbering `[n]` =
the n-th entry in the model's order) is read marker by marker from the ledger, so it
costs nothing to keep as results arrive. A plugin's table (`moca_marker_table`) is asked
with every entry, once for each state of the ledger.

A table is one answer's: it holds only the entries the model had been shown when the
answer began (the thread's, and the results that had arrived by then: its `cut`); a
source that arrived later is no marker's, whatever the marker's number.

A thread not read whole, or a result of this run not read (while the model was shown no
marker, for the built-in table; in any case, for a plugin's), leaves the numbers the
model counted unknown: the table is then empty. So does a result that arrived after the
answer began but comes before one that arrived earlier in the model's order, for the
default numbers (no one knows which sources the model had counted).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..markers.numbered import marker_number
from ..markers.style import canonical
from ..records.entry import Entry
from .hooks import Hooks
from .ledger import Ledger

__all__ = ["MarkerTable"]


class MarkerTable:
    """marker -> entry for one ledger state, split in two: the markers whose entry is
    known (`entry`, `known`) and those whose entry depends on an order no one knows
    (`unsure`: an entry of `Ledger.unsure` not shown beside that marker). A marker naming
    an entry the run does not hold names nothing."""

    __slots__ = (
        "_any",
        "_blind",
        "_cut",
        "_held_by",
        "_ledger",
        "_plugin",
        "_reach",
        "_shows_markers",
        "_unsettled",
        "order_unknown",
    )

    def __init__(self, ledger: Ledger, hooks: Hooks, cut: int | None = None) -> None:
        self._ledger = ledger
        self._cut = cut  # the results that had arrived when the answer began (None: all)
        builtin = hooks.builtin_marker_table
        #: How many entries in the model's order the default numbers count over (None:
        #: not known, `Ledger.reach`).
        self._reach = reach = len(ledger.entries()) if cut is None else ledger.reach(cut)
        #: No number the model counted is known (a thread or a result not read). Shown
        #: markers stand for a result not read only in the built-in table, which they
        #: are; a plugin's table may number by order, which that result leaves unknown.
        self._shows_markers = shown = builtin and ledger.shows_markers
        self._blind = not ledger.thread_read or not (shown or ledger.counted)
        #: Whether the numbers the model counted are unknown only because of when results
        #: arrived (`Ledger.reach`): markers that are no shown ones are left out.
        self.order_unknown = reach is None and not self._blind and not shown
        self._unsettled = ledger.unsure()
        #: marker -> the entry `_held` gives it, for each marker asked (the table lives as
        #: long as its ledger state: the look-ahead asks for one marker again and again)
        self._held_by: dict[str, Entry | None] = {}
        self._plugin: dict[str, Entry] | None = None
        if not builtin and not self._blind:
            self._blind = reach is None
            entries = [s.entry for s in ledger.entries()[: reach or 0]]
            visible = set(entries)
            self._plugin = {
                marker: entry
                for marker, entry in hooks.marker_table(
                    entries, {e: m for e, m in ledger.shown().items() if e in visible}
                ).items()
                if isinstance(entry, Entry)
            }
        #: sure -> whether the table holds any marker known (True) or unsure, once asked
        #: (the table lives as long as its ledger state)
        self._any: dict[bool, bool] = {}

    # `known` and `unsure` are made when read, not kept: a table holding them would be
    # tied to itself in a cycle, and a run's objects then wait for the garbage collector.
    @property
    def known(self) -> Mapping[str, str]:
        """marker -> ref, of the markers whose entry is known."""
        return _Refs(self, sure=True)

    @property
    def unsure(self) -> Mapping[str, str]:
        """marker -> ref, of the markers whose entry depends on an order no one knows."""
        return _Refs(self, sure=False)

    def entry(self, marker: str) -> Entry | None:
        """The entry `marker` names, if the run holds it and its place is known."""
        entry = self._held(marker)
        return entry if entry is not None and self._sure(marker, entry) else None

    def _held(self, marker: str) -> Entry | None:
        """The entry the table gives `marker`, if the run holds it (worked out once)."""
        held_by = self._held_by
        if marker in held_by:  # asked before (no KeyError raised and caught: most are new)
            return held_by[marker]
        entry = held_by[marker] = self._worked_out(marker)
        return entry

    def _worked_out(self, marker: str) -> Entry | None:
        ledger = self._ledger
        if self._blind:
            return None
        if self._plugin is not None:
            entry = self._plugin.get(marker)
        elif self._shows_markers:  # the numbers the model read beside each result
            entry = ledger.shown_as(marker)
        else:  # the n-th entry in the model's order, if the model had counted it
            number = marker_number(marker)
            if number is None or number > (self._reach or 0):
                return None
            seen = ledger.entries()[number - 1]
            return seen.entry if ledger.shown_before(seen, self._cut) else None
        held = ledger.seen(entry) if entry is not None else None
        return entry if held is not None and ledger.shown_before(held, self._cut) else None

    def _sure(self, marker: str, entry: Entry) -> bool:
        return entry not in self._unsettled or self._ledger.marker_of(entry) == marker

    def _markers(self) -> Iterator[str]:
        """Every marker of the table (read only by a plugin that iterates it)."""
        if self._blind:
            return
        if self._plugin is not None:
            yield from self._plugin
        elif self._shows_markers:  # each once, read as far as the reader goes
            once: set[str] = set()
            for marker in self._ledger.shown().values():
                if marker not in once:
                    once.add(marker)
                    yield marker
        else:
            yield from (canonical(n) for n in range(1, (self._reach or 0) + 1))


class _Refs(Mapping[str, str]):
    """marker -> ref of the table's known (`sure`) or unsure markers, read on demand."""

    __slots__ = ("_sure", "_table")

    def __init__(self, table: MarkerTable, *, sure: bool) -> None:
        self._table = table
        self._sure = sure

    def __bool__(self) -> bool:
        held = self._table._any
        if self._sure not in held:  # the table lives as long as the ledger state: asked once
            nothing = not self._sure and not self._table._unsettled
            held[self._sure] = not nothing and next(iter(self), None) is not None
        return held[self._sure]

    def __getitem__(self, marker: str) -> str:
        ref: str | None = self.get(marker)
        if ref is None:
            raise KeyError(marker)
        return ref

    def get(self, marker: object, default: Any = None) -> Any:  # no KeyError raised and caught
        """The ref of `marker`'s entry, if the table holds it among its `sure` markers."""
        if isinstance(marker, str):
            table = self._table
            entry = table._held(marker)
            if entry is not None and table._sure(marker, entry) is self._sure:
                return entry.ref
        return default

    def __contains__(self, marker: object) -> bool:
        return self.get(marker) is not None

    def __iter__(self) -> Iterator[str]:
        return filter(self._has, self._table._markers())

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def _has(self, marker: str) -> bool:
        return marker in self
