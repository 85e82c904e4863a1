"""Benchmark 3: how resolution scales with the answer's size and the Reader's records.

A. One run that captured 100 records; its answer grows from 1 KB to 1 MB, citing 10 of
   them (5 by versioned ref, 5 by marker) spread over the text. Timed: `event_for` (find
   the refs and markers, resolve, build the event), against the floor of one
   `re.finditer` of `\\S+` pass over the same text (every word, once).
B. A 16 KB answer citing 20 nodes; the run captured 10 to 10,000 records (one `moca_search`
   each ten). Timed: capturing them, and `event_for`.

Prints time per KB and per record and the exponent of a power law fitted to each series
(1.0 is linear); writes the plot BENCHMARKS-scaling.png beside BENCHMARKS.md.

    python tests/benchmarks/bench_scaling.py [--quick]
"""

from __future__ import annotations

import asyncio
import math
import re
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from workload import ROOT, machine, node_record, prose, ref, table

import moca_agui
import moca_agui.adapter

PLOT = ROOT / "BENCHMARKS-scaling.png"
FLOOR = re.compile(r"\S+")  # one regex pass over every word of the text


def best_of(repeats: int, action: Callable[[], Any]) -> float:
    """The least wall time of `repeats` runs of `action` (the least disturbed)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def best_of_async(repeats: int, action: Callable[[], Awaitable[Any]]) -> float:
    """As `best_of`, for a coroutine, all repeats in one event loop."""

    async def timed() -> float:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            await action()
            times.append(time.perf_counter() - start)
        return min(times)

    return asyncio.run(timed())


def answer_text(size: int, records: Sequence[dict[str, Any]], cites: int) -> str:
    """About `size` bytes of prose citing `cites` times, alternating refs and markers."""
    words = "".join(prose(size // 5))
    step = max(len(words) // max(cites, 1), 1)
    parts = []
    for n, start in enumerate(range(0, len(words), step)):
        parts.append(words[start : start + step])
        if n < cites:
            k = n % len(records)
            parts.append(f" ({ref(records[k])}) " if n % 2 else f" [{k + 1}] ")
    return "".join(parts)[:size]


def captured(records: Sequence[dict[str, Any]]) -> moca_agui.adapter.CitationRun:
    citation_run = moca_agui.adapter.CitationRun()
    for start in range(0, len(records), 10):
        citation_run.capture("moca_search", {"query": "q", "results": records[start : start + 10]})
    return citation_run


def resolve(citation_run: moca_agui.adapter.CitationRun, text: str) -> Callable[[], Awaitable[Any]]:
    """The resolution of one answer `text`: finding what it cites and building its event."""

    async def action() -> Any:
        citation_run._texts.clear()
        citation_run.add_text("answer", text)
        return await citation_run.events.event_for("answer")

    return action


def exponent(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The slope of log y against log x (least squares): the power law's exponent."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


def by_answer_size(sizes: Sequence[int], repeats: int) -> dict[str, list[float]]:
    records = [node_record(f"n-{k}.md") for k in range(100)]
    citation_run = captured(records)
    series: dict[str, list[float]] = {"kb": [], "resolve": [], "floor": []}
    for size in sizes:
        text = answer_text(size, records, 10)
        series["kb"].append(size / 1024)
        series["resolve"].append(best_of_async(repeats, resolve(citation_run, text)))
        series["floor"].append(best_of(repeats, lambda t=text: list(FLOOR.finditer(t))))
    return series


def by_records(counts: Sequence[int], repeats: int) -> dict[str, list[float]]:
    series: dict[str, list[float]] = {"records": [], "capture": [], "resolve": []}
    for count in counts:
        records = [node_record(f"n-{k}.md") for k in range(count)]
        text = answer_text(16 * 1024, records[:20], 20)
        series["records"].append(count)
        series["capture"].append(best_of(repeats, lambda r=records: captured(r)))
        series["resolve"].append(best_of_async(repeats, resolve(captured(records), text)))
    return series


def plot(answer: dict[str, list[float]], records: dict[str, list[float]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    left.loglog(answer["kb"], [t * 1e3 for t in answer["resolve"]], "o-", label="event_for")
    left.loglog(answer["kb"], [t * 1e3 for t in answer["floor"]], "s--", label="re.finditer floor")
    left.set(xlabel="answer size (KB)", ylabel="ms (best of repeats)",
             title="A. Resolution vs answer size (10 of 100 cited)")  # fmt: skip
    right.loglog(records["records"], [t * 1e3 for t in records["capture"]], "o-", label="capture")
    right.loglog(records["records"], [t * 1e3 for t in records["resolve"]], "s-",
                 label="event_for (16 KB answer)")  # fmt: skip
    right.set(xlabel="records captured in the run", ylabel="ms (best of repeats)",
              title="B. Capture and resolution vs records")  # fmt: skip
    for axes in (left, right):
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
    fig.tight_layout()
    fig.savefig(PLOT, dpi=110)


def main(argv: Sequence[str]) -> None:
    quick = "--quick" in argv
    sizes = [2**k * 1024 for k in range(0, 11, 2 if quick else 1)]  # 1 KB .. 1 MB
    counts = [10, 100, 1_000] if quick else [10, 30, 100, 300, 1_000, 3_000, 10_000]
    repeats = 3 if quick else 7
    answer = by_answer_size(sizes, repeats)
    records = by_records(counts, 3 if quick else 5)
    print("## 3. Scaling of resolution\n")
    print(machine() + "\n")
    rows = [
        [f"{kb:,.0f}", f"{r * 1e3:.3f}", f"{r / kb * 1e6:.1f}", f"{f * 1e3:.3f}", f"{r / f:.1f}"]
        for kb, r, f in zip(answer["kb"], answer["resolve"], answer["floor"], strict=True)
    ]
    print("A. One answer, 1 KB to 1 MB, citing 10 of 100 records captured (best of repeats):\n")
    print(table(["answer KB", "event_for ms", "µs per KB", "floor ms", "x floor"], rows))
    print(
        f"\nFitted exponent: event_for **{exponent(answer['kb'], answer['resolve']):.2f}** "
        f"(largest two sizes: {exponent(answer['kb'][-2:], answer['resolve'][-2:]):.2f}), "
        f"floor {exponent(answer['kb'], answer['floor']):.2f}; 1.00 is linear\n"
    )
    rows = [
        [f"{n:,}", f"{c * 1e3:.2f}", f"{c / n * 1e6:.1f}", f"{r * 1e3:.2f}", f"{r / n * 1e6:.2f}"]
        for n, c, r in zip(records["records"], records["capture"], records["resolve"], strict=True)
    ]
    print("B. Records captured in one run, 10 to 10,000; a 16 KB answer citing 20 of them:\n")
    print(table(["records", "capture ms", "µs per record", "event_for ms", "µs per record"], rows))
    print(
        f"\nFitted exponent: capture **{exponent(records['records'], records['capture']):.2f}**,"
        f" event_for **{exponent(records['records'], records['resolve']):.2f}** (largest two "
        f"counts: {exponent(records['records'][-2:], records['resolve'][-2:]):.2f})\n"
    )
    if quick:  # the plot beside BENCHMARKS.md is of a full run
        print("Plot: not written by a --quick run")
    else:
        plot(answer, records)
        print(f"Plot: {PLOT.name}")


if __name__ == "__main__":
    main(sys.argv[1:])
