"""The run's tables, kept as results arrive, are the tables a straightforward
recomputation gives: after any sequence of earlier turns, calls, results (late ones
of earlier-announced calls included), numbered results and orders made unknown, the
ledger's order and the marker table are those built from scratch the way they are
defined (every entry in the model's order; the shown markers, else `[n]` = the n-th)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import moca_agui
import moca_agui.adapter
from moca_agui.options import CitationOptions
from moca_agui.records.entry import Entry
from moca_agui.records.order import BY_EMITTER, LISTED_OUT_OF_ORDER, CallOrder, Turn, unsure
from moca_agui.run.hooks import Hooks
from moca_agui.run.ledger import Ledger
from moca_agui.run.markers import MarkerTable
from streams import message, run, source, tool_call
from support import citation_events, collect, compact, record, ref

NOW = datetime(2026, 12, 5, tzinfo=UTC)
POOL = [Entry(f"pkg@1#{name}.md", span) for name in "abc" for span in (None, (0, 5))]
CALLS = ["c1", "c2", "c3"]

entry = st.sampled_from(POOL)
earlier = st.tuples(
    st.just("earlier"),
    st.lists(st.tuples(entry, st.sampled_from([None, None, "[1]", "[2]", "[7]"])), max_size=3),
    st.integers(1, 3),
    st.booleans(),
)
result = st.tuples(
    st.just("add"),
    st.sampled_from([*CALLS, None]),
    st.lists(st.tuples(entry, st.booleans()), min_size=1, max_size=3),  # (entry, compact)
)
step = st.one_of(
    earlier,
    st.tuples(st.just("call"), st.sampled_from(CALLS)),
    result,
    result,
    st.tuples(st.just("show"), st.lists(entry, min_size=1, max_size=2)),
    st.tuples(st.just("unknown"), st.booleans()),
    st.just(("query",)),
    st.just(("query",)),
)


def thread_order(in_order: bool) -> CallOrder:
    """A turn's order as the thread gives it: known, or listed out of its calls' order."""
    return CallOrder() if in_order else CallOrder(unknown=LISTED_OUT_OF_ORDER)


class Replay:
    """The steps so far, as the definitions read them."""

    def __init__(self) -> None:
        self.earlier: list[Entry] = []
        self.calls: dict[str, int] = {}
        self.results: list[tuple[str | None, int, list[tuple[Entry, Any, bool]]]] = []
        self.steps: list[tuple[Any, ...]] = []
        self.showed = False  # a marker was shown: the ledger refuses the thread after it
        self.orders: list[str] = []  # "this run", "emitter", "listed": orders made unknown

    def apply(self, ledger: Ledger, step: tuple[Any, ...]) -> None:
        kind = step[0]
        if kind == "earlier":
            _, entries, turn, in_order = step
            if self.showed:
                with pytest.raises(ValueError, match="before the thread was read"):
                    ledger.add_earlier(entries, turn, thread_order(in_order))
                return
            ledger.add_earlier(entries, turn, thread_order(in_order))
            self.earlier += [e for e, _ in entries]
            self.orders += ["thread"] + ([] if in_order else ["listed"])
        elif kind == "call":
            ledger.call_made(step[1])
            self.calls.setdefault(step[1], len(self.calls))
        elif kind == "add":
            _, call_id, pairs = step
            n = len(self.results)
            items = [(e, None if short else {"n": n}, short) for e, short in pairs]
            ledger.add(call_id, "moca_search", items, NOW)
            self.results.append((call_id, len(self.results), items))
        elif kind == "show":
            ledger.show(step[1])
            self.showed = True
            items = [(e, {"n": len(self.results)}, False) for e in step[1]]
            ledger.add(None, "moca_search", items, NOW)
            self.results.append((None, len(self.results), items))
        elif kind == "unknown":
            ledger.by_emitter(announced=not step[1])
            self.orders.append("this run" if step[1] else "emitter")
        if kind != "query":
            self.steps.append(step)

    def order(self) -> list[tuple[Entry, list[Any], bool, bool]]:
        """Every entry once, in the model's order: (entry, its records, compact, earlier)."""
        seen: dict[Entry, list[Any]] = {}
        for e in self.earlier:
            seen.setdefault(e, [e, [], False, True])
        last = len(self.calls)
        in_order = sorted(
            self.results,
            key=lambda r: (last if r[0] is None else self.calls.get(r[0], last), r[1]),
        )
        for _, _, items in in_order:
            for e, kept, is_compact in items:
                known = seen.setdefault(e, [e, [], is_compact, False])
                known[2] = known[2] or is_compact
                if kept is not None:
                    known[1].append(kept)
        return [tuple(s) for s in seen.values()]  # type: ignore[misc]

    def unknown_order(self) -> str | None:
        """Why some turn's order is not known: this run's own first, then the thread's."""
        if "this run" in self.orders:
            return BY_EMITTER
        if "thread" in self.orders and "emitter" in self.orders:
            return BY_EMITTER
        return LISTED_OUT_OF_ORDER if "listed" in self.orders else None

    def unsure(self) -> frozenset[Entry]:
        """`Ledger.unsure` of a ledger given every step at once, asked once."""
        fresh, replay = Ledger(), Replay()
        for step in self.steps:
            replay.apply(fresh, step)
        return fresh.unsure()


def table_from_scratch(
    order: list[Entry], shown: dict[Entry, str], unsettled: frozenset[Entry]
) -> tuple[dict[str, Entry], dict[str, str]]:
    """(known: marker -> entry, unsure: marker -> ref), as the built-in table is defined."""
    if shown:
        table = {marker: e for e, marker in shown.items()}
    else:
        table = {f"[{n}]": e for n, e in enumerate(order, start=1)}
    known: dict[str, Entry] = {}
    unsure: dict[str, str] = {}
    for marker, e in table.items():
        if e not in order:
            continue
        if e in unsettled and shown.get(e) != marker:
            unsure[marker] = e.ref
        else:
            known[marker] = e
    return known, unsure


def as_order(ledger: Ledger) -> list[tuple[Entry, list[Any], bool, bool]]:
    return [(s.entry, [r for r, _, _ in s.records], s.compact, s.earlier) for s in ledger.entries()]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(step, max_size=14))
def test_the_tables_kept_as_results_arrive_are_those_built_from_scratch(steps):
    ledger, replay, hooks = Ledger(), Replay(), Hooks(CitationOptions())
    for s in [*steps, ("query",)]:
        replay.apply(ledger, s)
        if s[0] != "query":
            continue
        expected = replay.order()
        assert as_order(ledger) == expected
        order = [e for e, *_ in expected]
        for node in {e.ref for e in order}:
            assert [s.entry for s in ledger.of_node(node) or []] == [
                e for e in order if e.ref == node
            ]
        assert ledger.refs.longest == max((len(e.ref) for e in order), default=0)
        assert list(ledger.refs) == list(dict.fromkeys(e.ref for e in order))
        unsettled = replay.unsure()
        assert ledger.unsure() == unsettled
        assert ledger.unknown_order() == replay.unknown_order()
        known, unsure = table_from_scratch(order, ledger.shown(), unsettled)
        table = MarkerTable(ledger, hooks)
        assert dict(table.known) == {marker: e.ref for marker, e in known.items()}
        assert dict(table.unsure) == unsure
        assert bool(table.known) == bool(known) and bool(table.unsure) == bool(unsure)
        for marker in [*known, *unsure, "[0]", "[01]", f"[{len(order) + 1}]", "[x]"]:
            assert table.entry(marker) == known.get(marker)


def unsure_quadratic(turns: list[list[list[Entry]]]) -> frozenset[Entry]:
    """`unsure` as first written: every round reads every result of the turn."""
    placed: set[Entry] = set()
    unsure: set[Entry] = set()
    for turn in turns:
        results = [result for result in turn if result]
        at = [0] * len(results)
        while True:
            firsts: set[Entry] = set()
            for i, result in enumerate(results):
                while at[i] < len(result) and result[at[i]] in placed:
                    at[i] += 1
                if at[i] < len(result):
                    firsts.add(result[at[i]])
            if len(firsts) == 1:
                placed.add(firsts.pop())
                continue
            for result in results:
                unsure.update(e for e in result if e not in placed)
            placed.update(e for result in results for e in result)
            break
    return frozenset(unsure)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.lists(entry, max_size=4), max_size=4), max_size=4))
def test_which_entries_are_unsure_is_what_reading_every_result_each_round_gives(turns):
    unknown = CallOrder(unknown=LISTED_OUT_OF_ORDER)
    assert unsure(Turn(unknown, turn) for turn in turns) == unsure_quadratic(turns)


async def test_a_plugin_table_is_asked_once_per_ledger_state_not_once_per_streamed_piece(
    register,
):
    """The look-ahead reads each piece of the answer as it streams: the marker table it
    reads is asked for once while no result arrives, and still gets every entry."""
    records = [record(f"n{k}.md") for k in range(10)]
    by_ref = {ref(rec): rec for rec in records}
    asked: list[list[Entry]] = []

    class Counting:
        @moca_agui.adapter.hookimpl
        def moca_marker_table(self, entries, shown):
            asked.append(list(entries))  # and lets the built-in table answer

    async def lookup(node_ref: str) -> dict[str, Any] | None:
        return by_ref.get(node_ref)

    register(Counting())
    search = tool_call("c1", "moca_search", {"query": "q", "results": list(map(compact, records))})
    events = run(search, message("m1", *(f"See [{k}]. " for k in range(1, 11))))
    [value] = citation_events(await collect(moca_agui.cite(source(events), lookup=lookup)))
    assert [c["marker"] for c in value["citations"]] == [f"[{k}]" for k in range(1, 11)]
    assert asked == [[Entry(ref(rec)) for rec in records]]
