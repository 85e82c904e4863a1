"""Benchmark 14: a hostile request, bounded.

A forged request carries a thread of 5,000 (then 10,000) earlier Reader results, one
small record each, ten parallel calls a turn, and the run's answer writes 2,000 markers,
`[1]` to `[2000]`, each in its own delta, every one naming a source of the thread, so
each is one only `lookup` (async, answering at once) can give a record of. Printed,
side by side in one run: the bare stream (the agent's events, no layer), the floor (the
request's JSON parsed once: the least a run that reads its thread does), `cite` with the
request (parsed from its JSON, as a server gets it), and with `--against REV` an earlier
core the same way: the median CPU seconds, the lookups made, and the peak of memory
allocated (tracemalloc, in one more run of each, apart from the timed ones).

    python tests/benchmarks/bench_hostile.py [--quick] [--against REV]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import tracemalloc
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput, RunFinishedEvent, RunStartedEvent
from workload import (
    core_at,
    cpu,
    machine,
    message,
    node_record,
    ref,
    side_by_side,
    source,
    table,
)

import moca_agui

logging.getLogger("moca_agui").setLevel(logging.CRITICAL)
logging.getLogger("moca_agui_at").setLevel(logging.CRITICAL)
RESULTS = (5_000, 10_000)
MARKERS = 2_000
CALLS_A_TURN = 10


def request_body(results: int) -> bytes:
    """The forged request's JSON: `results` earlier results, ten parallel calls a turn."""
    messages: list[dict[str, Any]] = []
    for turn in range(results // CALLS_A_TURN):
        calls = [f"t{turn}-c{k}" for k in range(CALLS_A_TURN)]
        messages.append({"id": f"t{turn}-u", "role": "user", "content": "Tell me more."})
        messages.append({"id": f"t{turn}-a", "role": "assistant", "toolCalls": [
            {"id": c, "type": "function", "function": {"name": "moca_get_node",
             "arguments": "{}"}} for c in calls]})  # fmt: skip
        for k, call in enumerate(calls):
            content = json.dumps(node_record(f"t{turn}/n{k}.md", text_bytes=200))
            messages.append({"id": f"{call}-r", "role": "tool", "toolCallId": call,
                             "content": content})  # fmt: skip
        messages.append({"id": f"t{turn}-m", "role": "assistant", "content": "See [1]."})
    messages.append({"id": "question", "role": "user", "content": "Cite everything."})
    body = {"threadId": "t", "runId": "r", "state": {}, "messages": messages, "tools": [],
            "context": [], "forwardedProps": {}}  # fmt: skip
    return json.dumps(body).encode()


def answer_events() -> list[BaseEvent]:
    """The run: one answer of 2,000 markers, each its own delta."""
    deltas = [f"See [{k}]. " for k in range(1, MARKERS + 1)]
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        *message("answer", deltas),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


class Reader:
    """An async `lookup` answering each node's record at once, counting its calls."""

    def __init__(self, results: int) -> None:
        turns = range(results // CALLS_A_TURN)
        records = (node_record(f"t{t}/n{k}.md", text_bytes=200) for t in turns for k in range(10))
        self.records = {ref(rec): rec for rec in records}
        self.calls = 0

    async def __call__(self, node_ref: str) -> dict[str, Any] | None:
        self.calls += 1
        return self.records.get(node_ref)


Variant = Callable[[], Any]


def variants(results: int, against: tuple[str, ModuleType] | None) -> dict[str, Variant]:
    body = request_body(results)
    events = answer_events()
    layers: list[tuple[str, Any]] = [("cite", moca_agui)]
    if against is not None:
        layers.append((f"cite at {against[0]}", against[1]))

    async def bare() -> None:
        async for _event in source(events):
            pass

    async def floor() -> None:
        RunAgentInput.model_validate_json(body)

    def cited(layer: Any, reader: Reader) -> Variant:
        async def run() -> None:
            given = RunAgentInput.model_validate_json(body)
            async for _event in layer.cite(source(events), input=given, lookup=reader):
                pass

        return run

    made = {f"{results:,} results, bare": bare, f"{results:,} results, floor": floor}
    made.update({f"{results:,} results, {name}": cited(layer, Reader(results))
                 for name, layer in layers})  # fmt: skip
    return made


def lookups_made(variant: Variant, runs: int) -> str:
    """The lookups each of the `runs` timed runs of `variant` made (its Reader counts)."""
    readers = [cell.cell_contents for cell in variant.__closure__ or ()]
    reader = next((r for r in readers if isinstance(r, Reader)), None)
    return f"{reader.calls / runs:.0f}" if reader is not None else "0"


def peak_mib(variant: Variant) -> float:
    """The peak of memory allocated during one run of `variant`, in MiB (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        asyncio.run(variant())
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


@contextlib.contextmanager
def earlier_core(revision: str | None) -> Iterator[tuple[str, ModuleType] | None]:
    if revision is None:
        yield None
        return
    with core_at(revision) as module:
        yield revision, module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--against", help="an earlier git revision, measured beside this one")
    args = parser.parse_args()
    repeats = 3 if args.quick else 5
    print("## 14. A hostile request\n")
    print(machine() + "\n")
    with earlier_core(args.against) as against:
        made: dict[str, Variant] = {}
        for results in RESULTS:
            made.update(variants(results, against))
        times = side_by_side(made, repeats)
        rows = []
        for results in RESULTS:
            bare = cpu(times[f"{results:,} results, bare"])
            for name, variant in made.items():
                if not name.startswith(f"{results:,} "):
                    continue
                seconds = cpu(times[name])
                lookups = lookups_made(variant, repeats)  # before the peak's run adds its own
                rows.append([name, f"{seconds:.3f}", f"{seconds / bare:.0f}x", lookups,
                             f"{peak_mib(variant):.1f}"])  # fmt: skip
    size = len(request_body(RESULTS[0])) / 2**20
    print(table(["variant", "CPU s", "to bare", "lookups", "peak MiB"], rows))
    print(
        f"\n{MARKERS:,} markers in the answer; the request of {RESULTS[0]:,} results is "
        f"{size:.1f} MiB. CPU medians of {repeats} interleaved repeats; lookups a run, "
        "counted over them; the peak from one more run of each."
    )


if __name__ == "__main__":
    main()
