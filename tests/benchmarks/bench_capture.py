"""Benchmark 6: the cost of one Reader result, against its floor.

The least any reader of a Reader result can do is parse its JSON once; a service that
cites must also encode the citation event it sends. That is the floor: `from_json` of the
result (keys through pydantic's string cache, its cheapest setting: 624 k instructions for
the 10-record result, against 734 k with no cache) plus `EventEncoder().encode` of the
event carrying its records. `cite`'s cost is
measured on the same result: capture (read the result, check and keep its records),
resolve the answer's markers, build the event, encode it. The answer cites every record,
so every record is checked and sent (the dearest case). The same result as a Python value
(what Pydantic AI and ADK hand over: no text to read, each record copied) is measured too.

    python tests/benchmarks/bench_capture.py [--quick] [--records N] [--against REV]

`--against REV` measures the core of git revision REV in the same run, side by side
(imported from a temporary worktree as a second package), for before/after figures.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

from ag_ui.core import CustomEvent, EventType
from ag_ui.encoder import EventEncoder
from pydantic_core import from_json
from workload import core_at, machine, node_record, side_by_side, table, wall

import moca_agui

ROUNDS = 200  # results read per timed repeat


def result_text(records: int) -> tuple[str, str]:
    """A `moca_search` result of `records` whole records, and an answer citing them all."""
    found = [node_record(f"node-{i}.md") for i in range(records)]
    text = json.dumps({"query": "how", "results": found}, ensure_ascii=False)
    answer = "As the sources say " + " ".join(f"[{i}]" for i in range(1, records + 1)) + "."
    return text, answer


def floor(text: str) -> Callable[[], Awaitable[int]]:
    async def run() -> int:
        encoder, written = EventEncoder(), 0
        for _ in range(ROUNDS):
            found = from_json(text, cache_strings="keys")["results"]
            citations = [{"marker": f"[{i}]", "record": r} for i, r in enumerate(found, 1)]
            value = {"version": 1, "messageId": "m1", "citations": citations}
            event = CustomEvent(type=EventType.CUSTOM, name="moca.citations", value=value)
            written += len(encoder.encode(event))
        return written

    return run


def run_class(core: ModuleType) -> Any:
    """The core's `CitationRun`: in its adapter kit (0.2) or at its top level (before)."""
    found = getattr(core, "CitationRun", None)
    return found or importlib.import_module(f"{core.__name__}.adapter").CitationRun


def cited(core: ModuleType, result: object, answer: str) -> Callable[[], Awaitable[int]]:
    citation_run_class = run_class(core)

    async def run() -> int:
        encoder, written = EventEncoder(), 0
        for _ in range(ROUNDS):
            citation_run = citation_run_class(core.CitationOptions())
            citation_run.capture("moca_search", result)
            citation_run.add_text("m1", answer)
            # `run.events` makes the event since core 0.3; the run itself before.
            event = await getattr(citation_run, "events", citation_run).event_for("m1")
            written += len(encoder.encode(event))
        return written

    return run


def main() -> None:
    global ROUNDS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--records", type=int, default=10)
    parser.add_argument("--against", metavar="REV")
    args = parser.parse_args()
    repeats = 5 if args.quick else 15
    if args.quick:
        ROUNDS = 50
    text, answer = result_text(args.records)
    print("## 6. One Reader result, against its floor\n")
    print(machine())
    print(f"- one `moca_search` result: {args.records} whole records, {len(text.encode())} bytes")
    print(f"- {ROUNDS} results per repeat, {repeats} interleaved repeats, medians\n")
    with contextlib.ExitStack() as stack:
        value = json.loads(text)  # as Pydantic AI and ADK hand a tool's result over
        variants: dict[str, Callable[[], Awaitable[Any]]] = {
            "floor": floor(text),
            "cite": cited(moca_agui, text, answer),
            "cite, a Python value": cited(moca_agui, value, answer),
        }
        if args.against:
            earlier = stack.enter_context(core_at(args.against))
            variants[f"cite at {args.against}"] = cited(earlier, text, answer)
            variants[f"cite, a Python value, at {args.against}"] = cited(earlier, value, answer)
        times = side_by_side(variants, repeats)
    base = wall(times["floor"])
    rows = [
        [name, f"{wall(t) / ROUNDS * 1e6:.0f}", f"{wall(t) / base:.2f}"]
        for name, t in times.items()
    ]
    print(table(["variant", "µs per result", "ratio to floor"], rows))


if __name__ == "__main__":
    main()
