"""A stream's run is freed as soon as the stream is done with it, by reference counting:
nothing of it (the follower, the look-ahead, a marker table, the lookups' tasks, the
lookup deadline's timer) ties it to itself in a cycle that only the garbage collector
frees. A server that cites each response would otherwise leave every finished run for the
collector, which then walks all of it."""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

import moca_agui
from moca_agui.adapter import CitationRun
from streams import message, run, source, tool_call
from support import citation_events, compact, record, ref, run_input, wire

A, B, C = record("a.md"), record("b.md"), record("c.md")
RECORDS = {ref(r): r for r in (A, B, C)}


async def lookup(node_ref: str) -> dict[str, Any] | None:
    return RECORDS.get(node_ref)


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The garbage collector off: what is freed is freed by reference counting."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def left_for_the_collector() -> list[str]:
    """The objects of this library only the garbage collector could free (in a cycle, or
    held by one), by type."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return sorted(
            type(o).__qualname__ for o in gc.garbage if type(o).__module__.startswith("moca_agui")
        )
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def thread() -> RunAgentInput:
    """An earlier turn that searched A (compact) and cited it, then the question."""
    call = {"id": "c0", "type": "function", "function": {"name": "moca_search", "arguments": "{}"}}
    history = [
        {"id": "u0", "role": "user", "content": "a question"},
        {"id": "a0", "role": "assistant", "toolCalls": [call]},
        {"id": "t0", "role": "tool", "toolCallId": "c0",
         "content": json.dumps({"query": "q", "results": [compact(A)]})},
        {"id": "m0", "role": "assistant", "content": "It is so [1]."},
    ]  # fmt: skip
    return RunAgentInput.model_validate(run_input(run_id="run-2", history=history))


@pytest.mark.usefixtures("no_collector")
async def test_a_run_is_freed_with_its_stream_not_by_the_garbage_collector():
    # The answer is read as it streams (a compact result and an earlier turn: lookups
    # start while it is written, under the lookup deadline), and its markers are read
    # through the run's marker table.
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [compact(B), compact(C)]}),
        message("m1", "As said ", "[1], ", "and ", "[2] ", "and ", "[3]", "."),
    )
    citation_run = CitationRun(moca_agui.CitationOptions(lookup=lookup))
    freed = weakref.ref(citation_run)
    cited = moca_agui.cite(source(events), input=thread(), run=citation_run)
    del citation_run
    sent = [wire(event) async for event in cited]
    del cited

    (value,) = citation_events(sent)
    assert [c["record"] for c in value["citations"]] == [A, B, C]
    assert freed() is None
    assert left_for_the_collector() == []
