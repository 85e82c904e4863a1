"""The order of one turn's tool calls as the model issued them, or not known and why.

A turn's order is one immutable value (`CallOrder`): built as the turn's calls are
announced (`TurnOrder`, the builder) and frozen when it is read, or read off the thread
for its earlier turns (`records.history`). Which entries' places no one knows is a pure
function of the thread's turns (`unsure`).

A model's parallel calls have an order: the model numbered its sources in it. Some
emitters send them in an order of their own (as each finishes or starts): the order is
then not known in this turn, unless the adapter announces the model's, nor in the
earlier turns the client recorded from such a wire. A thread may also list one turn's
results out of their calls' order: the model then reads them in an order not known.

An emitter that also sends each call under an id of its own leaves the adapter one way
to announce the model's order: by each result the model read (`result_key`, its tool and
its text), in the order it read them (`TurnOrder.results_announced`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .entry import Entry

__all__ = [
    "BY_EMITTER",
    "LISTED_OUT_OF_ORDER",
    "NOT_ANNOUNCED",
    "CallOrder",
    "Turn",
    "TurnOrder",
    "listed_out_of_order",
    "result_key",
    "unsure",
]

#: Why an order is not known: the emitter sends calls in an order of its own.
BY_EMITTER = "the service sends parallel Reader calls in an order of its own"
#: Why an order is not known: the thread lists the turn's results out of their calls' order.
LISTED_OUT_OF_ORDER = "the thread lists Reader results out of their calls' order"
#: Why an order is not known: a Reader result of this turn was not announced by its text.
NOT_ANNOUNCED = "a Reader result was not announced in the order the model read it"


def result_key(tool_name: str, content: str) -> str:
    """The id a result is placed by when announced by its tool and text
    (`TurnOrder.results_announced`):
    equal only for the same tool's equal text, never an emitter's id."""
    digest = hashlib.sha256(tool_name.encode("utf-8", "surrogatepass") + b"\0")
    digest.update(content.encode("utf-8", "surrogatepass"))
    return f"moca-result:{digest.hexdigest()}"


@dataclass(frozen=True, slots=True)
class CallOrder:
    """One turn's calls in the order the model issued them, or not known, and why."""

    #: The ids of the calls announced in the turn, in the model's order (the emitter's,
    #: when unknown); none for a turn of the thread, which lists its results in order.
    calls: tuple[str, ...] = ()
    #: Why the model's order is not known (None: it is).
    unknown: str | None = None
    #: The emitter sends the turn's calls in an order of its own: the thread it records
    #: holds them so, whether or not the adapter announced the model's order here.
    recorded_by_emitter: bool = False
    #: The turn's results were announced by their tool and text (`TurnOrder.results_announced`).
    by_result: bool = False

    @property
    def known(self) -> bool:
        """Whether the model's order is known."""
        return self.unknown is None


class TurnOrder:
    """The order of this turn's calls, built as they are announced (`frozen` reads it as
    a value; its fields are read here as they stand, at no cost)."""

    __slots__ = ("_frozen", "by_result", "places", "recorded_by_emitter", "unknown")

    def __init__(self) -> None:
        #: call id -> its place in the order the calls were announced (first wins)
        self.places: dict[str, int] = {}
        self.unknown: str | None = None  # as `CallOrder.unknown`
        self.recorded_by_emitter = False  # as `CallOrder.recorded_by_emitter`
        self.by_result = False  # as `CallOrder.by_result`
        self._frozen: CallOrder | None = None

    def call(self, call_id: str) -> bool:
        """The model issued the call `call_id`; whether it was not announced before."""
        if call_id in self.places:
            return False
        self.places[call_id] = len(self.places)
        self._frozen = None
        return True

    def by_emitter(self, *, announced: bool) -> None:
        """The emitter sends calls in an order of its own; `announced`: the adapter still
        announces this turn's calls in the model's order (`call`). Once not known, an
        order stays so (but for `by_result`)."""
        self.recorded_by_emitter = True
        if not announced and self.unknown is None and not self.by_result:
            self.unknown = BY_EMITTER
        self._frozen = None

    def results_announced(self) -> None:
        """The emitter sends calls under ids and in an order of its own, and the adapter
        announces each result the model read, in the order it read them, by `result_key`:
        the emitter's order no longer hides this turn's (whenever `by_emitter` is told).
        Whether each result was announced is the ledger's to check."""
        self.by_result = True
        self.recorded_by_emitter = True
        if self.unknown == BY_EMITTER:
            self.unknown = None
        self._frozen = None

    def not_known(self, why: str) -> None:
        """The model's order of this turn's calls is not known, for the reason `why`."""
        if self.unknown is None:
            self.unknown = why
        self._frozen = None

    def after(self, ended: CallOrder) -> None:
        """This turn follows `ended` in the same stream: from the same emitter, announced
        as that one's were (not, if by result: the adapter announced that run's only)."""
        if ended.recorded_by_emitter:
            self.by_emitter(announced=ended.known and not ended.by_result)

    def frozen(self) -> CallOrder:
        """The turn's order as announced so far, as a value."""
        order = self._frozen
        if order is None:
            order = CallOrder(
                tuple(self.places), self.unknown, self.recorded_by_emitter, self.by_result
            )
            self._frozen = order
        return order

    def of_thread(self, earlier: CallOrder) -> CallOrder:
        """`earlier`, the order of a turn of the thread the client recorded from this
        turn's emitter, as far as this turn knows it: not, if the emitter sends calls in
        an order of its own."""
        return CallOrder(earlier.calls, BY_EMITTER) if self.recorded_by_emitter else earlier


class Turn(NamedTuple):
    """One turn as the model read it: its calls' order and its results' entries (in the
    model's order when it is known)."""

    order: CallOrder
    results: Sequence[Sequence[Entry]]


def unsure(turns: Iterable[Turn]) -> frozenset[Entry]:
    """The entries whose place may differ between the orders the results of each turn
    (the turns in order) could have been read in: none of a turn whose order is known.

    A turn adds the same entries in every order, so the places after it are known. Inside
    a turn of an order not known, the next place is known while every result with an
    entry not yet placed has the same such entry first (any of them may have been read
    first); from the first place where two differ, the turn's other new entries are unsure.
    """
    placed: set[Entry] = set()
    unsure: set[Entry] = set()
    for turn in turns:
        if turn.order.known:
            placed.update(entry for result in turn.results for entry in result)
            continue
        results = [result for result in turn.results if result]
        #: each result not read to its end, with its first entry not yet placed; a result
        #: read to its end is dropped, so each round costs what it moves on (linear)
        live = [(result, 0) for result in results]
        while True:
            firsts: set[Entry] = set()
            moved: list[tuple[Sequence[Entry], int]] = []
            for result, at in live:
                while at < len(result) and result[at] in placed:
                    at += 1
                if at < len(result):
                    firsts.add(result[at])
                    moved.append((result, at))
            live = moved
            if len(firsts) == 1:
                placed.add(firsts.pop())
                continue
            for result in results:
                unsure.update(entry for entry in result if entry not in placed)
            placed.update(entry for result in results for entry in result)
            break
    return frozenset(unsure)


def listed_out_of_order(
    calls: Sequence[tuple[str, int]], answered: Iterable[str]
) -> Mapping[int, int]:
    """turn -> the first turn it is read as one with, for the turns of `calls` (call id,
    turn, in the order issued) whose results `answered` (call ids, in the thread's order)
    lists out of that order: a result listed after a later call's counts as one turn with
    every turn from its own to that call's."""
    place = {call_id: n for n, (call_id, _) in enumerate(calls)}
    spans: list[tuple[int, int]] = []
    latest = -1  # the place of the latest call whose result was listed so far
    for call_id in answered:
        at = place.get(call_id)
        if at is None:
            continue
        if at < latest:
            spans.append((calls[at][1], calls[latest][1]))
        else:
            latest = at
    joined: list[list[int]] = []  # [first turn, last turn] of each set of turns read as one
    for low, high in sorted(spans):
        if joined and low <= joined[-1][1]:
            joined[-1][1] = max(joined[-1][1], high)
        else:
            joined.append([low, high])
    return {turn: low for low, high in joined for turn in range(low, high + 1)}
