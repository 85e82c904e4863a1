"""The run's ledger: one entry per node and span, numbered in the order the model saw them
(the order it issued its calls, then position in each result), whenever results arrive."""

from __future__ import annotations

import asyncio
import itertools
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ag_ui.core import ToolCallArgsEvent, ToolCallEndEvent, ToolCallResultEvent, ToolCallStartEvent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import moca_agui
import moca_agui.adapter
from moca_agui.adapter import CitationRun
from moca_agui.check import check_events
from moca_agui.cli import main
from moca_agui.client import Conversation
from moca_agui.records.order import LISTED_OUT_OF_ORDER, CallOrder
from moca_agui.run.ledger import Ledger
from streams import message, run, source, tool_call
from support import citation_events, collect, record, ref

A, B, C = record("a.md"), record("b.md"), record("c.md")
NOW = datetime.now(UTC)


def chunk(rec: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    """A search hit on one chunk of a node: the whole record, with that chunk's span."""
    return {**rec, "span": {"start": start, "end": end}, "score": 1.0}


A1, A2 = chunk(A, 0, 40), chunk(A, 40, 90)


def parallel_calls(*calls: tuple[str, str, object], finish: list[str]) -> list[Any]:
    """One model response issuing `calls` (id, tool, result) together; their results
    arrive in the order of `finish`, as a service running them concurrently sends them."""
    starts = [
        event
        for call_id, name, _ in calls
        for event in (
            ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name),
            ToolCallArgsEvent(tool_call_id=call_id, delta="{}"),
            ToolCallEndEvent(tool_call_id=call_id),
        )
    ]
    results = {call_id: result for call_id, _, result in calls}
    return [
        *starts,
        *(
            ToolCallResultEvent(
                message_id=f"tool-{call_id}",
                tool_call_id=call_id,
                content=json.dumps(results[call_id]),
            )
            for call_id in finish
        ),
    ]


async def cited_values(events: list[Any], **options: Any) -> list[dict[str, Any]]:
    stream = await collect(moca_agui.cite(source(events), **options))
    assert check_events(stream) == []
    return citation_events(stream)


async def test_parallel_results_arriving_in_reverse_are_numbered_in_call_order():
    events = run(
        parallel_calls(
            ("c1", "moca_search", {"query": "q", "results": [A, B]}),
            ("c2", "moca_get_node", C),
            finish=["c2", "c1"],
        ),
        message("m1", "Water [1], shelter [2], food [3]."),
    )
    [value] = await cited_values(events)
    assert value["citations"] == [
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": B},
        {"marker": "[3]", "record": C},
    ]


async def test_the_numbers_do_not_depend_on_which_result_arrives_first():
    calls = (("c1", "moca_get_node", A), ("c2", "moca_get_node", B))
    text = message("m1", "[2] then [1].")
    forward = await cited_values(run(parallel_calls(*calls, finish=["c1", "c2"]), text))
    reverse = await cited_values(run(parallel_calls(*calls, finish=["c2", "c1"]), text))
    assert forward == [{**reverse[0], "computedAt": forward[0]["computedAt"]}]
    assert forward[0]["citations"] == [
        {"marker": "[2]", "record": B},
        {"marker": "[1]", "record": A},
    ]


async def test_a_result_whose_call_was_never_announced_comes_after_the_announced_ones():
    citations = moca_agui.adapter.CitationRun()
    citations.capture("moca_get_node", A)  # an adapter's capture without a call id
    citations.call_made("c1", "moca_search")
    citations.capture("moca_search", {"query": "q", "results": [B]}, tool_call_id="c1")
    events = run(message("m1", "[1] and [2]."))
    stream = await collect(moca_agui.cite(source(events), run=citations))
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": B}, {"marker": "[2]", "record": A}]


async def test_a_compact_result_keeps_its_place_and_number_before_lookup_finds_it():
    compact = {
        "query": "q",
        "results": [{"ref": ref(A), "title": A["node"]["title"], "score": 1.0}],
    }
    looked_up: list[str] = []

    def lookup(node_ref: str) -> dict[str, Any]:
        looked_up.append(node_ref)
        return A

    events = run(
        parallel_calls(
            ("c1", "moca_search", compact), ("c2", "moca_get_node", B), finish=["c2", "c1"]
        ),
        message("m1", "[2] and [1]."),
    )
    [value] = await cited_values(events, lookup=lookup)
    assert value["citations"] == [{"marker": "[2]", "record": B}, {"marker": "[1]", "record": A}]
    assert looked_up == [ref(A)]


async def test_two_chunks_of_one_node_and_another_node_are_three_entries(tmp_path: Path):
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A1, A2, B]}),
        message("m1", f"First [1], then [2], and [3]; the node as a whole: {ref(A)}."),
    )
    stream = await collect(moca_agui.cite(source(events)))
    [value] = citation_events(stream)
    # The versioned ref names the node, not a span: with no whole-node record it cites
    # the node's first entry in the model's order, [1], so it adds no entry.
    assert value["citations"] == [
        {"marker": "[1]", "record": A1},
        {"marker": "[2]", "record": A2},
        {"marker": "[3]", "record": B},
    ]
    assert check_events(stream) == []
    capture = tmp_path / "chunks.jsonl"
    capture.write_text("".join(json.dumps(e) + "\n" for e in stream), encoding="utf-8")
    assert main(["check", str(capture)]) == 0
    conversation = Conversation()
    for event in stream:
        conversation.feed(event)
    [answer] = conversation.messages()
    assert [(c.marker, c.ref, c.span) for c in answer.citations or ()] == [
        ("[1]", ref(A), (0, 40)),
        ("[2]", ref(A), (40, 90)),
        ("[3]", ref(B), None),
    ]


async def test_a_versioned_ref_cites_the_whole_node_record_when_the_reader_returned_one():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A1, A2]}),
        tool_call("c2", "moca_get_node", A),  # the whole node: no span
        message("m1", f"In short {ref(A)}; in detail [2]."),
    )
    [value] = await cited_values(events)
    assert value["citations"] == [{"record": A}, {"marker": "[2]", "record": A2}]


async def test_a_marker_and_a_ref_naming_one_entry_give_one_citation_with_the_marker():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A1, B]}),
        message("m1", f"{ref(A)} says so [1]."),
    )
    [value] = await cited_values(events)
    assert value["citations"] == [{"marker": "[1]", "record": A1}]


async def test_the_same_node_and_span_twice_is_one_entry():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A1, B]}),
        tool_call("c2", "moca_search", {"query": "r", "results": [A1, C]}),
        message("m1", "[1], [2] and [3]."),
    )
    [value] = await cited_values(events)
    assert value["citations"] == [
        {"marker": "[1]", "record": A1},
        {"marker": "[2]", "record": B},
        {"marker": "[3]", "record": C},
    ]


async def test_spans_of_whole_number_floats_are_entries_of_their_own():
    """JSON's 40.0 is the integer 40 (the record schema takes it): each span is its own
    entry, and 40.0 the same entry as 40. Read as no span, the two passages of a.md
    were one entry, and the second passage's [2] cited b.md."""
    a1 = {**A, "span": {"start": 0.0, "end": 40.0}, "score": 1.0}
    a2 = {**A, "span": {"start": 40.0, "end": 90.0}, "score": 1.0}
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [a1, a2, B]}),
        tool_call("c2", "moca_search", {"query": "r", "results": [A2]}),
        message("m1", "The second passage [2], then [3]; not [4]."),
    )
    [value] = await cited_values(events)
    assert value["citations"] == [
        {"marker": "[2]", "record": a2},
        {"marker": "[3]", "record": B},
    ]


async def test_a_plugins_table_of_entries_replaces_the_default(register):
    class Spans:
        @moca_agui.adapter.hookimpl
        def moca_marker_table(self, entries):
            return {f"[{e.span[0] if e.span else 'node'}]": e for e in entries}

    register(Spans())
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A1, A2, B]}),
        message("m1", "[40] and [node], not [1]."),
    )
    [value] = await cited_values(events)
    assert value["citations"] == [
        {"marker": "[40]", "record": A2},
        {"marker": "[node]", "record": B},
    ]


def test_entries_compare_spans_by_value():
    assert moca_agui.adapter.Entry("r", (1, 2)) == moca_agui.adapter.Entry("r", (1, 2))
    assert moca_agui.adapter.Entry("r") != moca_agui.adapter.Entry("r", (0, 0))


SPANNED = [A, A1, A2, B, chunk(B, 5, 9), C]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    results=st.lists(
        st.lists(st.sampled_from(SPANNED), min_size=1, max_size=3), min_size=1, max_size=4
    ),
    finish=st.randoms(use_true_random=False),
    markers=st.lists(st.integers(1, 12), max_size=8),
    refs=st.lists(st.sampled_from([ref(A), ref(B), ref(C)]), max_size=3),
)
def test_the_event_never_depends_on_the_order_results_arrive(results, finish, markers, refs):
    calls = [(f"c{i}", "moca_search", {"query": "q", "results": r}) for i, r in enumerate(results)]
    order = [call_id for call_id, _, _ in calls]
    shuffled = list(order)
    finish.shuffle(shuffled)
    text = " ".join([*(f"[{n}]" for n in markers), *refs]) or "nothing"

    def event(arrival: list[str]) -> list[dict[str, Any]]:
        events = run(parallel_calls(*calls, finish=arrival), message("m1", text))
        [value] = citation_events(asyncio.run(collect(moca_agui.cite(source(events)))))
        return value["citations"]

    in_call_order = event(order)
    assert event(shuffled) == in_call_order
    # [n] is the n-th (node, span) of the results read in call order, across the run.
    entries = list(dict.fromkeys((ref(r), json.dumps(r.get("span"))) for rs in results for r in rs))
    for citation in in_call_order:
        if "marker" in citation:
            n = int(citation["marker"][1:-1])
            rec = citation["record"]
            assert entries[n - 1] == (ref(rec), json.dumps(rec.get("span")))


# -- an emitter that sends parallel calls as they finish: the model's order is unknown ---

ENTRIES = [moca_agui.adapter.Entry(ref(r)) for r in (A, B, C)] + [
    moca_agui.adapter.Entry(ref(A), (0, 40))
]


def orders(turns: list[list[list[Any]]], known: list[bool]) -> set[tuple[Any, ...]]:
    """Every order the entries can have been read in: each turn's results as given if
    its order is `known`, else in any order."""
    found: set[tuple[Any, ...]] = {()}
    for turn, in_order in zip(turns, known, strict=True):
        readings = [turn] if in_order else list(itertools.permutations(turn))
        found = {
            (*before, *result)
            for before in found
            for reading in readings
            for result in [tuple(entry for results in reading for entry in results)]
        }
    return {tuple(dict.fromkeys(order)) for order in found}


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.lists(st.sampled_from(ENTRIES), max_size=3), min_size=1, max_size=4),
        min_size=1,
        max_size=3,
    ),
    st.lists(st.booleans(), min_size=4, max_size=4),
    st.sampled_from(["emitter", "thread", "both"]),
)
def test_an_entry_is_unsure_only_if_its_place_is_not_the_same_in_every_order_allowed(
    turns, listed_in_call_order, unknown_by
):
    """`unsure` holds every entry whose place some reading order changes, and none of
    those every order begins with or first read in a turn whose order is known; the last
    turn is this run's, the others the thread's. A turn's order is unknown when the
    emitter says so (`by_emitter`: this run's, if its calls are announced as they come,
    and every earlier turn's), or when the thread lists the turn's results in another
    order than their calls."""
    this_run_known = listed_in_call_order[-1]
    ledger = Ledger()
    if unknown_by != "thread":
        ledger.by_emitter(announced=this_run_known)
    for turn, results in enumerate(turns[:-1], start=1):
        in_order = listed_in_call_order[turn - 1] or unknown_by == "emitter"
        order = CallOrder() if in_order else CallOrder(unknown=LISTED_OUT_OF_ORDER)
        for result in results:
            ledger.add_earlier([(entry, None) for entry in result], turn, order)
    for result in turns[-1]:
        ledger.add(None, "moca_search", [(entry, None, False) for entry in result], NOW)
    known = [unknown_by == "thread" and listed_in_call_order[n] for n in range(len(turns) - 1)] + [
        this_run_known or unknown_by == "thread"
    ]
    readings = orders(turns, known)
    unsure = ledger.unsure()
    read = {entry for turn in turns for result in turn for entry in result}
    assert {e for e in read if len({order.index(e) for order in readings}) > 1} <= unsure
    common = 0
    while len({order[common] if len(order) > common else None for order in readings}) == 1 and (
        any(len(order) > common for order in readings)
    ):
        common += 1
    assert not unsure & set(next(iter(readings))[:common])
    first_turn = {}
    for n, turn in enumerate(turns):
        for entry in (entry for result in turn for entry in result):
            first_turn.setdefault(entry, n)
    assert not {entry for entry, n in first_turn.items() if known[n]} & unsure
    assert Ledger().unsure() == frozenset()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    results=st.lists(
        st.lists(st.sampled_from(SPANNED), min_size=1, max_size=3), min_size=1, max_size=4
    ),
    finish=st.randoms(use_true_random=False),
)
def test_order_unknown_a_marker_is_cited_only_if_every_call_order_gives_it_that_source(
    results, finish
):
    """Parallel calls sent as they finish: whichever order the model issued them in, a
    marker the event links names the same source, and markers a single result settles
    stay linked."""
    calls = [(f"c{i}", "moca_search", {"query": "q", "results": r}) for i, r in enumerate(results)]
    arrival = [call_id for call_id, _, _ in calls]
    finish.shuffle(arrival)
    text = " ".join(f"[{n}]" for n in range(1, 10))

    def marked(issued: list[Any], *, in_order: bool) -> dict[str, Any]:
        events = run(parallel_calls(*issued, finish=arrival), message("m1", text))
        stream = CitationRun()
        if not in_order:
            stream.calls_out_of_order()
        [value] = citation_events(asyncio.run(collect(moca_agui.cite(source(events), run=stream))))
        return {c["marker"]: c["record"] for c in value["citations"] if "marker" in c}

    unknown = marked(calls, in_order=False)
    for issued in itertools.permutations(calls):
        known = marked(list(issued), in_order=True)
        assert all(known[marker] == rec for marker, rec in unknown.items())
    if len(results) == 1:
        assert unknown == marked(calls, in_order=True)


def unordered() -> CitationRun:
    run = CitationRun()
    run.calls_out_of_order()
    return run


async def test_order_unknown_markers_left_out_are_logged_and_refs_still_cited(caplog):
    events = run(
        parallel_calls(("ca", "moca_get_node", A), ("cb", "moca_get_node", B), finish=["cb", "ca"]),
        message("m1", f"A [1]; B [2], see {ref(B)}."),
    )
    stream = await collect(moca_agui.cite(source(events), run=unordered()))
    assert check_events(stream) == []
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": B}]
    left_out = [r.getMessage() for r in caplog.records if "left out the marker" in r.getMessage()]
    assert [m.split(":")[1].split()[-1] for m in left_out] == ["[1]", "[2]"]
    assert all("moca_agui.numbered" in m for m in left_out)
    assert all("sends parallel Reader calls in an order of its own" in m for m in left_out)


async def test_a_second_run_in_the_stream_keeps_its_emitters_unknown_order(caplog):
    """A new run in the same stream comes from the same emitter: its parallel calls'
    order is not known either, so its default markers are left out as the first run's."""
    first = run(message("m1", "No sources yet."), run_id="r1")
    second = run(
        parallel_calls(("ca", "moca_get_node", A), ("cb", "moca_get_node", B), finish=["cb", "ca"]),
        message("m2", f"A [1]; B [2], see {ref(B)}."),
        run_id="r2",
    )
    stream = await collect(moca_agui.cite(source([*first, *second]), run=unordered()))
    assert [value["citations"] for value in citation_events(stream)] == [[], [{"record": B}]]
    left_out = [r.getMessage() for r in caplog.records if "left out the marker" in r.getMessage()]
    assert len(left_out) == 2
