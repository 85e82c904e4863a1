"""The ledger folds each result as it arrives: a result that falls after the ones folded is
appended at the cost of its items, one that falls before them rebuilds the order; whatever
the path, the ledger reads as one folded from scratch over the same run state."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from moca_agui.records.entry import Entry
from moca_agui.records.order import LISTED_OUT_OF_ORDER, CallOrder
from moca_agui.run.ledger import Ledger

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


class Counted:
    """Counts the ledger's sorts of the whole run (a rebuild's) and results placed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sorts = 0
        self.placed = 0
        in_model_order, place = Ledger._in_model_order, Ledger._place

        def counted_sort(ledger: Ledger) -> Any:
            self.sorts += 1
            return in_model_order(ledger)

        def counted_place(ledger: Ledger, result: Any) -> Any:
            self.placed += 1
            return place(ledger, result)

        monkeypatch.setattr(Ledger, "_in_model_order", counted_sort)
        monkeypatch.setattr(Ledger, "_place", counted_place, raising=False)


def answer(ledger: Ledger) -> None:
    """What each answer reads of the ledger."""
    ledger.entries()
    ledger.reach(ledger.arrived)
    ledger.unsure()


@pytest.mark.parametrize("announced", [True, False])
def test_results_in_the_models_order_are_appended_without_sorting_the_run(monkeypatch, announced):
    ledger, counted = Ledger(), Counted(monkeypatch)
    n = 300
    for i in range(n):
        if announced:
            ledger.call_made(f"c{i}")
        ledger.add(f"c{i}", "moca_search", [(POOL[i % len(POOL)], {"n": i}, False)], NOW)
        answer(ledger)
    assert counted.sorts == 0
    assert counted.placed <= 3 * n  # each result placed a bounded number of times


def test_a_call_announced_after_its_result_keeps_the_result_in_place(monkeypatch):
    ledger, counted = Ledger(), Counted(monkeypatch)
    ledger.results_announced()  # calls named by their result: announced as it arrives
    for i in range(300):
        if i % 3 == 0:  # some calls are announced before their result, as a tool call's are
            ledger.call_made(f"c{i}")
        ledger.add(f"c{i}", "moca_search", [(POOL[i % len(POOL)], {"n": i}, False)], NOW)
        answer(ledger)
        ledger.call_made(f"c{i}")
        answer(ledger)
    assert counted.sorts == 0
    assert ledger.unknown_order() is None


def test_a_result_before_the_folded_ones_rebuilds_the_order_once(monkeypatch):
    ledger, counted = Ledger(), Counted(monkeypatch)
    for call in ["c1", "c2", "c3"]:
        ledger.call_made(call)
    ledger.add("c3", "moca_search", [(POOL[2], {"n": 0}, False)], NOW)
    answer(ledger)
    ledger.add("c1", "moca_search", [(POOL[0], {"n": 1}, False)], NOW)  # falls before c3's
    answer(ledger)
    ledger.add("c2", "moca_search", [(POOL[1], {"n": 2}, False)], NOW)  # and so does c2's
    answer(ledger)
    assert counted.sorts == 2
    assert [s.entry for s in ledger.entries()] == POOL[:3]
    assert [ledger.reach(cut) for cut in range(4)] == [0, None, None, 3]
