"""Benchmark 12: one huge SSE event through `CitationMiddleware`, chunk by chunk.

An app streams a run whose answer is one TEXT_MESSAGE_CONTENT of 25 MB, then of 50 MB,
in 64 KiB body chunks, as a server's socket hands them over. A middleware that holds the
unfinished event and searches only the new bytes for its end costs about twice as much
for twice the event; one that re-copies and re-scans what it holds at every chunk costs
four times as much. Printed: the median CPU time of each, the process's user time (the
layer's own work) and its system time (mostly the kernel handing it fresh memory pages),
their sum, and the ratio 50 MB / 25 MB, for this core, (`--against REV`) an earlier one,
and the floor (the least any such middleware does: pass each chunk on, join the event's
chunks once, parse it once), side by side.

A second table counts the instructions each layer executes for the event (valgrind's
callgrind, one child process per layer and size, less a child that only builds the
body and imports the layers): the work of the layer itself, which no page fault or
allocator reuse moves.

    python tests/benchmarks/bench_big_event.py [--quick] [--against REV] [--no-instructions]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import re
import resource
import shutil
import statistics
import subprocess
import sys
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from pydantic_core import from_json
from workload import core_at, machine, table

CHUNK = 64 * 1024
SCOPE = {"type": "http", "method": "POST", "path": "/", "headers": []}


def body(megabytes: int) -> bytes:
    encoder = EventEncoder()
    events = [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m", role="assistant"),
        TextMessageContentEvent(message_id="m", delta="x" * (megabytes * 1_000_000)),
        TextMessageEndEvent(message_id="m"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    return b"".join(encoder.encode(event).encode() for event in events)


def app_for(sse: bytes) -> Callable[[Any, Any, Any], Awaitable[None]]:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for start in range(0, len(sse), CHUNK):
            chunk = sse[start : start + CHUNK]
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


class Floor:
    """The least a middleware that reads each event does: every chunk is sent on as it
    comes, the event's chunks are joined once, at its end, and parsed once."""

    def __init__(self, app: Callable[[Any, Any, Any], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        held: list[bytes] = []

        async def on(message: dict[str, Any]) -> None:
            chunk = message.get("body", b"")
            held.append(chunk)
            if chunk.endswith(b"\n\n") or not message.get("more_body", True):
                for event in b"".join(held).split(b"\n\n"):
                    if event.startswith(b"data: "):
                        from_json(event[6:])
                held.clear()
            await send(message)

        await self.app(scope, receive, on)


async def served(middleware: Any, sse: bytes) -> tuple[float, float]:
    sent = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal sent
        sent += len(message.get("body", b""))

    before = resource.getrusage(resource.RUSAGE_SELF)
    await middleware(app_for(sse))(SCOPE, receive, send)
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert sent >= len(sse)
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def layers() -> dict[str, Any]:
    return {
        "CitationMiddleware": importlib.import_module("moca_agui.asgi").CitationMiddleware,
        "floor": Floor,
    }


def child(layer: str, megabytes: int) -> None:
    """One event of `megabytes` MB through `layer` ("none": the body is built and the
    layers imported only)."""
    sse, imported = body(megabytes), layers()
    if layer != "none":
        asyncio.run(served(imported[layer], sse))


def instructions(layer: str, megabytes: int) -> int:
    """Instructions callgrind counts for a child process running `child(layer, megabytes)`."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command += [sys.executable, __file__, "--child", layer, str(megabytes)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{layer} {megabytes} MB: {done.stderr[-2000:]}")
    return int(found.group(1))


def instruction_table() -> str:
    built = {size: instructions("none", size) for size in (25, 50)}
    rows = []
    for layer in layers():
        small, large = (instructions(layer, size) - built[size] for size in (25, 50))
        rows.append([layer, f"{small / 1e6:,.1f}", f"{large / 1e6:,.1f}", f"{large / small:.2f}x"])
    header = ["layer", "25 MB event (M instr.)", "50 MB event (M instr.)", "50 MB / 25 MB"]
    return table(header, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--against", metavar="REV")
    parser.add_argument("--no-instructions", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("LAYER", "MB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    repeats = 3 if args.quick else 7
    print("## 12. One huge event through the middleware\n")
    print(machine() + "\n")
    bodies = {size: body(size) for size in (25, 50)}
    with contextlib.ExitStack() as stack:
        middlewares: dict[str, Any] = layers()
        if args.against:
            core: ModuleType = stack.enter_context(core_at(args.against))
            earlier = importlib.import_module(f"{core.__name__}.asgi").CitationMiddleware
            middlewares[f"CitationMiddleware at {args.against}"] = earlier
        times: dict[tuple[str, int], list[tuple[float, float]]] = {
            (name, size): [] for name in middlewares for size in bodies
        }
        for _ in range(repeats):  # interleaved
            for (name, size), measured in times.items():
                measured.append(asyncio.run(served(middlewares[name], bodies[size])))
    rows = []
    for name in middlewares:
        for label, parts in (("user", (0,)), ("system", (1,)), ("user+system", (0, 1))):
            small, large = (
                statistics.median(sum(t[p] for p in parts) for t in times[(name, size)])
                for size in (25, 50)
            )
            ratio = f"{large / small:.2f}x" if small else "-"
            rows.append([name, label, f"{small:.3f}", f"{large:.3f}", ratio])
    header = ["layer", "CPU", "25 MB event (s)", "50 MB event (s)", "50 MB / 25 MB"]
    print(table(header, rows))
    print(f"\nMedian CPU times of {repeats} runs each, interleaved; {CHUNK // 1024} KiB chunks.")
    if args.no_instructions or shutil.which("valgrind") is None:
        return
    print("\nInstructions for the event (callgrind; less building the body, imports):\n")
    print(instruction_table())


if __name__ == "__main__":
    main()
