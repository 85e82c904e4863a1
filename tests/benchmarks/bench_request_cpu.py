"""Benchmark 15: the server's CPU per request, bare, with `cite` and behind the middleware.

Three services (http_apps.py) run each in its own uvicorn process on 127.0.0.1, the demo
agent on the bare AG-UI SDK, scripted, with no model latency:

- bare: the endpoint alone;
- cite: the endpoint with `moca_agui.cite(events, input=input_data, lookup=...)`, which
  reads the request's thread;
- middleware: the bare endpoint behind `CitationMiddleware(app, lookup=...)`.

This process is the client: N concurrent clients post the demo question, alone or after
a 20-turn thread (each earlier turn a search of 5 records and a cited answer, as
benchmark 11 builds them), and read each stream to its end. Each service's own process
CPU time (it answers GET /cpu) is read before and after each load, in rotating order over
several rounds. Prints the median CPU per request of each service, what `cite` and the
middleware add to bare, the ratio of the two, and how many responses were wrong (not 200,
no RUN_FINISHED, citations missing or present where they should not be).

    python tests/benchmarks/bench_request_cpu.py [--quick] [--against REV]

`--against REV` serves the same three from the package of git revision REV as well (its
`core`, `adapters` and `examples/demo`, laid out as pyproject.toml maps them), loaded in
the same rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
from bench_thread import earlier_turn
from workload import ROOT, machine, serving, table

from moca_agui.demo.model import DEMO_QUESTION
from moca_agui.demo.server import run_input

SERVICES = {"bare": "cpu_bare", "cite": "cpu_cite", "middleware": "cpu_middleware"}
THREAD_TURNS = 20
CLIENTS = 8


def request_body(turns: int) -> dict[str, Any]:
    """The demo question's `RunAgentInput`, after `turns` earlier turns."""
    body = run_input(DEMO_QUESTION)
    earlier = [message for n in range(1, turns + 1) for message in earlier_turn(n)]
    body["messages"] = [*earlier, *body["messages"]]
    return body


def wrong(name: str, status: int, body: bytes) -> bool:
    cited = b'"name":"moca.citations"' in body
    return status != 200 or b'"RUN_FINISHED"' not in body or cited != (name != "bare")


@contextlib.contextmanager
def package_at(revision: str) -> Iterator[str]:
    """A folder holding the `moca_agui` package of git revision `revision`."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        tree.mkdir()
        git = ["git", "-C", str(ROOT), "archive", revision, "core", "adapters", "examples/demo"]
        archive = subprocess.run(git, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        package = Path(folder) / "moca_agui"
        shutil.move(tree / "core", package)
        shutil.move(tree / "adapters", package / "adapters")
        shutil.move(tree / "examples" / "demo", package / "demo")
        yield folder


async def load(name: str, url: str, body: dict[str, Any], requests: int) -> tuple[float, int]:
    """`requests` requests by CLIENTS concurrent clients: the server's CPU seconds per
    request, and how many responses were wrong."""
    queue = iter(range(requests))
    failures = 0
    limits = httpx.Limits(max_connections=CLIENTS, max_keepalive_connections=CLIENTS)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:

        async def post() -> None:
            nonlocal failures
            async with client.stream("POST", url, json=body) as response:
                content = b"".join([chunk async for chunk in response.aiter_bytes()])
            failures += wrong(name, response.status_code, content)

        async def worker() -> None:
            for _ in queue:
                await post()

        await post()  # warm: the connection, the first import paths
        before = (await client.get(url + "cpu")).json()["cpu"]
        await asyncio.gather(*(worker() for _ in range(CLIENTS)))
        after = (await client.get(url + "cpu")).json()["cpu"]
    return (after - before) / requests, failures


def measure(
    urls: dict[tuple[str, str], str], turns: int, requests: int, rounds: int
) -> list[list[str]]:
    """One row per core: `urls` by (core, service)."""
    body = request_body(turns)
    spent: dict[tuple[str, str], list[float]] = {key: [] for key in urls}
    failures = dict.fromkeys(urls, 0)
    keys = list(urls)
    for round_number in range(rounds):
        turn = round_number % len(keys)
        for key in (*keys[turn:], *keys[:turn]):
            per_request, wrong_ones = asyncio.run(load(key[1], urls[key], body, requests))
            spent[key].append(per_request)
            failures[key] += wrong_ones
    rows = []
    for core in dict.fromkeys(core for core, _ in keys):
        bare, cite, middleware = (statistics.median(spent[core, s]) * 1e3 for s in SERVICES)
        rows.append(
            [
                f"{turns} turns" if turns else "none",
                core,
                f"{bare:.2f}",
                f"{cite:.2f}",
                f"{middleware:.2f}",
                f"{cite - bare:.2f}",
                f"{middleware - bare:.2f}",
                f"**{(middleware - bare) / (cite - bare):.2f}x**",
                f"{rounds * requests * len(SERVICES):,}",
                str(sum(failures[core, s] for s in SERVICES)),
            ]
        )
    return rows


def main(argv: Sequence[str]) -> None:
    quick = "--quick" in argv
    against = argv[argv.index("--against") + 1] if "--against" in argv else None
    requests, rounds = (200, 3) if quick else (1_000, 5)
    with contextlib.ExitStack() as stack:
        cores: dict[str, dict[str, str]] = {"this commit": {}}
        if against:
            cores[f"at {against}"] = {"PYTHONPATH": stack.enter_context(package_at(against))}
        urls = {
            (core, name): stack.enter_context(serving(f"http_apps:{app}", **env))
            for core, env in cores.items()
            for name, app in SERVICES.items()
        }
        rows = [
            row for turns in (0, THREAD_TURNS) for row in measure(urls, turns, requests, rounds)
        ]
    print("## 15. CPU per request: bare, `cite` and the middleware\n")
    print(machine() + "\n")
    print(
        f"The demo service on the bare AG-UI SDK, scripted (no model latency), uvicorn on "
        f"127.0.0.1, {CLIENTS} concurrent clients, {requests} requests per service and "
        f"round, {rounds} rounds; the median over rounds of each server process's CPU "
        "per request:\n"
    )
    header = ["thread", "core", "bare (ms)", "cite (ms)", "middleware (ms)", "cite adds (ms)"]
    header += ["middleware adds (ms)", "middleware / cite added", "requests", "wrong"]
    print(table(header, rows))


if __name__ == "__main__":
    main(sys.argv[1:])
