"""Benchmark 1: stream overhead of `moca_agui.cite`, side by side with the bare stream.

Both sides serve the same realistic runs (workload.py) and encode every event with
`ag_ui.encoder.EventEncoder`, as any AG-UI server must: that encoding is the floor.
Prints the ratio of wall time (medians of interleaved repeats; also the ratio of the best
repeats and of CPU time, which load elsewhere on the machine disturbs less) and of
allocations (memray, Python allocators traced; a control hop that makes one Python call
an event shows what memray's own tracing counts per call) at 100k and 400k events, and the
cost per event of one run whose answer grows from 100k to 400k deltas.

    python tests/benchmarks/bench_stream.py [--quick]
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import memray
from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder
from workload import (
    core_at,
    cpu,
    machine,
    message,
    prose,
    runs_of,
    side_by_side,
    source,
    table,
    wall,
)

import moca_agui

Serve = Callable[[], Awaitable[int]]
#: An earlier core to measure beside this one: (its git revision, its package).
Earlier = tuple[str, ModuleType] | None


async def hop(events: AsyncIterable[BaseEvent]) -> AsyncIterator[BaseEvent]:
    """The floor of any stream middleware: one async-generator hop, nothing else."""
    async for event in events:
        yield event


def same(event: BaseEvent) -> BaseEvent:
    """One Python call, nothing else."""
    return event


async def calling_hop(events: AsyncIterable[BaseEvent]) -> AsyncIterator[BaseEvent]:
    """The hop plus one Python call per event: a control for the allocation column. memray
    traces Python stacks with a profile hook, under which CPython makes a frame object for
    each Python call (it makes none without one), so the column counts calls as well."""
    async for event in events:
        yield same(event)


def serving(
    runs: Sequence[Sequence[BaseEvent]], core: ModuleType = moca_agui, **options: Any
) -> Serve:
    """A server's loop over `runs`, one request each: bare with `cited=False`, through
    the pass-through `hop` with `cited="hop"` (`calling_hop` with `cited="calling hop"`),
    else through `core.cite` with `options`."""
    cited = options.pop("cited", True)

    async def serve() -> int:
        encoder = EventEncoder()
        written = 0
        for events in runs:
            stream = source(events)
            if cited == "hop":
                stream = hop(stream)
            elif cited == "calling hop":
                stream = calling_hop(stream)
            elif cited:
                stream = core.cite(stream, **options)
            async for event in stream:
                written += len(encoder.encode(event))
        return written

    return serve


def allocations(serve: Serve) -> tuple[int, int]:
    """Allocations made while serving, and the peak of memory in use (memray)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "allocations.bin"
        with memray.Tracker(path, trace_python_allocators=True):
            asyncio.run(serve())
        metadata = memray.FileReader(path).metadata
        return metadata.total_allocations, metadata.peak_memory


def overhead(total_events: int, repeats: int, earlier: Earlier = None) -> list[list[Any]]:
    runs = runs_of(total_events)
    events = sum(map(len, runs))
    variants = {
        "bare": serving(runs, cited=False),
        "pass-through hop (floor)": serving(runs, cited="hop"),
        "hop, one Python call an event": serving(runs, cited="calling hop"),
        "cite": serving(runs),
        "cite, include_text=False": serving(runs, include_text=False),
    }
    if earlier is not None:
        variants[f"cite at {earlier[0]}"] = serving(runs, earlier[1])
    times = side_by_side(variants, repeats)
    counted = {name: allocations(serve) for name, serve in variants.items()}
    bare, (bare_allocs, _) = times["bare"], counted["bare"]
    floor = times["pass-through hop (floor)"]
    rows = []
    for name in variants:
        (allocs, peak), spent = counted[name], times[name]
        best = min(t for t, _ in spent) / min(t for t, _ in bare)
        rows.append(
            [
                f"{events:,}",
                name,
                f"{wall(spent):.3f}",
                f"{wall(spent) / events * 1e6:.2f}",
                f"**{wall(spent) / wall(bare):.3f}**",
                f"**{wall(spent) / wall(floor):.3f}**",
                f"{best:.3f}",
                f"{cpu(spent) / cpu(bare):.3f}",
                f"{allocs:,}",
                f"**{allocs / bare_allocs:.3f}**",
                f"{peak / 2**20:.1f}",
            ]
        )
    return rows


def long_run(deltas: int, repeats: int, earlier: Earlier = None) -> list[list[Any]]:
    """One run whose answer is `deltas` deltas long: is the per-event cost flat?"""
    first = runs_of(1)[0]
    events = [*first[:-3], *message("long", prose(deltas)), first[-1]]
    variants = {
        "bare": serving([events], cited=False),
        "hop": serving([events], cited="hop"),
        "cite": serving([events]),
    }
    if earlier is not None:
        variants[f"cite at {earlier[0]}"] = serving([events], earlier[1])
    times = side_by_side(variants, repeats)
    bare, floor = wall(times["bare"]), wall(times["hop"])
    rows = []
    for name in variants:
        if name in ("bare", "hop"):
            continue
        cited = wall(times[name])
        per_event = (cited - floor) / len(events) * 1e6
        row = [f"{len(events):,}", name, f"{bare:.3f}", f"{floor:.3f}", f"{cited:.3f}"]
        rows.append(
            [*row, f"**{cited / bare:.3f}**", f"**{cited / floor:.3f}**", f"{per_event:.2f}"]
        )
    return rows


def main(argv: Sequence[str]) -> None:
    quick = "--quick" in argv
    against = argv[argv.index("--against") + 1] if "--against" in argv else None
    with contextlib.ExitStack() as stack:
        earlier = (against, stack.enter_context(core_at(against))) if against else None
        report(quick, earlier)


def report(quick: bool, earlier: Earlier) -> None:
    sizes, repeats = ((20_000, 40_000), 3) if quick else ((100_000, 400_000), 7)
    print("## 1. Stream overhead\n")
    print(machine() + "\n")
    rows = [
        row for size in sizes for row in overhead(size, repeats if size == sizes[0] else 3, earlier)
    ]
    header = ["events", "served", "wall s", "µs/event", "time ratio", "to floor", "best-of ratio"]
    header += ["CPU ratio", "allocations", "alloc ratio", "peak MiB"]
    print(table(header, rows))
    print("\nOne run whose answer grows (the per-event cost of cite must stay flat):\n")
    header = ["events", "served", "bare s", "hop s", "cite s", "to bare", "to hop"]
    rows = [row for size in sizes for row in long_run(size, repeats, earlier)]
    print(table([*header, "µs/event over hop"], rows))


if __name__ == "__main__":
    main(sys.argv[1:])
