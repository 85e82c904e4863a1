"""Benchmark 5: the size of the `moca.citations` event, and the cost of encoding it.

Events built by `CitationRun.events.event_for` for answers citing 1 to 100 nodes (the
support-kb record, ~2 KB with ~330 bytes of text; and the same with 4 KB of text), with
`include_text` True and False. Prints the bytes each event takes on the wire (SSE, as
EventEncoder writes it), and the time to encode it against `json.dumps` of its records
alone (compact, as on the wire), side by side.

    python tests/benchmarks/bench_event_size.py [--quick]
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ag_ui.core import CustomEvent
from ag_ui.encoder import EventEncoder
from workload import machine, node_record, ref, table

import moca_agui
import moca_agui.adapter

COMPACT: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":")}


def event_for(records: Sequence[dict[str, Any]], include_text: bool) -> CustomEvent:
    citation_run = moca_agui.adapter.CitationRun(
        moca_agui.CitationOptions(include_text=include_text)
    )
    citation_run.capture("moca_search", {"query": "q", "results": list(records)})
    citation_run.add_text("answer", " ".join(f"See {ref(r)}." for r in records))
    event = asyncio.run(citation_run.events.event_for("answer"))
    assert event is not None and len(event.value["citations"]) == len(records)
    return event


def best_of(repeats: int, number: int, action: Callable[[], Any]) -> float:
    """The least time per call over `repeats` batches of `number` calls."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            action()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def row(cited: int, text_bytes: int, include_text: bool, repeats: int) -> list[Any]:
    records = [node_record(f"n-{k}.md", text_bytes) for k in range(cited)]
    event = event_for(records, include_text)
    encoder = EventEncoder()
    wire = encoder.encode(event).encode("utf-8")
    sent = [c["record"] for c in event.value["citations"]]
    number = max(2000 // cited, 20)
    encode = best_of(repeats, number, lambda: encoder.encode(event))
    dumps = best_of(repeats, number, lambda: json.dumps(sent, **COMPACT))
    plain = len(json.dumps(sent, **COMPACT).encode("utf-8"))
    return [
        cited,
        f"{text_bytes:,}",
        "kept" if include_text else "dropped",
        f"{len(wire):,}",
        f"{len(wire) / plain:.3f}",
        f"{encode * 1e6:.1f}",
        f"{dumps * 1e6:.1f}",
        f"**{encode / dumps:.2f}**",
    ]


def main(argv: Sequence[str]) -> None:
    repeats = 3 if "--quick" in argv else 7
    rows = [
        row(cited, text_bytes, include_text, repeats)
        for text_bytes in (330, 4096)
        for cited in (1, 3, 10, 30, 100)
        for include_text in (True, False)
    ]
    print("## 5. Event size\n")
    print(machine() + "\n")
    header = ["cited", "text bytes/record", "text", "event bytes (SSE)", "x records JSON"]
    header += ["EventEncoder µs", "json.dumps(records) µs", "encode ratio"]
    print(table(header, rows))
    budget = moca_agui.CitationOptions().max_event_bytes
    print(
        f"\nThe default budget is {budget:,} bytes of JSON: past it, `text` is dropped from "
        "the largest records first (100 records with 4 KB of text each)."
    )


if __name__ == "__main__":
    main(sys.argv[1:])
