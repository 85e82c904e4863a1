"""Order of first mention, by the rule `cite` numbers by: a marker counts as a mention of
a source only if that source had arrived when the stretch of text holding it began."""

from __future__ import annotations

import asyncio
from typing import Any

from ag_ui.core import BaseEvent

import moca_agui
from moca_agui.check import check_events
from streams import message, run, source, tool_call
from support import citation_events, record, wire

A, B = record("a.md"), record("b.md")
A_REF, B_REF = A["node"]["ref"], B["node"]["ref"]


def cite_all(events: list[BaseEvent]) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        return [wire(event) async for event in moca_agui.cite(source(events))]

    return asyncio.run(go())


def reopened(first: str, second: str) -> list[BaseEvent]:
    """m1 writes `first` before any result, the Reader returns [b, a], m1 reopens."""
    return run(
        message("m1", first),
        tool_call("c1", "moca_search", {"query": "q", "results": [B, A]}),
        message("m1", second),
    )


def test_a_marker_written_before_its_source_arrived_is_no_mention_of_it() -> None:
    # The example hypothesis found: the first stretch's "[1]" names nothing (no result had
    # arrived), so b's first mention is the second stretch's "[1]", after a's ref.
    stream = cite_all(reopened(f"[1] {A_REF}", "[1]"))
    [value] = citation_events(stream)
    assert [c["record"]["node"]["ref"] for c in value["citations"]] == [A_REF, B_REF]
    assert check_events(stream) == []


def test_a_marker_written_after_its_source_arrived_still_counts() -> None:
    # the same answer, with b listed first: its "[1]" of the second stretch comes after
    # a's ref, so listing b ahead of a is out of order
    stream = cite_all(reopened(f"[1] {A_REF}", "[1]"))
    [value] = citation_events(stream)
    value["citations"].reverse()
    findings = check_events(stream)
    assert [(f.level, f.rule) for f in findings] == [("error", "order of first mention")]
    assert "a.md) is first mentioned before citations[0]" in findings[0].message
