"""Which of a turn's entries no one knows the place of, kept as its results arrive.

`records.order.unsure` for one turn of an order not known, after turns whose entries
are all placed: the turn's results are read as a set (any of them may have been read
first), so a result taken in, in any order, costs its entries, not the turn's.
"""

from __future__ import annotations

from collections.abc import Container, Iterable

from ..records.entry import Entry

__all__ = ["TurnUnsure"]


class TurnUnsure:
    """The turn's entries placed whatever the order (the places every result read so far
    agrees on, in order) and those `unsure`: in some result and not placed."""

    __slots__ = ("_before", "_diverged", "_placed", "_sequence", "unsure")

    def __init__(self, before: Container[Entry]) -> None:
        self._before = before  # placed by the turns before this one
        self._sequence: list[Entry] = []  # placed in this turn, in order
        self._placed: set[Entry] = set()  # the same, as a set
        self._diverged = False  # two results differ at the place after `_sequence`
        self.unsure: set[Entry] = set()

    def add(self, entries: Iterable[Entry]) -> None:
        """One result's entries, in the order it gives them."""
        own = list(dict.fromkeys(e for e in entries if e not in self._before))
        sequence = self._sequence
        agree = 0  # the places this result agrees on: it is read to them first
        while agree < min(len(own), len(sequence)) and own[agree] == sequence[agree]:
            agree += 1
        if agree < len(own) and agree < len(sequence):  # two results differ there
            self.unsure.update(sequence[agree:])
            self._placed.difference_update(sequence[agree:])
            del sequence[agree:]
            self._diverged = True
        elif not self._diverged:  # every other result was read to its end: it goes on
            sequence.extend(own[agree:])
            self._placed.update(own[agree:])
            return
        self.unsure.update(e for e in own if e not in self._placed)
