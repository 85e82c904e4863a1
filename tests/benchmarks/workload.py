"""What the benchmarks measure on: realistic synthetic AG-UI runs, and how they are timed.

A run is what an agent answering from a MOCA Reader streams: a short first message, a
full `moca_search` (5 records), a call to a tool that is not a Reader, a `moca_get_node`
(1 record), then the answer token by token, citing nodes by versioned ref and by marker.
Records are the support-kb example record, one node each.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import gc
import importlib
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
from ag_ui.core import (
    BaseEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from moca_agui.demo.model import DEMO_QUESTION
from moca_agui.demo.server import run_input

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
EXAMPLE_EVENT = ROOT / "tests/data/support-kb-citations-event.reconstructed.json"
PACKAGE = "https://example.com/moca/support-kb"
SENTENCE = (
    "Customers may request a full refund within thirty days of delivery and the window "
    "runs from the date the carrier recorded not the order date so items marked final "
    "sale are not eligible while a missing delivery date means dispatch plus five days"
)
WORDS = SENTENCE.split(" ")


def example_record() -> dict[str, Any]:
    event = json.loads(EXAMPLE_EVENT.read_text(encoding="utf-8"))
    return dict(event["value"]["citations"][0]["record"])


_EXAMPLE = example_record()


def node_record(path: str, text_bytes: int | None = None) -> dict[str, Any]:
    """The example record for node `path` (a ~2 KB record), with `text_bytes` of text."""
    rec = copy.deepcopy(_EXAMPLE)
    rec["node"]["path"] = path
    rec["node"]["id"] = f"{PACKAGE}#{path}"
    rec["node"]["ref"] = f"{PACKAGE}@4.2.0#{path}"
    if text_bytes is not None:
        rec["text"] = (rec["text"] * (text_bytes // len(rec["text"]) + 1))[:text_bytes]
    return rec


def ref(rec: dict[str, Any]) -> str:
    return str(rec["node"]["ref"])


def prose(words: int, offset: int = 0) -> list[str]:
    """`words` words of answer text, one delta (a token or so) each."""
    return [WORDS[(offset + i) % len(WORDS)] + " " for i in range(words)]


def tool_call(call_id: str, name: str, content: str, arg_deltas: int = 3) -> list[BaseEvent]:
    args = json.dumps({"query": "refund window", "detail": "full"})
    step = len(args) // arg_deltas + 1
    return [
        ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, parent_message_id="m0"),
        *(
            ToolCallArgsEvent(tool_call_id=call_id, delta=args[i : i + step])
            for i in range(0, len(args), step)
        ),
        ToolCallEndEvent(tool_call_id=call_id),
        ToolCallResultEvent(message_id=f"{call_id}-r", tool_call_id=call_id, content=content),
    ]


def message(message_id: str, deltas: Iterable[str]) -> list[BaseEvent]:
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        *(TextMessageContentEvent(message_id=message_id, delta=d) for d in deltas),
        TextMessageEndEvent(message_id=message_id),
    ]


def run_events(i: int, answer_words: int = 450) -> list[BaseEvent]:
    """One realistic run, about 500 events; the answer cites 3 of the 6 records read."""
    found = [node_record(f"run-{i}/node-{k}.md") for k in range(5)]
    read = node_record(f"run-{i}/read.md")
    search = json.dumps({"query": "refund window", "results": found}, indent=2)
    words = prose(answer_words, i)
    third = len(words) // 3
    answer = [
        *words[:third],
        "(see ",
        ref(found[1])[:30],  # a ref split over two deltas, as tokens split it
        ref(found[1])[30:] + ") ",
        *words[third : 2 * third],
        "[1] ",
        *words[2 * third :],
        f"and `{ref(read)}`.",
    ]
    return [
        RunStartedEvent(thread_id=f"thread-{i}", run_id=f"run-{i}"),
        *message(f"run-{i}-intro", prose(15, i)),
        *tool_call(f"run-{i}-c1", "moca_search", search),
        *tool_call(f"run-{i}-c2", "get_weather", json.dumps({"city": "Lyon", "c": 21})),
        *tool_call(f"run-{i}-c3", "moca_get_node", json.dumps(read, indent=2)),
        *message(f"run-{i}-answer", answer),
        RunFinishedEvent(thread_id=f"thread-{i}", run_id=f"run-{i}"),
    ]


def runs_of(total_events: int, answer_words: int = 450) -> list[list[BaseEvent]]:
    """Realistic runs adding up to about `total_events` events."""
    runs: list[list[BaseEvent]] = []
    count = 0
    while count < total_events:
        runs.append(run_events(len(runs), answer_words))
        count += len(runs[-1])
    return runs


async def source(events: Sequence[BaseEvent]) -> AsyncIterator[BaseEvent]:
    """The agent: an async generator of ready-made events."""
    for event in events:
        yield event


# -- measuring -----------------------------------------------------------------------------


def side_by_side(
    variants: dict[str, Callable[[], Awaitable[Any]]], repeats: int
) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) seconds of each variant, run in turn `repeats` times: interleaved, and
    in a rotating order, so that load from elsewhere on the machine and the state one
    variant leaves behind fall on all of them alike."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    names = list(variants)
    for repeat in range(repeats):
        for name in names[repeat % len(names) :] + names[: repeat % len(names)]:
            variant = variants[name]
            gc.collect()
            wall, cpu = time.perf_counter(), time.process_time()
            asyncio.run(variant())
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    return times


def wall(times: Sequence[tuple[float, float]]) -> float:
    """The median wall time."""
    return statistics.median(t for t, _ in times)


def cpu(times: Sequence[tuple[float, float]]) -> float:
    """The median CPU time of the process."""
    return statistics.median(c for _, c in times)


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


@contextlib.contextmanager
def serving(app: str, **env: str) -> Iterator[str]:
    """One uvicorn process serving the app factory `app` ("module:function" of this folder)
    on a free port of 127.0.0.1, `env` added to its environment: its URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    command = [sys.executable, "-m", "uvicorn", app, "--factory", "--app-dir", str(HERE)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    command += ["--no-access-log"]
    process = subprocess.Popen(command, env={**os.environ, "PYTHONUNBUFFERED": "1", **env})
    try:
        for _ in range(600):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            if process.poll() is not None:
                raise RuntimeError(f"{app} {env} did not start")
            time.sleep(0.05)
        else:
            raise RuntimeError(f"{app} {env} did not start")
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(10)


async def one_request(client: httpx.AsyncClient, url: str) -> tuple[float, bytes]:
    """POST the demo question to `url`: the seconds to the last byte, and the body."""
    start = time.perf_counter()
    async with client.stream("POST", url, json=run_input(DEMO_QUESTION)) as response:
        response.raise_for_status()
        body = b"".join([chunk async for chunk in response.aiter_bytes()])
    return time.perf_counter() - start, body


@contextlib.contextmanager
def core_at(revision: str) -> Iterator[ModuleType]:
    """The `moca_agui` core of git revision `revision`, imported from a temporary worktree
    as the package `moca_agui_at_<n>`: an earlier core measured in the same run."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        git = ["git", "-C", str(ROOT), "worktree"]
        subprocess.run([*git, "add", "--detach", "-q", str(tree), revision], check=True)
        try:
            name = f"moca_agui_at_{len(sys.modules)}"
            (Path(folder) / name).symlink_to(tree / "core")
            sys.path.insert(0, folder)
            yield importlib.import_module(name)
        finally:
            subprocess.run([*git, "remove", "--force", str(tree)], check=False)


#: When this benchmark's process began, and the machine's load then.
STARTED = (datetime.now(UTC), os.getloadavg())


def machine() -> str:
    """Where and when the figures were measured, for BENCHMARKS.md."""
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown",
    )
    packages = ", ".join(
        f"{name} {version(name)}"
        for name in ("ag-ui-protocol", "pydantic", "pydantic-core", "pluggy", "moca-agui")
    )
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    began, load_then = STARTED
    load, load_now = (
        ", ".join(f"{x:.1f}" for x in loads) for loads in (load_then, os.getloadavg())
    )
    return (
        f"- date: {began.isoformat(timespec='minutes')}\n"
        f"- machine: {os.cpu_count()} CPUs ({cpu}), {platform.system()} {platform.release()}\n"
        f"- load average at start: {load}; when printed: {load_now}\n"
        f"- Python {platform.python_version()} ({sys.implementation.name})\n"
        f"- {packages}\n"
        f"- commit: {commit}\n"
        f"- command: python {' '.join(sys.argv)}"
    )
