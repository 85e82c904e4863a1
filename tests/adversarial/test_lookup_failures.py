"""A Reader that times out, fails or lies in `lookup` (compact search results): the node is
left out with a warning, the run goes on, and a dead Reader is waited for once, not once
per reference."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

import pytest

from support import compact, record, ref

from .streams import (
    answer,
    assert_passed_through,
    citation_values,
    cite_all,
    cited_records,
    logged,
    reader_call,
    run,
)

FULL = record("full.md")
COMPACT = [record(f"compact-{n}.md") for n in range(3)]
TIMEOUT = 0.05


def compact_results(records: list[dict[str, Any]]) -> str:
    """`moca_search` in its default detail: compact results, not citation records."""
    results = [compact(r) for r in records]
    return json.dumps({"query": "refunds", "results": results})


def events(*answers: str) -> list[Any]:
    return run(
        reader_call("call-1", json.dumps(FULL)),
        reader_call("call-2", compact_results(COMPACT), "moca_search"),
        *(answer(f"answer-{n}", text) for n, text in enumerate(answers, start=1)),
    )


CITES_ALL = " ".join(ref(r) for r in [FULL, *COMPACT])


class HangingReader:
    """An async lookup that never answers, counting calls and calls in flight."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.in_flight = self.most_in_flight = 0
        self.cancelled = 0

    async def __call__(self, node_ref: str) -> dict[str, Any] | None:
        self.calls.append(node_ref)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.in_flight -= 1
        return None


async def test_a_lookup_timeout_leaves_the_node_out_and_the_run_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reader = HangingReader()
    stream = events(CITES_ALL)
    out = await cite_all(stream, lookup=reader, lookup_timeout=TIMEOUT)
    assert_passed_through(stream, out)
    assert cited_records(out) == [FULL]
    warnings = logged(caplog, logging.WARNING, "lookup failed")
    assert sorted(r.getMessage().split()[3].rstrip(":") for r in warnings) == sorted(
        ref(r) for r in COMPACT
    )
    assert all(isinstance(r.exc_info[1], TimeoutError) for r in warnings if r.exc_info)
    assert reader.cancelled == len(COMPACT)  # no lookup left running


async def test_a_dead_reader_is_waited_for_once_per_message_not_once_per_ref() -> None:
    """Three compact refs in one answer: their lookups run together, so a dead Reader
    costs one timeout, not three."""
    reader = HangingReader()
    await cite_all(events(CITES_ALL), lookup=reader, lookup_timeout=TIMEOUT)
    assert sorted(reader.calls) == sorted(ref(r) for r in COMPACT)
    assert reader.most_in_flight == len(COMPACT)


async def test_a_failed_lookup_is_not_retried_in_the_same_run() -> None:
    reader = HangingReader()
    out = await cite_all(
        events(CITES_ALL, f"Again: {CITES_ALL}", f"[1] [2] [3] {ref(COMPACT[0])}"),
        lookup=reader,
        lookup_timeout=TIMEOUT,
    )
    assert sorted(reader.calls) == sorted(ref(r) for r in COMPACT)  # once per ref, per run
    assert [v["messageId"] for v in citation_values(out)] == ["answer-1", "answer-2", "answer-3"]
    assert cited_records(out) == [FULL, FULL, FULL]


async def test_a_blocking_lookup_does_not_stall_the_event_loop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A sync lookup runs in a thread: while it blocks, other runs' events flow."""
    release = threading.Event()

    def blocking(node_ref: str) -> dict[str, Any] | None:
        release.wait(5)
        return None

    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    ticking = asyncio.create_task(ticker())
    try:
        out = await cite_all(events(CITES_ALL), lookup=blocking, lookup_timeout=TIMEOUT)
    finally:
        ticking.cancel()
        release.set()
    assert cited_records(out) == [FULL]
    assert ticks > 5  # the loop kept running while the lookup blocked
    assert logged(caplog, logging.WARNING, "lookup failed")


@pytest.mark.parametrize(
    ("answer_with", "fragment"),
    [
        pytest.param(lambda r: None, "lookup found no record", id="none"),
        pytest.param(lambda r: FULL, "lookup returned another node", id="another-node"),
        pytest.param(
            lambda r: {**COMPACT[0], "trust": {}}, "skipped an invalid record from lookup", id="bad"
        ),
        pytest.param(lambda r: 1 / 0, "lookup failed", id="raises"),
        pytest.param(lambda r: "not a record", "skipped an invalid record", id="a-string"),
    ],
)
async def test_a_lookup_that_fails_or_lies_leaves_the_node_out(
    caplog: pytest.LogCaptureFixture, answer_with: Any, fragment: str
) -> None:
    async def lookup(node_ref: str) -> Any:
        return answer_with(node_ref)

    stream = events(f"{ref(FULL)} and {ref(COMPACT[0])}")
    out = await cite_all(stream, lookup=lookup)
    assert_passed_through(stream, out)
    assert cited_records(out) == [FULL]
    assert [r for level in (logging.INFO, logging.WARNING) for r in logged(caplog, level, fragment)]


async def test_a_slow_but_timely_lookup_is_cited() -> None:
    async def slow(node_ref: str) -> dict[str, Any]:
        await asyncio.sleep(TIMEOUT / 5)
        return next(r for r in COMPACT if ref(r) == node_ref)

    out = await cite_all(events(CITES_ALL), lookup=slow, lookup_timeout=TIMEOUT * 20)
    assert cited_records(out) == [FULL, *COMPACT]
