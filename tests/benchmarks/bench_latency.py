"""Benchmark 10: how long after an answer ends its `moca.citations` event follows.

The answer streams for 400 ms (40 deltas, 10 ms apart) and cites `[1]` early and `[2]`
100 ms before its end; both sources are compact search results, so their records come
from `lookup`. RUN_FINISHED follows TEXT_MESSAGE_END at once, as most emitters send it.
Printed: the median time from TEXT_MESSAGE_END to the event and to RUN_FINISHED, with a
lookup taking 0, 50 and 200 ms, and with the demo Reader's `moca_get_node` over MCP stdio
(`moca_agui.reader_lookup`). The floor is 0: a layer that never waits.

    python tests/benchmarks/bench_latency.py [--quick] [--against REV]

`--against REV` measures the core of git revision REV in the same run, side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from types import ModuleType
from typing import Any

from ag_ui.core import BaseEvent
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from workload import core_at, machine, message, table, tool_call

import moca_agui
from moca_agui.demo.reader import DemoReader

Lookup = Callable[[str], Awaitable[Any]]


def records() -> list[dict[str, Any]]:
    """Two of the demo Reader's records (what `lookup` answers) and their compact results."""
    found = DemoReader().moca_search("hives", detail="full")["results"][:2]
    return [dict(r) for r in found]


def events(found: list[dict[str, Any]]) -> list[BaseEvent]:
    from ag_ui.core import RunFinishedEvent, RunStartedEvent

    compact = DemoReader().moca_search("hives")["results"][:2]
    deltas = [f"word{i} " for i in range(40)]
    deltas[5], deltas[29] = "[1] ", "[2] "  # ten deltas, 100 ms, before the end
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        *tool_call("c1", "moca_search", json.dumps({"query": "hives", "results": compact})),
        *message("m1", deltas),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


async def paced(stream: list[BaseEvent]) -> AsyncIterator[BaseEvent]:
    """The events as a model streams them: 10 ms between two deltas of the answer."""
    for event in stream:
        if event.type == "TEXT_MESSAGE_CONTENT":
            await asyncio.sleep(0.01)
        yield event


async def one_run(
    core: ModuleType, stream: list[BaseEvent], lookup: Lookup
) -> tuple[float, float, float]:
    """(ms from TEXT_MESSAGE_END to the event, ms from it to RUN_FINISHED, ms from the
    delta naming `[2]` to TEXT_MESSAGE_END) for one run."""
    named = ended = event_at = finished_at = 0.0
    async for event in core.cite(paced(stream), lookup=lookup):
        now = time.perf_counter()
        if event.type == "TEXT_MESSAGE_CONTENT" and event.delta == "[2] ":
            named = now
        elif event.type == "TEXT_MESSAGE_END":
            ended = now
        elif event.type == "CUSTOM":
            event_at = now
        elif event.type == "RUN_FINISHED":
            finished_at = now
    return (event_at - ended) * 1000, (finished_at - ended) * 1000, (ended - named) * 1000


def sleeping(found: list[dict[str, Any]], seconds: float) -> Lookup:
    by_ref = {r["node"]["ref"]: r for r in found}

    async def lookup(ref: str) -> dict[str, Any] | None:
        await asyncio.sleep(seconds)
        return by_ref.get(ref)

    return lookup


async def measure(
    cores: dict[str, ModuleType], stream: list[BaseEvent], lookups: dict[str, Lookup], repeats: int
) -> list[list[str]]:
    rows = []
    for label, lookup in lookups.items():
        times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cores}
        for repeat in range(repeats):  # interleaved, in a rotating order
            names = list(cores)
            for name in names[repeat % len(names) :] + names[: repeat % len(names)]:
                times[name].append(await one_run(cores[name], stream, lookup))
        for name, measured in times.items():
            to_event = statistics.median(t for t, _, _ in measured)
            to_finished = statistics.median(f for _, f, _ in measured)
            named = statistics.median(n for _, _, n in measured)
            rows.append([label, name, f"{named:.1f}", f"{to_event:.1f}", f"{to_finished:.1f}"])
    return rows


async def with_mcp(cores: dict[str, ModuleType], stream: list[BaseEvent], repeats: int) -> Any:
    params = StdioServerParameters(command=sys.executable, args=["-m", "moca_agui.demo.reader"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        lookup = moca_agui.reader_lookup(
            lambda ref: session.call_tool("moca_get_node", {"node_id": ref})
        )
        return await measure(cores, stream, {"demo Reader, MCP stdio": lookup}, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--against", metavar="REV")
    args = parser.parse_args()
    repeats = 5 if args.quick else 15
    found = records()
    stream = events(found)
    print("## 10. From an answer's end to its citations\n")
    print(machine() + "\n")
    with contextlib.ExitStack() as stack:
        cores = {"cite": moca_agui}
        if args.against:
            cores[f"cite at {args.against}"] = stack.enter_context(core_at(args.against))
        lookups = {f"lookup {ms} ms": sleeping(found, ms / 1000) for ms in (0, 50, 200)}
        rows = asyncio.run(measure(cores, stream, lookups, repeats))
        rows += asyncio.run(with_mcp(cores, stream, repeats))
    header = ["lookup", "core", "[2] -> END (ms)", "END -> event (ms)", "END -> RUN_FINISHED (ms)"]
    print(table(header, rows))
    print(
        f"\nMedians of {repeats} runs each, interleaved. The answer streams for 400 ms; "
        "[2] is first named ten deltas (100 ms) before its end; `[2] -> END` is that time "
        "as measured."
    )


if __name__ == "__main__":
    main()
