"""The rest of a run, beyond reading its thread, does the same work at any length of
thread: what it adds (its results, its answer's markers, their lookups) costs the same at
turn 10 and at turn 100. Counted as the Python lines the core runs (a loop over the
thread's entries shows as such lines; a copy C makes of a list does not), not timed."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from ag_ui.core import RunAgentInput

import moca_agui
from moca_agui.adapter import CitationRun
from moca_agui.stream.citation_stream import CitationStream
from moca_agui.stream.cite import cited
from streams import message, run, source, tool_call
from support import earlier_turn, record, ref, run_input

CORE = str(Path(moca_agui.__file__).parent)
NODES = 5  # read by each turn


def found(turn: int) -> list[dict[str, Any]]:
    return [record(f"turn-{turn}/node-{k}.md") for k in range(NODES)]


def cited_markers(turn: int) -> list[str]:
    """The turn's own 5 results, then the thread's first, middle and last, by default marker."""
    before = NODES * (turn - 1)
    own = [f"[{before + k}]" for k in range(1, NODES + 1)]
    return own + ([f"[{n}]" for n in (1, before // 2 + 1, before)] if turn > 1 else [])


def answer(turn: int) -> list[str]:
    return [f"The window is thirty days {marker} " for marker in cited_markers(turn)]


def sent_back(n: int) -> list[dict[str, Any]]:
    """Turn `n` as a client sends it back: its search of 5 nodes, its answer."""
    return earlier_turn(n, "moca_search", {"query": "q", "results": found(n)}, "".join(answer(n)))


class Reader:
    """A `lookup` answering the record of any node of the thread at once."""

    def __init__(self, turn: int) -> None:
        self.records = {ref(rec): rec for n in range(1, turn) for rec in found(n)}
        self.asked: list[str] = []

    async def __call__(self, node_ref: str) -> dict[str, Any] | None:
        self.asked.append(node_ref)
        return self.records.get(node_ref)


class CoreLines:
    """Counts the lines the core runs while it is on (a tracer of this thread only)."""

    def __init__(self) -> None:
        self.count = 0
        self._outer: Any = None

    def __enter__(self) -> CoreLines:
        self._outer = sys.gettrace()
        sys.settrace(self._called)
        return self

    def __exit__(self, *_: object) -> None:
        sys.settrace(self._outer)

    def _called(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        return self._line if frame.f_code.co_filename.startswith(CORE) else None

    def _line(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        if event == "line":
            self.count += 1
        return self._line


async def rest_of_run(turn: int, *, lookup: bool) -> tuple[int, int, list[str]]:
    """The lines the core runs for turn `turn` beyond reading its thread, the records its
    citations event carries and the nodes it looked up."""
    history = [m for n in range(1, turn) for m in sent_back(n)]
    given = RunAgentInput.model_validate(run_input("And for gifts?", history=history))
    reader = Reader(turn)
    options = moca_agui.CitationOptions.from_kwargs(lookup=reader if lookup else None)
    citing = CitationRun(options)
    citing.read_history(given.messages)
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": found(turn)}),
        message("m1", *answer(turn)),
    )
    stream = CitationStream(citing, question_id=given.messages[-1].id)
    records = 0
    with CoreLines() as lines:
        async for event in cited(source(events), stream):
            if getattr(event, "name", None) == moca_agui.EVENT_NAME:
                records += len(event.value["citations"])
    return lines.count, records, reader.asked


@pytest.mark.parametrize("lookup", [False, True], ids=["no lookup", "lookup"])
def test_the_rest_of_a_run_does_the_same_work_at_turn_10_and_turn_100(lookup: bool) -> None:
    short, cited_short, asked_short = asyncio.run(rest_of_run(10, lookup=lookup))
    long, cited_long, asked_long = asyncio.run(rest_of_run(100, lookup=lookup))
    # the same citations: its 5, and with `lookup` the thread's 3
    assert cited_short == cited_long == NODES + (3 if lookup else 0)
    assert len(asked_short) == len(asked_long) == (3 if lookup else 0)
    assert long == short, f"turn 100 ran {long} lines of the core, turn 10 {short}"
