"""Benchmark 4: memory of many concurrent runs, and nothing kept after they end.

1,000 realistic runs (workload.py, short answers) served at once in one event loop, their
events interleaved, side by side: bare; through the floor, the least any citing layer
holds until a run ends (each Reader result parsed once, and the text of the answers);
and through `moca_agui.cite`. Traced with tracemalloc: the peak, the peak per run, and,
with the round repeated 10 times, what is still allocated after each round (a snapshot
diff against the first round, by file).

    python tests/benchmarks/bench_memory.py [--quick]
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tracemalloc
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from ag_ui.core import BaseEvent, TextMessageContentEvent, ToolCallResultEvent, ToolCallStartEvent
from pydantic_core import from_json
from workload import machine, run_events, table

import moca_agui

ANSWER_WORDS = 120  # about 170 events a run
PACKAGE = Path(moca_agui.__file__).parent


async def agent(i: int) -> AsyncIterator[BaseEvent]:
    """Run i, built as it streams (as an agent builds it), yielding to the others."""
    for n, event in enumerate(run_events(i, ANSWER_WORDS)):
        if n % 4 == 0:
            await asyncio.sleep(0)
        yield event


READERS = {"moca_search", "moca_get_node"}


async def floor(events: AsyncIterator[BaseEvent]) -> AsyncIterator[BaseEvent]:
    """Holds what any citing layer must until the run ends: the Reader results, each
    parsed once (keys through pydantic's string cache, which runs share, as `cite`
    reads them), and the answers' text deltas."""
    tools: dict[str, str] = {}
    held: list[object] = []
    async for event in events:
        if type(event) is ToolCallStartEvent:
            tools[event.tool_call_id] = event.tool_call_name
        elif type(event) is ToolCallResultEvent and tools.get(event.tool_call_id) in READERS:
            held.append(from_json(event.content, cache_strings="keys"))
        elif type(event) is TextMessageContentEvent:
            held.append(event.delta)
        yield event


async def serve(i: int, variant: str) -> int:
    stream = agent(i)
    if variant == "floor":
        stream = floor(stream)
    elif variant == "cite":
        stream = moca_agui.cite(stream)
    return sum([1 async for _ in stream])


async def round_of(runs: int, variant: str) -> None:
    await asyncio.gather(*(serve(i, variant) for i in range(runs)))


def measure(runs: int, rounds: int, variant: str) -> dict[str, float]:
    """Peak bytes over the rounds, bytes still held after the first and the last round, and
    what moca_agui's own files hold more after the last round than after the first."""
    gc.collect()
    tracemalloc.start()
    try:
        baseline, _ = tracemalloc.get_traced_memory()
        held, peaks = [], []
        first = last = None
        for n in range(rounds):
            tracemalloc.reset_peak()
            asyncio.run(round_of(runs, variant))
            gc.collect()
            current, peak = tracemalloc.get_traced_memory()
            held.append(current - baseline)
            peaks.append(peak - baseline)
            if n == 0:
                first = tracemalloc.take_snapshot()
        last = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    assert first is not None
    ours = str(PACKAGE)
    growth = sum(
        stat.size_diff
        for stat in last.compare_to(first, "filename")
        if stat.traceback[0].filename.startswith(ours)
    )
    return {"peak": max(peaks), "held_first": held[0], "held_last": held[-1], "growth": growth}


def main(argv: Sequence[str]) -> None:
    quick = "--quick" in argv
    runs, rounds = (200, 3) if quick else (1_000, 10)
    bare = measure(runs, rounds, "bare")
    least = measure(runs, rounds, "floor")
    cited = measure(runs, rounds, "cite")
    mib = 2**20
    print("## 4. Memory\n")
    print(machine() + "\n")
    print(f"{runs:,} concurrent runs per round, {rounds} rounds, traced with tracemalloc:\n")
    rows = []
    for name, figures in (("bare", bare), ("floor", least), ("cite", cited)):
        rows.append(
            [
                name,
                f"{figures['peak'] / mib:.1f}",
                f"{figures['peak'] / runs / 1024:.1f}",
                f"{figures['held_first'] / 1024:.1f}",
                f"{figures['held_last'] / 1024:.1f}",
            ]
        )
    header = ["served", "peak MiB", "peak KiB per run", "held after round 1 KiB"]
    print(table([*header, f"held after round {rounds} KiB"], rows))
    extra = (cited["peak"] - bare["peak"]) / runs / 1024
    least_extra = (least["peak"] - bare["peak"]) / runs / 1024
    print(
        f"\nPeak ratio cite/bare: **{cited['peak'] / bare['peak']:.2f}**, cite/floor: "
        f"**{cited['peak'] / least['peak']:.2f}**; per concurrent run, cite holds "
        f"**{extra:.1f} KiB** over bare, the floor {least_extra:.1f} KiB\n"
        f"Growth from round 1 to round {rounds}, allocated in moca_agui's files: "
        f"**{cited['growth']:,} bytes**; in all files: "
        f"{cited['held_last'] - cited['held_first']:,} bytes (bare: "
        f"{bare['held_last'] - bare['held_first']:,} bytes)"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
