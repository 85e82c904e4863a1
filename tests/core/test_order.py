"""A turn's call order is one value: built as calls are announced, read off the thread for
its earlier turns; which entries are unsure is a function of the turns alone."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moca_agui.records.entry import Entry
from moca_agui.records.history import earlier_results
from moca_agui.records.order import (
    BY_EMITTER,
    LISTED_OUT_OF_ORDER,
    CallOrder,
    Turn,
    TurnOrder,
    unsure,
)

ENTRIES = [Entry(f"pkg@1#{name}.md") for name in "abc"] + [Entry("pkg@1#a.md", (0, 5))]
CALL_IDS = ["c1", "c2", "c3", "c4"]

# -- this turn's order, built as its calls are announced ---------------------------------


@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("call"), st.sampled_from(CALL_IDS)),
            st.tuples(st.just("emitter"), st.booleans()),
        ),
        max_size=10,
    )
)
def test_the_order_is_the_calls_as_first_announced_and_stays_unknown_once_unknown(steps):
    built = TurnOrder()
    frozen = [built.frozen()]
    for kind, value in steps:
        if kind == "call":
            built.call(value)
        else:
            built.by_emitter(announced=value)
        frozen.append(built.frozen())
    order = built.frozen()
    calls = [value for kind, value in steps if kind == "call"]
    assert order.calls == tuple(dict.fromkeys(calls))
    emitter = [value for kind, value in steps if kind == "emitter"]
    assert order.recorded_by_emitter == bool(emitter)
    assert order.unknown == (BY_EMITTER if False in emitter else None)
    # each value read on the way is as it was then: later calls change none of them
    for n, earlier in enumerate(frozen):
        made = steps[:n]
        assert earlier.calls == tuple(dict.fromkeys(v for k, v in made if k == "call"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        order.unknown = None  # type: ignore[misc]


def test_a_call_announced_again_keeps_its_first_place():
    built = TurnOrder()
    assert [built.call(c) for c in ("b", "a", "b")] == [True, True, False]
    assert built.frozen().calls == ("b", "a") and built.places == {"b": 0, "a": 1}


@given(recorded=st.booleans(), announced=st.booleans())
def test_a_turn_after_an_ended_one_in_the_same_stream_has_its_emitter(recorded, announced):
    ended = TurnOrder()
    ended.call("c1")
    if recorded:
        ended.by_emitter(announced=announced)
    after = TurnOrder()
    after.after(ended.frozen())
    assert after.frozen() == CallOrder(
        (), None if announced or not recorded else BY_EMITTER, recorded_by_emitter=recorded
    )


def test_the_thread_an_emitter_recorded_holds_no_known_order():
    listed = CallOrder(("c1", "c2"))
    assert TurnOrder().of_thread(listed) is listed
    announced = TurnOrder()
    announced.by_emitter(announced=True)
    assert announced.frozen().known
    assert announced.of_thread(listed) == CallOrder(("c1", "c2"), BY_EMITTER)


# -- which entries are unsure: a function of the turns -----------------------------------

results = st.lists(st.lists(st.sampled_from(ENTRIES), max_size=3), max_size=4)
turns = st.lists(st.tuples(results, st.booleans()), max_size=4)


def readings(given_turns: list[tuple[list[list[Entry]], bool]]) -> set[tuple[Entry, ...]]:
    """Every order the entries can have been read in: a turn's results as listed if its
    order is known, else in any order."""
    found: set[tuple[Entry, ...]] = {()}
    for listed, known in given_turns:
        orders = [listed] if known else list(itertools.permutations(listed))
        found = {
            (*before, *(entry for result in order for entry in result))
            for before in found
            for order in orders
        }
    return {tuple(dict.fromkeys(order)) for order in found}


def as_turns(given_turns: list[tuple[list[list[Entry]], bool]]) -> list[Turn]:
    unknown = CallOrder(unknown=LISTED_OUT_OF_ORDER)
    return [Turn(CallOrder() if known else unknown, listed) for listed, known in given_turns]


@settings(max_examples=200, deadline=None)
@given(turns)
def test_an_entry_whose_place_some_reading_changes_is_unsure(given_turns):
    found = unsure(as_turns(given_turns))
    orders = readings(given_turns)
    moved = {e for order in orders for e in order if len({o.index(e) for o in orders}) > 1}
    assert moved <= found


@settings(max_examples=200, deadline=None)
@given(turns)
def test_no_entry_first_read_in_a_turn_of_known_order_is_unsure(given_turns):
    first: dict[Entry, bool] = {}
    for listed, known in given_turns:
        for entry in (entry for result in listed for entry in result):
            first.setdefault(entry, known)
    assert not {entry for entry, known in first.items() if known} & unsure(as_turns(given_turns))


@settings(max_examples=200, deadline=None)
@given(turns)
def test_the_entries_every_reading_begins_with_are_not_unsure(given_turns):
    orders = list(readings(given_turns))
    common = 0
    while all(len(o) > common and o[common] == orders[0][common] for o in orders):
        common += 1
    assert not set(orders[0][:common]) & unsure(as_turns(given_turns))


@given(turns)
def test_the_turns_alone_decide_why_aside(given_turns):
    """Only whether a turn's order is known counts, not why nor which calls it lists."""
    other = [
        Turn(CallOrder(("x",), BY_EMITTER) if not t.order.known else CallOrder(("y",)), t.results)
        for t in as_turns(given_turns)
    ]
    assert unsure(as_turns(given_turns)) == unsure(other)


# -- the thread's turns: their order as the thread lists their results -------------------


def thread(calls_per_turn: list[int], listed: list[str]) -> list[dict[str, Any]]:
    """A thread of turns with parallel Reader calls, the results listed in `listed` order
    after the last turn's calls."""
    messages: list[dict[str, Any]] = []
    n = 0
    for turn, count in enumerate(calls_per_turn):
        ids = [f"c{n + i}" for i in range(count)]
        n += count
        messages.append({"role": "user", "content": f"q{turn}"})
        call = [{"id": i, "function": {"name": "moca_search", "arguments": "{}"}} for i in ids]
        messages.append({"role": "assistant", "toolCalls": call})
    messages += [{"role": "tool", "toolCallId": i, "content": "{}"} for i in listed]
    return messages


@given(st.lists(st.integers(1, 3), min_size=1, max_size=3), st.randoms(use_true_random=False))
def test_a_thread_turn_is_of_known_order_unless_its_results_are_listed_out_of_it(counts, rnd):
    """A result listed after a later call's is read as one turn, of an order not known,
    with every turn from its own to that call's; every other turn's order is known."""
    ids = [f"c{n}" for n in range(sum(counts))]
    turn_of = {ids[n]: t for t, n in _numbered(counts)}
    listed = ids[:]
    rnd.shuffle(listed)
    got = earlier_results(thread(counts, listed), lambda name: name == "moca_search")
    assert [r.call_id for r in got] == ids  # in the order the model issued them
    spans = [
        (turn_of[late], turn_of[early])
        for early, late in itertools.combinations(listed, 2)
        if ids.index(early) > ids.index(late)
    ]
    for result in got:
        own = turn_of[result.call_id]
        merged = [low for low, high in spans if low <= own <= high]
        assert result.order.known == (not merged)
        assert (result.turn == own) if not merged else (result.turn <= min(merged))
        assert result.order.unknown in (None, LISTED_OUT_OF_ORDER)
    assert all(r.order.known for r in got) == (listed == ids)


def _numbered(counts: list[int]) -> list[tuple[int, int]]:
    """(turn, call number) of each call, turns counted from 1 as user messages are."""
    first = [sum(counts[:t]) for t in range(len(counts) + 1)]
    return [(t, n) for t in range(1, len(counts) + 1) for n in range(first[t - 1], first[t])]
