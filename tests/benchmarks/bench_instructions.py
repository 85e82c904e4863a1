"""Benchmark 9: CPU instructions per unit of work, counted by valgrind (callgrind).

Wall-clock ratios move with the load of the machine; instruction counts do not. Each
workload runs under callgrind at two sizes, and the difference, divided by the units
added, is the cost of one unit with every fixed cost (start-up, imports) taken out:

- per text delta: one run whose answer grows, through the pass-through hop, through the
  floor of a citing middleware (the hop, keeping each delta's text by its message, as
  cheaply as Python reads it) and through `cite`;
- per Reader result: benchmark 6's 10-record result read and its event sent, against
  its floor (parse once with `from_json` and encode the event), as a text and as the
  Python value Pydantic AI and ADK hand over;
- per realistic run: benchmark 1's 500-event runs, bare, hopped and cited;
- per request: each demo service installed here, in process (ASGI transport), without
  its one line, with it, and without it plus its floor (the Reader results the bare-SDK
  demo's cited stream shows parsed once, and its citation event encoded: every demo
  makes the same Reader calls): the bare SDK's, then each framework's. Agent
  Framework's needs an environment of its own: `nox -s bench-agent-framework` counts it
  there (`--workload request:agent-framework`).

    python tests/benchmarks/bench_instructions.py [--quick] [--against REV] [--workload W]

`--against REV` counts the core of git revision REV too, side by side. Needs valgrind
(`apt install valgrind`). Instructions are not time: a Python instruction and a Rust
one differ in what they cost, so read the ratios beside the timed benchmarks.

Allocations are counted from the same call graph: every call into pymalloc (Python's
objects and buffers, big ones included) and into the raw domain from elsewhere; native
code's own `malloc` (Rust's, say) is not. No profile hook runs here, so unlike memray's
column in benchmark 1 (whose hook makes a frame object for every Python call) a Python
call that allocates nothing counts nothing.

The children run with the cyclic garbage collector off: what a collection costs grows
with everything alive (here the workload's ready-made events), so with it on the cost of
one more unit depended on the sizes chosen (per delta, 24.0 k to 27.6 k instructions for
the hop alone, from 20 k to 40 k deltas and from 60 k to 80 k); off, 17.7 k at every size.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ag_ui.core import BaseEvent, TextMessageContentEvent
from workload import ROOT, machine, table

from moca_agui import EVENT_NAME as EVENT
from moca_agui.demo.server import FRAMEWORKS, FrameworkUnavailable, load_framework

HERE = Path(__file__).resolve().parent

#: workload -> (unit, sizes (small, large), variants (the first is the reference), the
#: variant that is its floor)
WORKLOADS: dict[str, tuple[str, tuple[int, int], tuple[str, ...], str]] = {
    "delta": ("text delta", (20_000, 60_000), ("hop", "keep", "cite"), "keep"),
    "result": ("Reader result", (100, 200), ("floor", "cite", "cite-python"), "floor"),
    "run": ("realistic run", (10, 20), ("bare", "hop", "cite"), "hop"),
    "request:ag-ui": ("bare-SDK demo request", (10, 30), ("bare", "floor", "cite"), "floor"),
    **{
        f"request:{framework}": (
            f"{framework} demo request",
            (3, 8),
            ("bare", "floor", "cite"),
            "floor",
        )
        for framework in FRAMEWORKS
        if framework != "ag-ui"
    },
}


# -- the workloads, run in a child process under callgrind -----------------------------


async def _delta(variant: str, size: int) -> None:
    from workload import message, prose, runs_of

    first = runs_of(1)[0]
    await _serve([[*first[:-3], *message("long", prose(size)), first[-1]]], variant, False)


async def _run(variant: str, size: int) -> None:
    from workload import run_events

    await _serve([run_events(i) for i in range(size)], variant, True)


async def _serve(runs: list[list[BaseEvent]], variant: str, encode: bool) -> None:
    from ag_ui.encoder import EventEncoder
    from workload import source

    import moca_agui

    async def hop(stream: AsyncIterator[BaseEvent]) -> AsyncIterator[BaseEvent]:
        async for event in stream:
            yield event

    async def keep(stream: AsyncIterator[BaseEvent]) -> AsyncIterator[BaseEvent]:
        texts: dict[str, list[str]] = {}
        message_id, parts = None, []
        async for event in stream:
            if type(event) is TextMessageContentEvent:
                fields = event.__dict__
                if fields["message_id"] is not message_id:
                    message_id = fields["message_id"]
                    parts = texts.setdefault(message_id, [])
                parts.append(fields["delta"])
            yield event

    encoder = EventEncoder()
    for events in runs:
        stream = source(events)
        if variant == "hop":
            stream = hop(stream)
        elif variant == "keep":
            stream = keep(stream)
        elif variant == "cite":
            stream = moca_agui.cite(stream)
        async for event in stream:
            if encode:
                encoder.encode(event)


async def _result(variant: str, size: int) -> None:
    import bench_capture
    from bench_capture import cited, floor, result_text

    import moca_agui

    bench_capture.ROUNDS = size
    text, answer = result_text(10)
    if variant == "floor":
        await floor(text)()
    else:  # cite-python: the result as a Python value, as Pydantic AI and ADK hand it over
        await cited(moca_agui, json.loads(text) if variant == "cite-python" else text, answer)()


async def _request(framework: str, variant: str, size: int) -> None:
    """`size` requests to a demo service: bare, bare plus the floor's work, or cited;
    `shown` prints what `_floor_work` needs from one cited request."""
    os.environ["MOCA_BENCH_FRAMEWORK"] = framework
    os.environ["MOCA_BENCH_CITED"] = "0" if variant in ("bare", "floor") else "1"
    import httpx
    from framework_apps import app
    from workload import one_request

    work = _floor_work() if variant == "floor" else None
    body = b""
    transport = httpx.ASGITransport(app=app())
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        for _ in range(size):
            body = (await one_request(client, "http://bench/"))[1]
            if work is not None:
                work()
    if variant == "shown":
        print(json.dumps(_shown(body)))


def _shown(body: bytes) -> tuple[list[str], list[object]]:
    """The Reader results a cited demo stream shows (TOOL_CALL_RESULT contents of `moca_*`
    calls) and the values of its `moca.citations` events."""
    events = [json.loads(line[5:]) for line in body.splitlines() if line.startswith(b"data:")]
    reader_calls = {
        e["toolCallId"]
        for e in events
        if e["type"] == "TOOL_CALL_START" and e["toolCallName"].startswith("moca_")
    }
    results = [
        e["content"]
        for e in events
        if e["type"] == "TOOL_CALL_RESULT" and e["toolCallId"] in reader_calls
    ]
    citations = [e["value"] for e in events if e["type"] == "CUSTOM" and e["name"] == EVENT]
    return results, citations


def _floor_work() -> Callable[[], None]:
    """The least a citing layer adds to one demo request: parse each Reader result once
    (keys cached), as the bare-SDK demo's cited stream shows them, and encode its citation
    event (not send it). The same work for every framework: each demo makes the same
    Reader calls and cites the same records."""
    from ag_ui.core import CustomEvent, EventType
    from ag_ui.encoder import EventEncoder
    from pydantic_core import from_json

    command = [sys.executable, __file__, "--child", "request:ag-ui", "shown", "1"]
    shown = subprocess.run(command, cwd=HERE, capture_output=True, text=True)
    if shown.returncode != 0:
        raise RuntimeError(f"the bare-SDK demo's cited request failed: {shown.stderr[-2000:]}")
    results, citations = json.loads(shown.stdout.splitlines()[-1])
    if len(results) != 2 or len(citations) != 1:  # the demo's moca_structure, moca_get_node
        raise RuntimeError(f"the demo showed {len(results)} results, {len(citations)} events")
    encoder = EventEncoder()

    def work() -> None:
        for text in results:
            from_json(text, cache_strings="keys")
        for value in citations:
            encoder.encode(CustomEvent(type=EventType.CUSTOM, name=EVENT, value=value))

    return work


CHILDREN: dict[str, Callable[[str, int], Awaitable[None]]] = {
    "delta": _delta,
    "result": _result,
    "run": _run,
    **{
        workload: functools.partial(_request, workload.removeprefix("request:"))
        for workload in WORKLOADS
        if workload.startswith("request:")
    },
}


def _installed(workload: str) -> bool:
    """Whether this environment has the framework a workload serves."""
    if not workload.startswith("request:"):
        return True
    try:
        load_framework(workload.removeprefix("request:"))
    except FrameworkUnavailable:
        return False
    return True


# -- counting -----------------------------------------------------------------------------


#: pymalloc's entry points: every request for memory a Python object or buffer makes
#: (the object and memory domains) passes one of them, big ones included; counted when
#: called from outside them (a realloc that moves its block calls `_PyObject_Malloc`).
PYMALLOC = frozenset({"_PyObject_Malloc", "_PyObject_Calloc", "_PyObject_Realloc"})
#: The raw domain's: counted when called from outside pymalloc (a request too big for
#: pymalloc is counted there already).
RAW = frozenset({"PyMem_RawMalloc", "PyMem_RawCalloc", "PyMem_RawRealloc"})
_NAMED = re.compile(r"c?fn=\((\d+)\)(?: (.*))?")


def allocations(graph: Path) -> int:
    """Python's allocations in one callgrind output: the calls into `PYMALLOC` and `RAW`
    from outside pymalloc. No profile hook runs, so a Python call that makes no frame
    object is not counted as one (memray's tracing makes one for each call)."""
    names: dict[str, str] = {}
    caller = callee = ""
    count = 0
    with graph.open() as lines:
        for line in lines:
            if line.startswith(("fn=", "cfn=")):
                found = _NAMED.match(line)
                if found is None:
                    continue
                key, name = found.groups()
                if name:
                    names[key] = name.split("'")[0].strip()  # `'2`: a recursive call
                if line.startswith("fn="):
                    caller = names.get(key, "")
                else:
                    callee = names.get(key, "")
            elif line.startswith("calls=") and (
                (callee in PYMALLOC or callee in RAW) and caller not in PYMALLOC
            ):
                count += int(line[6:].split(maxsplit=1)[0])
    return count


def counted(workload: str, variant: str, size: int, core: Path | None) -> tuple[int, int]:
    """Instructions and Python allocations callgrind counts for one child process running
    `workload`."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if core is not None:  # a folder holding `moca_agui`: ahead of the installed package
        env["PYTHONPATH"] = os.pathsep.join([str(core), env.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory() as folder:
        graph = Path(folder) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={graph}"]
        command += [sys.executable, __file__, "--child", workload, variant, str(size)]
        done = subprocess.run(command, env=env, cwd=HERE, capture_output=True, text=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise RuntimeError(f"{workload} {variant} {size}: {done.stderr[-2000:]}")
        return int(found.group(1)), allocations(graph)


def per_unit(workload: str, variant: str, core: Path | None, quick: bool) -> tuple[float, float]:
    """Instructions and Python allocations one more unit of `workload` costs."""
    small, large = WORKLOADS[workload][1]
    if quick:
        small, large = small // 2, large // 2
    low, high = (counted(workload, variant, size, core) for size in (small, large))
    units = large - small
    return (high[0] - low[0]) / units, (high[1] - low[1]) / units


#: Where each subpackage of `moca_agui` lives in the tree (pyproject.toml's package-dir).
LAYOUT = {"adapters": "adapters", "demo": "examples/demo", "js": "js"}


@contextlib.contextmanager
def package_at(revision: str) -> Iterator[Path]:
    """A folder holding the `moca_agui` package of git revision `revision`, laid out as
    pyproject.toml's package-dir installs it."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        git = ["git", "-C", str(ROOT), "worktree"]
        subprocess.run([*git, "add", "--detach", "-q", str(tree), revision], check=True)
        try:
            package = Path(folder) / "path" / "moca_agui"
            package.mkdir(parents=True)
            for module in (tree / "core").iterdir():
                (package / module.name).symlink_to(module)
            for name, place in LAYOUT.items():
                (package / name).symlink_to(tree / place)
            yield package.parent
        finally:
            subprocess.run([*git, "remove", "--force", str(tree)], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--against", metavar="REV")
    parser.add_argument(
        "--workload", action="append", choices=list(WORKLOADS), help="only this one (repeatable)"
    )
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        gc.disable()
        workload, variant, size = args.child
        asyncio.run(CHILDREN[workload](variant, int(size)))
        return
    if shutil.which("valgrind") is None:
        print("## 9. Instructions per unit of work\n\nnot run: valgrind is not installed "
              "here (apt install valgrind)")  # fmt: skip
        return
    chosen = list(dict.fromkeys(args.workload or WORKLOADS))
    here = [workload for workload in chosen if _installed(workload)]
    with contextlib.ExitStack() as stack:
        cores: dict[str, Path | None] = {"": None}
        if args.against:
            cores[f" at {args.against}"] = stack.enter_context(package_at(args.against))
        jobs = {
            (workload, variant, label): (workload, variant, core)
            for workload in here
            for variant in WORKLOADS[workload][2]
            for label, core in cores.items()
            if label == "" or variant.startswith("cite")
        }
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            futures = {key: pool.submit(per_unit, *job, args.quick) for key, job in jobs.items()}
            counts = {key: future.result() for key, future in futures.items()}
    print("## 9. Instructions per unit of work (callgrind)\n")
    print(machine() + "\n")
    rows = []
    for (workload, variant, label), (count, allocated) in counts.items():
        unit, _, (first, *_), floor = WORKLOADS[workload]
        reference, least = counts[(workload, first, "")], counts[(workload, floor, "")]
        rows.append(
            [unit, variant + label, f"{count:,.0f}", f"**{count / reference[0]:.3f}**",
             f"{count - reference[0]:+,.0f}" if variant != first else "",
             f"**{count / least[0]:.3f}**" if variant != floor else "floor",
             f"{allocated:,.1f}", f"**{allocated / reference[1]:.3f}**",
             f"{allocated - reference[1]:+,.1f}" if variant != first else ""]
        )  # fmt: skip
    header = ["per", "variant", "instructions", "to the first", "over the first",
              "to the floor", "allocations", "to the first", "over the first"]  # fmt: skip
    print(table(header, rows))
    missing = [workload.removeprefix("request:") for workload in chosen if workload not in here]
    if missing:
        print("\nNot installed here: " + ", ".join(missing))


if __name__ == "__main__":
    main()
