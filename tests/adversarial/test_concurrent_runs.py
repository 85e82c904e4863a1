"""200 runs at once in one process, interleaved event by event: no run ever sees another's
records, markers or lookups, even when they share node refs and message ids."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent

import moca_agui
from support import record, ref

from .streams import answer, assert_passed_through, citation_values, reader_call, run

RUNS = 200
SHARED_PATH = "shared.md"


def records_of(i: int) -> dict[str, dict[str, Any]]:
    """Run i's Reader: a node every run reads (its own version of it), a private node, and
    a node it only sees as a compact result."""
    return {
        "shared": record(SHARED_PATH, text=f"What run {i} read."),
        "private": record(f"private-{i}.md"),
        "looked-up": record(f"looked-up-{i}.md"),
    }


def events_of(i: int) -> list[BaseEvent]:
    mine = records_of(i)
    neighbour = records_of((i + 1) % RUNS)
    compact = {"query": "q", "results": [{"ref": ref(mine["looked-up"]), "title": "L"}]}
    return run(
        reader_call(f"call-{i}-1", json.dumps(mine["shared"])),
        reader_call(f"call-{i}-2", json.dumps({"query": "q", "results": [mine["private"]]})),
        reader_call(f"call-{i}-3", json.dumps(compact), "moca_search"),
        answer(
            "answer-1",  # the same message id in every run
            f"[2] {ref(neighbour['private'])} ",  # a node only the neighbour read
            f"{ref(mine['shared'])} [3] [4].",  # [4]: no such node in this run
        ),
        run_id=f"run-{i}",
    )


async def interleaved(events: list[BaseEvent], rng: random.Random) -> AsyncIterator[BaseEvent]:
    for event in events:
        for _ in range(rng.randrange(3)):
            await asyncio.sleep(0)  # let the other runs move
        yield event


async def one_run(i: int) -> tuple[list[BaseEvent], list[BaseEvent]]:
    rng = random.Random(i)
    events = events_of(i)
    mine = records_of(i)

    async def lookup(node_ref: str) -> dict[str, Any] | None:
        await asyncio.sleep(rng.random() / 1000)
        return mine["looked-up"] if node_ref == ref(mine["looked-up"]) else None

    if i % 2:
        out = [e async for e in moca_agui.cite(interleaved(events, rng), lookup=lookup)]
    else:
        agent = moca_agui.instrument(interleaved, lookup=lookup)  # the bare-SDK adapter
        out = [e async for e in agent(events, rng)]
    return events, out


async def test_two_hundred_concurrent_runs_keep_their_records_apart() -> None:
    results = await asyncio.gather(*(one_run(i) for i in range(RUNS)))
    for i, (events, out) in enumerate(results):
        assert_passed_through(events, out)
        [value] = citation_values(out)
        mine = records_of(i)
        assert value["messageId"] == "answer-1"
        assert [(c.get("marker"), c["record"]) for c in value["citations"]] == [
            ("[2]", mine["private"]),
            (None, mine["shared"]),  # this run's own record of the shared node
            ("[3]", mine["looked-up"]),
        ], f"run {i}"
