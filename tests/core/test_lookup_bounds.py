"""A run's lookups are bounded: at most `max_lookups` nodes, `lookup_concurrency` at a
time, all within one `lookup_deadline`; a source past a bound is left out, logged once."""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections.abc import Callable
from typing import Any

import pytest

import moca_agui
from moca_agui.run.resolve import Resolver
from streams import message, run, tool_call
from support import citation_events, collect, compact, record, ref

RECORDS = [record(f"n{k}.md") for k in range(10)]
BY_REF = {ref(rec): rec for rec in RECORDS}
SEARCH = tool_call("c1", "moca_search", {"query": "q", "results": list(map(compact, RECORDS))})
#: An answer citing all ten compact results, [1] to [10], each word its own delta.
ANSWER = message("m1", *(f"See [{k}]. " for k in range(1, 11)))


class Reader:
    """An async `lookup` counting its calls in flight; `stalled` refs never answer."""

    def __init__(self, stalled: frozenset[str] = frozenset()) -> None:
        self.stalled = stalled
        self.asked: list[str] = []
        self.in_flight = 0
        self.most_in_flight = 0

    async def __call__(self, node_ref: str) -> dict[str, Any] | None:
        self.asked.append(node_ref)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if node_ref in self.stalled:
                await asyncio.Event().wait()  # a Reader that never answers
            for _ in range(5):  # long enough for every lookup started to start
                await asyncio.sleep(0)
            # ... and for a thread started before this one's hop (a lookup run in a thread)
            await asyncio.to_thread(int)
            return BY_REF.get(node_ref)
        finally:
            self.in_flight -= 1


def cited(stream: list[dict[str, Any]]) -> list[str]:
    [value] = citation_events(stream)
    return [citation["marker"] for citation in value["citations"]]


def bound_lines(caplog: pytest.LogCaptureFixture, option: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if f"{option}=" in r.getMessage()]


async def test_a_run_looks_up_at_most_max_lookups_nodes_and_says_so_once(caplog):
    caplog.set_level(logging.WARNING, "moca_agui")
    reader = Reader()
    events = run(SEARCH, ANSWER)
    stream = await collect(moca_agui.cite(run_events(events), lookup=reader, max_lookups=3))
    assert reader.asked == [ref(rec) for rec in RECORDS[:3]]  # the first three named
    assert cited(stream) == ["[1]", "[2]", "[3]"]
    [line] = bound_lines(caplog, "max_lookups")
    assert ref(RECORDS[3]) in line


async def test_an_answer_is_read_ahead_only_while_a_lookup_can_start(monkeypatch):
    """Once `max_lookups` nodes are asked for, the answer's later text is not read ahead
    (nothing it names could be looked up): the work of a run stays bounded."""
    read: list[str] = []
    prefetch = Resolver.prefetch

    def counted(self: Resolver, text: str) -> None:
        read.append(text)
        prefetch(self, text)

    monkeypatch.setattr(Resolver, "prefetch", counted)
    stream = await collect(
        moca_agui.cite(run_events(run(SEARCH, ANSWER)), lookup=Reader(), max_lookups=1)
    )
    assert cited(stream) == ["[1]"]
    assert read and all("[1]" in text for text in read)  # nothing past the first lookup


async def test_the_default_max_lookups_bounds_an_answer_naming_more_nodes():
    many = [record(f"many-{k}.md") for k in range(100)]
    by_ref = {ref(rec): rec for rec in many}
    asked: list[str] = []

    async def lookup(node_ref: str) -> dict[str, Any] | None:
        asked.append(node_ref)
        return by_ref.get(node_ref)

    search = tool_call("c1", "moca_search", {"query": "q", "results": list(map(compact, many))})
    answer = message("m1", *(f"[{k}] " for k in range(1, 101)))
    stream = await collect(moca_agui.cite(run_events(run(search, answer)), lookup=lookup))
    default = moca_agui.CitationOptions().max_lookups
    assert default <= 256
    assert len(asked) == default
    assert len(cited(stream)) == default


#: The forms a `lookup` of an async Reader takes: as given, through `reader_lookup`, and a
#: sync callable giving a coroutine (run in a thread), as given or through `reader_lookup`
#: (the form its docstring shows: `lambda ref: session.call_tool(...)`).
LOOKUP_FORMS: dict[str, Callable[[Reader], Any]] = {
    "async": lambda reader: reader,
    "reader_lookup(async)": moca_agui.reader_lookup,
    "lambda": lambda reader: lambda node_ref: reader(node_ref),
    "reader_lookup(lambda)": lambda reader: moca_agui.reader_lookup(lambda r: reader(r)),
}


@pytest.mark.parametrize("form", LOOKUP_FORMS)
async def test_no_more_than_lookup_concurrency_lookups_run_at_once_and_all_finish(form: str):
    reader = Reader()
    events = run(SEARCH, ANSWER)
    lookup = LOOKUP_FORMS[form](reader)
    stream = await collect(moca_agui.cite(run_events(events), lookup=lookup, lookup_concurrency=2))
    # never more than 2 at once; as many as 2 only if a place frees late enough (threads)
    assert 1 <= reader.most_in_flight <= 2
    assert cited(stream) == [f"[{k}]" for k in range(1, 11)]


@pytest.mark.parametrize("form", LOOKUP_FORMS)
async def test_a_lookup_past_its_timeout_gives_its_place_to_the_next(form: str):
    """A coroutine past `lookup_timeout` is cancelled, so it has ended: its place goes to
    the next source, whichever form the lookup takes."""
    reader = Reader(stalled=frozenset(ref(rec) for rec in RECORDS[:2]))
    events = run(SEARCH, ANSWER)
    lookup = LOOKUP_FORMS[form](reader)
    options = {"lookup_concurrency": 2, "lookup_timeout": 0.05}
    stream = await collect(moca_agui.cite(run_events(events), lookup=lookup, **options))
    assert cited(stream) == [f"[{k}]" for k in range(3, 11)]
    assert reader.most_in_flight == 2


async def test_what_the_deadline_passes_is_left_out_and_said_once(caplog):
    caplog.set_level(logging.WARNING, "moca_agui")
    stalled = frozenset(ref(rec) for rec in RECORDS[5:])
    reader = Reader(stalled)
    events = run(SEARCH, ANSWER)
    stream = await collect(
        moca_agui.cite(run_events(events), lookup=reader, lookup_deadline=0.2, lookup_timeout=60)
    )
    assert cited(stream) == ["[1]", "[2]", "[3]", "[4]", "[5]"]
    assert len(bound_lines(caplog, "lookup_deadline")) == 1
    assert not [r for r in caplog.records if "lookup failed" in r.getMessage()]


async def test_a_source_first_named_past_the_deadline_is_never_asked_for(caplog):
    """Past the run's deadline no lookup starts: the Reader is not asked, said once."""
    caplog.set_level(logging.WARNING, "moca_agui")
    reader = Reader()
    first, second = message("m1", "See [1]. "), message("m2", "And [2]. ")

    async def agent() -> Any:
        for event in run(SEARCH, first, second):
            if event.type == "TEXT_MESSAGE_START" and event.message_id == "m2":
                await asyncio.sleep(0.3)  # the deadline passes between the two answers
            yield event
            await asyncio.sleep(0)

    stream = await collect(moca_agui.cite(agent(), lookup=reader, lookup_deadline=0.1))
    assert reader.asked == [ref(RECORDS[0])]
    assert [[c["marker"] for c in v["citations"]] for v in citation_events(stream)] == [["[1]"], []]
    [line] = bound_lines(caplog, "lookup_deadline")
    assert ref(RECORDS[1]) in line


class BlockingReader:
    """A blocking `lookup` that never answers until `release()`: each call holds a thread,
    counted while it runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._released = threading.Event()
        self.calls = 0
        self.in_flight = 0
        self.most_in_flight = 0

    def __call__(self, node_ref: str) -> dict[str, Any] | None:
        with self._lock:
            self.calls += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            self._released.wait()
            return BY_REF.get(node_ref)
        finally:
            with self._lock:
                self.in_flight -= 1

    def release(self) -> None:
        self._released.set()


AS_GIVEN: Callable[[BlockingReader], Any] = lambda reader: reader  # noqa: E731
THROUGH_READER_LOOKUP: Callable[[BlockingReader], Any] = moca_agui.reader_lookup


@pytest.mark.parametrize("make", [AS_GIVEN, THROUGH_READER_LOOKUP], ids=["lookup", "reader"])
async def test_a_blocking_lookup_past_its_timeout_keeps_its_slot_until_its_thread_ends(
    make: Callable[[BlockingReader], Any], caplog
):
    """Python cannot stop a thread: a call past `lookup_timeout` still runs, so it still
    takes one of the run's `lookup_concurrency` places. The other sources wait for a place
    until `lookup_deadline`, then are left out, said once."""
    caplog.set_level(logging.WARNING, "moca_agui")
    events = run(SEARCH, ANSWER)
    options = {"lookup_concurrency": 2, "lookup_timeout": 0.05, "lookup_deadline": 0.5}
    reader = BlockingReader()
    try:
        stream = await collect(moca_agui.cite(run_events(events), lookup=make(reader), **options))
    finally:
        reader.release()  # the threads the run left behind end with the test
    assert reader.most_in_flight == 2
    assert reader.calls == 2
    assert cited(stream) == []
    assert len(bound_lines(caplog, "lookup_deadline")) == 1


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("max_lookups", 0, "max_lookups must be a positive int"),
        ("max_lookups", "64", "max_lookups must be a positive int"),
        ("max_lookups", True, "max_lookups must be a positive int"),
        ("lookup_concurrency", -1, "lookup_concurrency must be a positive int"),
        ("lookup_concurrency", 2.0, "lookup_concurrency must be a positive int"),
        ("lookup_deadline", 0, "lookup_deadline must be a positive number of seconds"),
        ("lookup_deadline", math.nan, "lookup_deadline must be a positive number of seconds"),
        ("lookup_deadline", "30", "lookup_deadline must be a positive number of seconds"),
    ],
)
def test_a_bound_that_is_not_a_positive_number_is_a_clear_error(option, value, error):
    with pytest.raises(TypeError, match=error):
        moca_agui.CitationOptions.from_kwargs(**{option: value})


async def run_events(events: list[Any]) -> Any:
    """The agent: its events, the loop running between two (as a model streams)."""
    for event in events:
        yield event
        await asyncio.sleep(0)
