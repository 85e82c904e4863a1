"""Real AG-UI event streams around one hostile input, and the checks every run must pass."""

from __future__ import annotations

import json
import logging
import tracemalloc
from collections.abc import Sequence
from typing import Any

import pytest
from ag_ui.core import BaseEvent

import moca_agui
from streams import message as answer
from streams import run, source, tool_call

__all__ = ["answer", "run", "source"]  # shared builders, re-exported for these tests

LOGGER = "moca_agui"


def reader_call(call_id: str, content: Any, tool: str = "moca_get_node") -> list[BaseEvent]:
    """One Reader call whose result is `content` exactly (a string: hostile JSON text)."""
    return tool_call(call_id, tool, content, args='{"node_id": "x"}')


async def cite_all(events: Sequence[BaseEvent], **options: Any) -> list[BaseEvent]:
    """Every event `cite` yields for `events`."""
    return [event async for event in moca_agui.cite(source(events), **options)]


async def cite_measured(events: Sequence[BaseEvent], **options: Any) -> tuple[list[BaseEvent], int]:
    """Every event `cite` yields, and the peak of memory allocated meanwhile (tracemalloc)."""
    tracemalloc.start()
    try:
        out = await cite_all(events, **options)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak


def is_citation(event: BaseEvent) -> bool:
    return event.type == "CUSTOM" and getattr(event, "name", None) == moca_agui.EVENT_NAME


def assert_passed_through(events: Sequence[BaseEvent], out: Sequence[BaseEvent]) -> None:
    """Every original event came out, the very same object, in order, and nothing else
    but citation events, each before RUN_FINISHED."""
    assert [e for e in out if not is_citation(e)] == list(events)
    assert all(a is b for a, b in zip([e for e in out if not is_citation(e)], events, strict=True))
    finished = [i for i, e in enumerate(out) if e.type == "RUN_FINISHED"]
    assert all(i < finished[-1] for i, e in enumerate(out) if is_citation(e))


def citation_values(out: Sequence[BaseEvent]) -> list[dict[str, Any]]:
    """The `value` of each citation event, in wire form."""
    return [json.loads(e.model_dump_json(by_alias=True))["value"] for e in out if is_citation(e)]


def cited_records(out: Sequence[BaseEvent]) -> list[dict[str, Any]]:
    """The records of every citation event, in order."""
    return [c["record"] for value in citation_values(out) for c in value["citations"]]


def logged(
    caplog: pytest.LogCaptureFixture, level: int, *fragments: str
) -> list[logging.LogRecord]:
    """The records of the moca_agui logger at `level` whose message holds every fragment."""
    return [
        r
        for r in caplog.records
        if r.name == LOGGER
        and r.levelno == level
        and all(fragment in r.getMessage() for fragment in fragments)
    ]
