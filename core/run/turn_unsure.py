"""Which of a turn's entries no one knows the place of, kept as its results arrive.

`records.order.unsure` for one turn of an order not known, after turns whose entries
are all placed: the turn's results are read as a set (any of them may have been read
first), so a result taken in, in any order, costs its entries, not the turn's. A result
is only noted as it arrives and taken in when `unsure` is first read after it: a turn
whose order is known never pays for it.
"""

from __future__ import annotations

from collections.abc import Container, Iterable

from ..records.entry import Entry

__all__ = ["TurnUnsure"]


class TurnUnsure:
    """The turn's entries placed whatever the order (the places every result read so far
    agrees on, in order) and those `unsure`: in some result and not placed."""

    __slots__ = ("_before", "_diverged", "_placed", "_results", "_sequence", "_taken", "_unsure")

    def __init__(self, before: Container[Entry]) -> None:
        self._before = before  # placed by the turns before this one
        self._results: list[Iterable[Entry]] = []  # each result's entries, as they arrived
        self._taken = 0  # how many of `_results` are taken in
        self._sequence: list[Entry] = []  # placed in this turn, in order
        self._placed: set[Entry] = set()  # the same, as a set
        self._diverged = False  # two results differ at the place after `_sequence`
        self._unsure: set[Entry] = set()

    def add(self, entries: Iterable[Entry]) -> None:
        """One result's entries, in the order it gives them (read when `unsure` is)."""
        self._results.append(entries)

    @property
    def unsure(self) -> set[Entry]:
        """The entries of the results added so far that are not placed (a set it keeps)."""
        results = self._results
        while self._taken < len(results):  # by index: `add` may run meanwhile
            self._take_in(results[self._taken])
            self._taken += 1
        return self._unsure

    def _take_in(self, entries: Iterable[Entry]) -> None:
        own = list(dict.fromkeys(e for e in entries if e not in self._before))
        sequence = self._sequence
        agree = 0  # the places this result agrees on: it is read to them first
        while agree < min(len(own), len(sequence)) and own[agree] == sequence[agree]:
            agree += 1
        if agree < len(own) and agree < len(sequence):  # two results differ there
            self._unsure.update(sequence[agree:])
            self._placed.difference_update(sequence[agree:])
            del sequence[agree:]
            self._diverged = True
        elif not self._diverged:  # every other result was read to its end: it goes on
            sequence.extend(own[agree:])
            self._placed.update(own[agree:])
            return
        self._unsure.update(e for e in own if e not in self._placed)
