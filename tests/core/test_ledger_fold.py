"""The ledger folds each result as it arrives: a result that falls after the ones folded is
appended at the cost of its items, one that falls before them rebuilds the order; whatever
the path, the ledger reads as one folded from scratch over the same run state."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from moca_agui.records.entry import Entry
from moca_agui.records.order import LISTED_OUT_OF_ORDER, CallOrder, Turn, TurnOrder, unsure
from moca_agui.run import ledger as ledger_module
from moca_agui.run.folded_order import FoldedOrder
from moca_agui.run.ledger import Ledger
from moca_agui.run.turn_unsure import TurnUnsure

NOW = datetime(2026, 12, 6, tzinfo=UTC)
POOL = [Entry(f"pkg@1#{name}.md", span) for name in "abcd" for span in (None, (0, 5))]
CALLS = ["c1", "c2", "c3"]

entry = st.sampled_from(POOL)
result = st.tuples(
    st.just("add"),
    st.sampled_from([*CALLS, None]),
    st.lists(st.tuples(entry, st.booleans()), min_size=1, max_size=3),  # (entry, compact)
)
step = st.one_of(
    st.tuples(
        st.just("earlier"),
        st.lists(st.tuples(entry, st.sampled_from([None, None, "[1]", "[4]"])), max_size=3),
        st.integers(1, 3),
        st.booleans(),
    ),
    st.tuples(st.just("call"), st.sampled_from(CALLS)),
    st.tuples(st.just("call"), st.sampled_from(CALLS)),
    result,
    result,
    result,
    st.tuples(st.just("call"), st.sampled_from(CALLS)),
    result,
    st.just(("by result",)),
    st.tuples(st.just("emitter"), st.booleans()),
    st.just(("read",)),
    st.just(("read",)),
    st.just(("read",)),
)


def apply(ledger: Ledger, step: tuple[Any, ...]) -> None:
    kind = step[0]
    if kind == "earlier":
        _, entries, turn, in_order = step
        order = CallOrder() if in_order else CallOrder(unknown=LISTED_OUT_OF_ORDER)
        ledger.add_earlier(entries, turn, order)
    elif kind == "call":
        ledger.call_made(step[1])
    elif kind == "add":
        _, call_id, pairs = step
        items = [(e, None if short else {"n": ledger.arrived}, short) for e, short in pairs]
        ledger.add(call_id, "moca_search", items, NOW)
    elif kind == "by result":
        ledger.results_announced()
    elif kind == "emitter":
        ledger.by_emitter(announced=step[1])


def state(ledger: Ledger) -> dict[str, Any]:
    """Everything a run reads of its ledger."""
    order = ledger.entries()
    refs = {s.entry.ref for s in order}
    return {
        "order": [
            (s.entry, [r for r, _, _ in s.records], s.compact, s.earlier, s.arrival) for s in order
        ],
        "reach": [ledger.reach(cut) for cut in range(ledger.arrived + 2)],
        "unsure": ledger.unsure(),
        "unknown": ledger.unknown_order(),
        "by node": {ref: [s.entry for s in ledger.of_node(ref) or []] for ref in refs},
        "refs": (list(ledger.refs), ledger.refs.longest),
    }


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=4, max_size=24))
@example(  # a result held unannounced, then its call announced before an earlier one's
    steps=[
        ("add", "c1", [(POOL[0], False)]),
        ("add", "c2", [(POOL[1], False)]),
        ("read",),
        ("call", "c2"),
        ("read",),
        ("call", "c1"),
    ]
)
@example(  # results announced by their calls in the order they arrived
    steps=[
        ("by result",),
        ("add", "c1", [(POOL[0], False)]),
        ("read",),
        ("call", "c1"),
        ("add", "c2", [(POOL[1], True)]),
        ("add", None, [(POOL[2], False)]),
        ("read",),
        ("call", "c2"),
        ("read",),
        ("add", "c3", [(POOL[3], False)]),
    ]
)
def test_the_ledger_read_as_results_arrive_is_the_ledger_folded_from_scratch(steps):
    read_as_folded_from_scratch(steps)


def read_as_folded_from_scratch(steps: list[tuple[Any, ...]]) -> None:
    """At each read, the ledger kept through `steps` reads as one given them all at once."""
    kept = Ledger()
    done: list[tuple[Any, ...]] = []
    for s in [*steps, ("read",)]:
        if s[0] != "read":
            apply(kept, s)
            done.append(s)
            continue
        scratch = Ledger()  # every step so far, folded once
        for d in done:
            apply(scratch, d)
        assert state(kept) == state(scratch)
        order, reach = by_definition(done)
        assert [s.entry for s in kept.entries()] == order
        assert [kept.reach(cut) for cut in range(kept.arrived + 1)] == reach


def by_definition(steps: list[tuple[Any, ...]]) -> tuple[list[Entry], list[int | None]]:
    """The model's order of `steps`' entries and each cut's reach, worked out as the ledger
    defines them: the thread's entries, then the results by their call's place (no
    announced call: after them all), then arrival; a cut of the arrivals is counted only if
    they are the first in that order."""
    calls: list[str] = []  # announced, in order
    thread: list[Entry] = []
    results: list[tuple[str | None, list[Entry]]] = []  # in arrival order
    for step in steps:
        if step[0] == "earlier":
            thread += [e for e, _ in step[1]]
        elif step[0] == "call" and step[1] not in calls:
            calls.append(step[1])
        elif step[0] == "add":
            results.append((step[1], [e for e, _ in step[2]]))

    def place(arrival: int) -> tuple[int, int]:
        call = results[arrival][0]
        return (calls.index(call) if call in calls else len(calls), arrival)

    model = sorted(range(len(results)), key=place)
    order = list(dict.fromkeys([*thread, *(e for i in model for e in results[i][1])]))
    reach: list[int | None] = [
        len(set(thread).union(*(results[i][1] for i in range(cut))))
        if set(model[:cut]) == set(range(cut))
        else None
        for cut in range(len(results))
    ]
    return order, [*reach, len(order)]


@st.composite
def arrivals(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """Parallel calls whose results arrive in any order (reversed, shuffled), the calls
    announced before their results, after them (each held until then) or never, the
    ledger read anywhere between."""
    calls = [f"p{i}" for i in range(draw(st.integers(2, 8)))]
    early = draw(st.sets(st.sampled_from(calls)))  # announced before their results
    steps: list[tuple[Any, ...]] = [("call", call) for call in calls if call in early]
    late = [call for call in calls if call not in early]
    for call in draw(st.permutations(calls)):
        pairs = draw(st.lists(st.tuples(entry, st.booleans()), min_size=1, max_size=3))
        steps += [("add", call, pairs), *draw(st.sampled_from([[], [("read",)]]))]
    announced = draw(st.permutations(late))[: draw(st.integers(0, len(late)))]
    for call in announced:
        steps += [("call", call), *draw(st.sampled_from([[], [("read",)]]))]
    return steps


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=arrivals())
@example(  # results in the reverse of their calls' order, read after each
    steps=[
        *(("call", c) for c in ["p0", "p1", "p2", "p3"]),
        *(s for i in [3, 2, 1, 0] for s in [("add", f"p{i}", [(POOL[i], False)]), ("read",)]),
    ]
)
@example(  # a later call's result holds an entry first: an earlier call's moves it up
    steps=[
        *(("call", c) for c in ["p0", "p1", "p2"]),
        ("add", "p2", [(POOL[1], False), (POOL[0], True)]),
        ("read",),
        ("add", "p1", [(POOL[0], False)]),
        ("read",),
        ("add", "p0", [(POOL[2], False), (POOL[1], False)]),
    ]
)
@example(  # held results, their calls announced in the reverse of their arrival
    steps=[
        *(s for i in range(3) for s in [("add", f"p{i}", [(POOL[i], False)]), ("read",)]),
        *(s for i in [2, 1, 0] for s in [("call", f"p{i}"), ("read",)]),
    ]
)
def test_results_arriving_in_any_order_read_as_the_ledger_folded_from_scratch(steps):
    read_as_folded_from_scratch(steps)


class Lines:
    """Counts the Python-level work done inside the given methods: the lines they and
    whatever they call run (a loop over the turn's or the run's items shows as such
    lines; a loop C runs for them, as a list's insert, does not)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *methods: tuple[type, str]) -> None:
        self.run = 0
        for owner, name in methods:
            monkeypatch.setattr(owner, name, self._counting(getattr(owner, name)))

    def _counting(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            outer = sys.gettrace()
            if outer is self._called:  # called from a counted method: counted there
                return method(*args, **kwargs)
            sys.settrace(self._called)
            try:
                return method(*args, **kwargs)
            finally:
                sys.settrace(outer)

        return counted

    def _called(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        return self._line

    def _line(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        if event == "line":
            self.run += 1
        return self._line


class Counted:
    """Counts the ledger's work: the items it folds (a result folded again, as a rebuilt
    order does, counts again) and the orders it makes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folded = 0
        self.orders = 0
        fold, init = FoldedOrder.fold, FoldedOrder.__init__

        def counted_fold(model: FoldedOrder, fresh: list[Any], *args: Any) -> None:
            self.folded += sum(len(result.items) for result in fresh)
            fold(model, fresh, *args)

        def counted_init(model: FoldedOrder) -> None:
            self.orders += 1
            init(model)

        monkeypatch.setattr(FoldedOrder, "fold", counted_fold)
        monkeypatch.setattr(FoldedOrder, "__init__", counted_init)


def answer(ledger: Ledger) -> None:
    """What each answer reads of the ledger."""
    ledger.entries()
    ledger.reach(ledger.arrived)
    ledger.unsure()


@pytest.mark.parametrize("announced", [True, False])
def test_results_in_the_models_order_are_folded_once(monkeypatch, announced):
    counted, ledger = Counted(monkeypatch), Ledger()
    n = 300
    for i in range(n):
        if announced:
            ledger.call_made(f"c{i}")
        ledger.add(f"c{i}", "moca_search", [(POOL[i % len(POOL)], {"n": i}, False)], NOW)
        answer(ledger)
    assert (counted.orders, counted.folded) == (1, n)


def test_a_call_announced_after_its_result_keeps_the_result_in_place(monkeypatch):
    counted, ledger = Counted(monkeypatch), Ledger()
    ledger.results_announced()  # calls named by their result: announced as it arrives
    for i in range(300):
        if i % 3 == 0:  # some calls are announced before their result, as a tool call's are
            ledger.call_made(f"c{i}")
        ledger.add(f"c{i}", "moca_search", [(POOL[i % len(POOL)], {"n": i}, False)], NOW)
        answer(ledger)
        ledger.call_made(f"c{i}")
        answer(ledger)
    assert (counted.orders, counted.folded) == (1, 300)
    assert ledger.unknown_order() is None


def test_a_result_before_the_folded_ones_is_put_before_them(monkeypatch):
    counted, ledger = Counted(monkeypatch), Ledger()
    for call in ["c1", "c2", "c3"]:
        ledger.call_made(call)
    ledger.add("c3", "moca_search", [(POOL[2], {"n": 0}, False)], NOW)
    answer(ledger)
    ledger.add("c1", "moca_search", [(POOL[0], {"n": 1}, False)], NOW)  # falls before c3's
    answer(ledger)
    ledger.add("c2", "moca_search", [(POOL[1], {"n": 2}, False)], NOW)  # and so does c2's
    answer(ledger)
    assert (counted.orders, counted.folded) == (1, 3)
    assert [s.entry for s in ledger.entries()] == POOL[:3]
    assert [ledger.reach(cut) for cut in range(4)] == [0, None, None, 3]


def arriving(n: int, how: str) -> list[tuple[Any, ...]]:
    """A run of `n` parallel calls, each result of 2 entries read after it arrives: in the
    reverse of their calls' order, shuffled, in two turns each reversed, or in order but
    each held until the model reads them, in reverse (its call announced by its result)."""
    calls = [f"c{i}" for i in range(n)]
    turns = [calls[: n // 2], calls[n // 2 :]] if how == "two turns" else [calls]
    if how == "shuffled":
        order = random.Random(n).sample(calls, n)
    else:
        order = calls if how == "held" else [c for turn in turns for c in reversed(turn)]
    nodes = [Entry(f"pkg@1#n{i}.md", None) for i in range(n + 1)]
    steps: list[tuple[Any, ...]] = [("by result",)] if how == "held" else []
    for turn in turns:
        if how != "held":
            steps += [("call", call) for call in turn]
        for call in order[: len(turn)] if how != "two turns" else reversed(turn):
            i = int(call[1:])
            steps += [("add", call, [(nodes[i], False), (nodes[i + 1], False)]), ("read",)]
        order = order[len(turn) :]
    if how == "held":
        steps += [s for call in reversed(calls) for s in [("call", call), ("read",)]]
    return steps


@pytest.mark.parametrize("how", ["reversed", "shuffled", "two turns", "held"])
def test_results_in_any_order_cost_work_linear_in_them(monkeypatch, how):
    work, inside = [], []
    for n in (200, 400):
        counted, ledger = Counted(monkeypatch), Ledger()
        #: the work inside the fold: places found, results and entries moved, cuts spoiled
        lines = Lines(monkeypatch, (FoldedOrder, "fold"), (FoldedOrder, "announced"))
        for step in arriving(n, how):
            answer(ledger) if step == ("read",) else apply(ledger, step)
        read = reversed(range(n)) if how == "held" else range(n)  # the calls' order
        nodes = dict.fromkeys(f"pkg@1#n{j}.md" for i in read for j in (i, i + 1))
        assert [s.entry.ref for s in ledger.entries()] == list(nodes)
        assert ledger.unknown_order() is None
        work.append((counted.folded, counted.orders))
        inside.append(lines.run)
        monkeypatch.undo()
    (items, orders), (twice_the_items, twice_the_orders) = work
    assert twice_the_items <= 2.5 * items
    assert orders == twice_the_orders == 1  # the order is never made anew
    assert inside[1] <= 2.5 * inside[0]


@settings(max_examples=300, deadline=None)
@given(
    thread=st.lists(entry, max_size=3),
    results=st.lists(st.lists(entry, min_size=1, max_size=4), min_size=1, max_size=6),
)
def test_a_turn_of_an_unknown_order_kept_as_results_arrive_is_unsure_of_the_same(thread, results):
    kept = TurnUnsure(set(thread))
    for arrived in range(1, len(results) + 1):
        kept.add(results[arrived - 1])
        turns = [Turn(CallOrder(), [thread]), Turn(CallOrder(unknown="?"), results[:arrived])]
        assert kept.unsure == unsure(turns)


class Read:
    """Counts the entries the ledger hands `records.order.unsure`, a whole turn each time."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.entries = 0

        def counted(turns: Any) -> frozenset[Entry]:
            turns = list(turns)
            self.entries += sum(len(result) for turn in turns for result in turn.results)
            return unsure(turns)

        monkeypatch.setattr(ledger_module, "unsure", counted)


@pytest.mark.parametrize("why", ["not known", "a result not announced"])
def test_results_of_an_unknown_order_are_not_read_again_at_each_answer(monkeypatch, why):
    work, kept = [], []
    for n in (200, 400):
        read, ledger = Read(monkeypatch), Ledger()
        lines = Lines(monkeypatch, (TurnUnsure, "add"))  # what keeping the turn's costs
        ledger.add_earlier([(POOL[0], None), (POOL[1], None)], 1, CallOrder())
        if why == "not known":
            ledger.order_not_known("the emitter's own order")
        else:
            ledger.results_announced()  # and none of this run's is
        for i in range(n):
            node = Entry(f"pkg@1#n{i}.md", None)
            ledger.add(f"c{i}", "moca_search", [(POOL[i % 2], None, True), (node, None, True)], NOW)
            answer(ledger)
        assert ledger.unsure() == {Entry(f"pkg@1#n{i}.md", None) for i in range(n)}
        work.append(read.entries)
        kept.append(lines.run)
        monkeypatch.undo()
    assert work[1] <= 2.5 * work[0]
    assert kept[1] <= 2.5 * kept[0]


def test_the_unsure_entries_of_an_unknown_order_copy_no_calls(monkeypatch):
    """`unsure()`, worked out anew at each state of the ledger, reads whether the run's
    order is known as it stands: freezing the order copies every call announced so far."""
    frozen: list[TurnOrder] = []
    freeze = TurnOrder.frozen
    monkeypatch.setattr(TurnOrder, "frozen", lambda order: frozen.append(order) or freeze(order))
    ledger = Ledger()
    ledger.order_not_known("the emitter's own order")
    for i in range(20):
        ledger.call_made(f"c{i}")
        ledger.add(f"c{i}", "moca_search", [(Entry(f"pkg@1#n{i}.md"), None, True)], NOW)
        answer(ledger)
    assert len(ledger.unsure()) == 20
    assert frozen == []
