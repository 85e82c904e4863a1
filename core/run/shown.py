"""The markers numbered tools showed the model, by entry."""

from __future__ import annotations

from ..markers.numbered import marker_number
from ..markers.style import canonical
from ..records.entry import Entry

__all__ = ["ShownMarkers"]


class ShownMarkers:
    """The marker beside each entry the model was shown one for: the thread's as it read
    them (`earlier`), this run's assigned in the order results are produced, after the
    highest the thread showed (`show`). An entry shown one keeps it."""

    __slots__ = ("_by_marker", "_next", "_shown", "showed")

    def __init__(self) -> None:
        self._next = 1  # the number the next entry shown gets
        self._shown: dict[Entry, str] = {}  # entry -> the marker the model was shown
        self._by_marker: dict[str, Entry] = {}  # marker -> the entry last shown it
        self.showed = False  # whether this run showed the model a marker (`show`)

    def earlier(self, entry: Entry, marker: str) -> None:
        """The thread showed `marker` beside `entry`: this run numbers on after it."""
        if entry in self._shown:
            return
        self._add(entry, marker)
        number = marker_number(marker)
        if number is not None and number >= self._next:
            self._next = number + 1

    def show(self, entries: list[Entry]) -> list[str]:
        """The marker the model is shown for each entry (a new one: the next number)."""
        self.showed = self.showed or bool(entries)
        for entry in entries:
            if entry not in self._shown:
                self._add(entry, canonical(self._next))
                self._next += 1
        return [self._shown[entry] for entry in entries]

    def _add(self, entry: Entry, marker: str) -> None:
        self._shown[entry] = marker
        self._by_marker[marker] = entry

    def by_entry(self) -> dict[Entry, str]:
        """The markers shown, by entry (a copy; empty: none was shown)."""
        return dict(self._shown)

    def marker_of(self, entry: Entry) -> str | None:
        """The marker shown beside `entry`, if any."""
        return self._shown.get(entry)

    def shown_as(self, marker: str) -> Entry | None:
        """The entry last shown beside `marker`, if any."""
        return self._by_marker.get(marker)

    def __bool__(self) -> bool:
        return bool(self._shown)
