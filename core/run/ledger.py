"""The run's ledger: every source the model was shown, in the order it was shown them.

An entry is one (`node.ref`, `span`) pair, span compared by value, no span its own
value. Entries are ordered by the tool call that returned them, in the order the model
issued its calls (`call_made`), then by their position inside the result; a result
whose call was never announced comes after the announced ones, in arrival order. When
results arrive does not matter: the order is worked out when it is asked for.

The thread's earlier turns come first (`add_earlier`): the entries the model read there,
in the order it read them, with the markers it was shown. They hold no record (the
client sent them); this run's results of the same entry add theirs.

Numbers shown to the model (`show`) are assigned as results are produced, after the
highest the thread showed, and once the thread has shown any, they are its marker table.

Each turn's order is a value (`records.order.CallOrder`): the thread's turns' as the
thread gives it (`add_earlier`), this run's built as its calls are announced (`order`,
`call_made`, `by_emitter`). An entry whose place may differ between the orders a turn's
results could have been read in, where that order is not known, has no known number
(`unsure`, a function of the turns).

A thread that could not be read whole (`thread_unread`) leaves every number unknown: the
model counted on from entries the run never saw, so no marker names a known source, and
a numbered tool shows no marker (one could name two sources). A result of this run that
could not be read (`result_unread`) leaves the default numbers unknown; shown ones stand.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime

from ..records.entry import Entry
from ..records.order import NOT_ANNOUNCED, CallOrder, Turn, TurnOrder, unsure
from ..records.references import KnownRefs
from .folded_order import FoldedOrder, Item, Result, Seen
from .shown import ShownMarkers

__all__ = ["Entry", "Item", "Ledger", "Seen"]


class Ledger:
    """The entries of one run, numbered in the order the model saw them.

    The order is kept as entries come in (`FoldedOrder`): each result is folded once, at
    its place, at the cost of its items, whenever it arrives (one that falls before those
    folded, its call announced earlier, is put before them) and a call announced after
    its results moves them at the same cost; only an earlier turn read after this run's
    results makes the order anew. `version` counts the changes, for the views a run
    keeps of the ledger.
    """

    __slots__ = (
        "_counted",
        "_earlier",
        "_folded_version",
        "_lock",
        "_markers",
        "_model",
        "_read",
        "_rebuild",
        "_results",
        "_thread_at",
        "_thread_unknown",
        "_thread_unsure_at",
        "_turn",
        "_turns",
        "_unsure",
        "_waiting",
        "version",
    )

    def __init__(self) -> None:
        self._turn = TurnOrder()  # the order of this run's calls
        self._read = True  # whether the thread was read whole (else no number is known)
        self._counted = True  # whether every result of this run was read (else its count)
        self._earlier: list[Entry] = []  # the thread's entries, in the order the model read them
        #: the thread's turns, by turn: its order and its results, each as its entries
        self._turns: dict[int, tuple[CallOrder, list[list[Entry]]]] = {}
        self._thread_unknown: str | None = None  # why a turn's order in `_turns` is not known
        self._thread_at = 0  # the version the ledger had when the thread last changed
        #: the entries of the thread no one knows the place of, and the state they are of
        self._thread_unsure_at: tuple[object, frozenset[Entry]] = (None, frozenset())
        self._results: list[Result] = []  # in arrival order
        self._markers = ShownMarkers()  # the markers the model was shown, by entry
        self._model = FoldedOrder()  # the entries in the model's order, as folded so far
        #: call id (None: none) -> how many results of this run have it and no announced call
        self._waiting: dict[str | None, int] = {}
        self._unsure: tuple[int, frozenset[Entry]] = (-1, frozenset())  # by version
        self._folded_version = 0
        self._rebuild = False  # an earlier turn came after this run's results: fold anew
        self.version = 0  # bumped on every change
        self._lock = threading.Lock()  # numbered tools may run in worker threads

    def by_emitter(self, *, announced: bool) -> None:
        """The emitter sends calls in an order of its own, so the thread holds its earlier
        turns' calls so; `announced`: this run's are announced in the model's order all
        the same (`TurnOrder.by_emitter`)."""
        with self._lock:
            self._turn.by_emitter(announced=announced)
            self.version += 1

    def results_announced(self) -> None:
        """This run's results are announced by their tool and text, in the order the model
        read them (`TurnOrder.results_announced`; known only if each of them was)."""
        with self._lock:
            self._turn.results_announced()
            self.version += 1

    @property
    def by_result(self) -> bool:
        """Whether this run's results are announced by their tool and text."""
        return self._turn.by_result

    def order_not_known(self, why: str) -> None:
        """The model's order of this run's calls is not known, for the reason `why`."""
        with self._lock:
            self._turn.not_known(why)
            self.version += 1

    def after(self, ended: CallOrder) -> None:
        """This run follows the turn of order `ended` in the same stream (`TurnOrder.after`)."""
        with self._lock:
            self._turn.after(ended)
            self.version += 1

    def order(self) -> CallOrder:
        """The order of this run's calls, as announced so far (maybe from other threads)."""
        with self._lock:
            return self._turn.frozen()

    def thread_unread(self) -> None:
        """The thread could not be read whole: which source any number names is not known."""
        with self._lock:
            self._read = False
            self.version += 1

    def result_unread(self) -> None:
        """A result of this run could not be read: how many sources the model counted in
        it is not known, so no default number is."""
        with self._lock:
            self._counted = False
            self.version += 1

    @property
    def counted(self) -> bool:
        """Whether every result of this run was read, so the default numbers are known."""
        return self._counted

    @property
    def thread_read(self) -> bool:
        """Whether the thread was read whole, so the numbers the model counted are known."""
        return self._read

    def call_made(self, call_id: str) -> None:
        """The model issued this call (calls are announced in the order it issued them)."""
        with self._lock:
            if self._turn.call(call_id):
                self._waiting.pop(call_id, None)
                self._model.announced(call_id, self._turn.places[call_id])
                self.version += 1

    def add_earlier(
        self, entries: list[tuple[Entry, str | None]], turn: int, order: CallOrder
    ) -> None:
        """One earlier result's entries, with the marker the model was shown beside each
        (None: none), in the order the thread gives them; `turn`: the turn it was read
        in, of the calls' `order`.

        Raises ValueError once this run showed a marker: it was numbered without the
        thread, so a number it showed may be one the thread gave another source."""
        if self._markers.showed:
            raise ValueError("a numbered tool showed markers before the thread was read")
        with self._lock:
            _, results = self._turns.setdefault(turn, (order, []))
            results.append([entry for entry, _ in entries])
            if not order.known:  # one result read out of order: the whole turn is
                self._turns[turn] = (order, results)
                self._thread_unknown = self._thread_unknown or order.unknown
            in_place = not self._results  # the thread comes first: appended as it is read
            self._rebuild = self._rebuild or not in_place
            for entry, marker in entries:
                self._earlier.append(entry)
                if marker is not None:
                    self._markers.earlier(entry, marker)
            self.version += 1
            self._thread_at = self.version
            if in_place:
                self._model.add_earlier(entry for entry, _ in entries)
                self._folded_version = self.version

    @property
    def has_earlier(self) -> bool:
        """Whether the thread's earlier turns named any entry."""
        return bool(self._earlier)

    def add(
        self, call_id: str | None, source: str, items: list[Item], captured_at: datetime
    ) -> None:
        """One result's items (of the tool `source`), in the order the result gives them."""
        if items:
            with self._lock:
                arrival = len(self._results)
                self._results.append(Result(call_id, arrival, captured_at, source, items))
                if call_id not in self._turn.places:
                    self._waiting[call_id] = self._waiting.get(call_id, 0) + 1
                self.version += 1

    @property
    def arrived(self) -> int:
        """How many of this run's results holding entries have arrived (an answer's cut)."""
        return len(self._results)

    def reach(self, cut: int) -> int | None:
        """How many entries, in the model's order, the model had been shown when the first
        `cut` results had arrived: the thread's and theirs; None if a result that arrived
        later comes before one of them in the model's order (what it numbered is not known)."""
        self.entries()
        return self._model.reach(cut)

    @staticmethod
    def shown_before(seen: Seen, cut: int | None) -> bool:
        """Whether the model had been shown `seen` when the first `cut` results had arrived
        (None: by the run's end)."""
        return cut is None or seen.arrival < cut

    def entries(self) -> list[Seen]:
        """Every entry once, in the model's order, with the records of all its copies (a
        list the ledger keeps: read it, never change it)."""
        if self._folded_version != self.version:
            with self._lock:
                self._fold()
        return self._model.order

    def of_node(self, ref: str) -> list[Seen] | None:
        """The entries of the node `ref`, in the model's order (None: the run has none)."""
        self.entries()
        return self._model.by_ref.get(ref)

    def seen(self, entry: Entry) -> Seen | None:
        """What the run holds of `entry`, if it holds it."""
        self.entries()
        return self._model.seen.get(entry)

    @property
    def refs(self) -> KnownRefs:
        """Every node ref the run holds, in the model's order (a live view)."""
        return _Refs(self)

    def _fold(self) -> None:
        """Bring the order up to date: fold the results that arrived since (all of them,
        into a new order, if an earlier turn came after some)."""
        version = self.version
        if self._rebuild:
            self._model = FoldedOrder()
            self._model.add_earlier(self._earlier)
            self._rebuild = False
        model = self._model
        model.fold(self._results[len(model.folded) :], self._turn.places)
        self._folded_version = version

    def unsure(self) -> frozenset[Entry]:
        """The entries of `entries()` whose place may differ between the orders some
        turn's results could have been read in (none when every turn's order is known):
        the default marker of such an entry depends on an order no one knows (worked out
        once for each state of the ledger)."""
        version = self.version  # read first: a later change makes it anew
        self.entries()
        cached, known = self._unsure
        if cached == version:
            return known
        if self.unknown_order() is None:
            known = frozenset()
        else:
            known = self._thread_unsure()
            # this run's turn too (read as it stands, as `unknown_order` does: no copy)
            if self._turn.unknown is not None or self._unannounced():
                known = known | self._model.unsure.unsure
        self._unsure = (version, known)
        return known

    def _thread_unsure(self) -> frozenset[Entry]:
        """The entries of the thread's turns no one knows the place of (worked out once for
        each state of the thread as this run knows it)."""
        turn = self._turn
        state = (self._thread_at, turn.recorded_by_emitter)
        if self._thread_unsure_at[0] != state:
            turns = self._turns.values()
            known = unsure(Turn(turn.of_thread(order), results) for order, results in turns)
            self._thread_unsure_at = (state, known)
        return self._thread_unsure_at[1]

    def unknown_order(self) -> str | None:
        """Why the order the model read some turn's results in is not known (None: the
        order of every turn it read is known)."""
        turn = self._turn  # read as it stands: freezing it costs a copy of its calls
        unknown = turn.unknown or (NOT_ANNOUNCED if self._unannounced() else None)
        if unknown is not None or not self._turns:
            return unknown
        return turn.of_thread(CallOrder(unknown=self._thread_unknown)).unknown

    def _unannounced(self) -> bool:
        """Whether a result was not announced, where results are announced by their tool
        and text (`results_announced`; a numbered tool's never is: it has no call)."""
        return self._turn.by_result and bool(self._waiting)

    def show(self, entries: list[Entry]) -> list[str]:
        """The marker the model is shown for each entry, assigned thread-wide in the order
        results are produced; an entry shown before (in this run or the thread) keeps its
        marker."""
        with self._lock:
            self.version += 1
            return self._markers.show(entries)

    def shown(self) -> dict[Entry, str]:
        """The markers the model was shown, by entry (empty: it was shown none)."""
        return self._markers.by_entry()

    def marker_of(self, entry: Entry) -> str | None:
        """The marker the model was shown beside `entry`, if any."""
        return self._markers.marker_of(entry)

    def shown_as(self, marker: str) -> Entry | None:
        """The entry the model was last shown beside `marker`, if any."""
        return self._markers.shown_as(marker)

    @property
    def shows_markers(self) -> bool:
        """Whether the model was shown any marker (then they are the marker table)."""
        return bool(self._markers)


class _Refs(KnownRefs):
    """The node refs a ledger holds, as it holds them when read."""

    __slots__ = ("_ledger",)

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def __contains__(self, ref: object) -> bool:
        return self._ledger.of_node(ref) is not None if isinstance(ref, str) else False

    def __iter__(self) -> Iterator[str]:
        self._ledger.entries()
        return self._ledger._model.refs()

    def __len__(self) -> int:
        self._ledger.entries()
        return len(self._ledger._model.by_ref)

    @property
    def longest(self) -> int:
        self._ledger.entries()
        return self._ledger._model.longest
