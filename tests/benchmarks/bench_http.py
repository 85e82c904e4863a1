"""Benchmark 2: end to end over HTTP, the demo service with and without citations.

The services (http_apps.py: without citations, with a pass-through hop in place of
`cite`, which is the floor, and with citations) run each in its own uvicorn process on
127.0.0.1, side by side; this process is the client: N concurrent clients post the demo
question and read each stream to its last event. The services are loaded in turn, in
rotating order, for several rounds. Prints requests per second and p50/p99 time to the
last event, and their ratios (with / without, and with / the floor).

    python tests/benchmarks/bench_http.py [--quick]
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
from http_apps import PACE
from workload import machine, one_request, serving, table

HERE = Path(__file__).resolve().parent
SERVICES = ("without_citations", "hopped", "with_citations")
PACED = ("paced_without_citations", "paced_hopped", "paced_with_citations")


async def load(url: str, clients: int, requests: int) -> tuple[float, list[float], bytes]:
    """`requests` requests by `clients` concurrent clients: wall time, latencies, a body."""
    latencies: list[float] = []
    bodies: list[bytes] = []
    queue = iter(range(requests))
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        await one_request(client, url)  # warm: connection, first import paths

        async def worker() -> None:
            for _ in queue:
                latency, body = await one_request(client, url)
                latencies.append(latency)
                bodies[:1] = [body]

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return time.perf_counter() - start, latencies, bodies[0]


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def measure(
    urls: dict[str, str], trio: Sequence[str], clients: int, requests: int, rounds: int
) -> list[list[str]]:
    """The row of the services (off, floor, on) under `clients` concurrent clients."""
    spent = dict.fromkeys(trio, 0.0)
    latencies: dict[str, list[float]] = {name: [] for name in trio}
    for round_number in range(rounds):
        turn = round_number % len(trio)
        for name in (*trio[turn:], *trio[:turn]):
            wall, times, body = asyncio.run(load(urls[name], clients, requests))
            assert (b'"name":"moca.citations"' in body) == name.endswith("with_citations")
            spent[name] += wall
            latencies[name].extend(times)
    figures = {
        name: (
            len(latencies[name]) / spent[name],
            statistics.median(latencies[name]),
            percentile(latencies[name], 0.99),
        )
        for name in trio
    }
    off, floor, on = (figures[n] for n in trio)
    (rps_off, p50_off, p99_off), (rps_on, p50_on, p99_on) = off, on
    return [
        [
            str(clients),
            f"{rps_off:.0f}",
            f"{rps_on:.0f}",
            f"**{rps_off / rps_on:.3f}**",
            f"{p50_off * 1e3:.1f}",
            f"{floor[1] * 1e3:.1f}",
            f"{p50_on * 1e3:.1f}",
            f"**{p50_on / p50_off:.3f}**",
            f"**{p50_on / floor[1]:.3f}**",
            f"{p99_off * 1e3:.1f}",
            f"{p99_on * 1e3:.1f}",
            f"**{p99_on / p99_off:.3f}**",
        ]
    ]


def main(argv: Sequence[str]) -> None:
    quick = "--quick" in argv
    rounds = 2 if quick else 6
    plan = [(1, 20), (8, 60)] if quick else [(1, 60), (8, 200), (32, 400)]
    paced_plan = [(8, 16)] if quick else [(1, 10), (8, 40), (32, 96)]
    with contextlib.ExitStack() as stack:
        names = (*SERVICES, *PACED)
        urls = {name: stack.enter_context(serving(f"http_apps:{name}")) for name in names}
        rows = [row for c, n in plan for row in measure(urls, SERVICES, c, n, rounds)]
        paced = [row for c, n in paced_plan for row in measure(urls, PACED, c, n, 2)]
    print("## 2. End to end over HTTP\n")
    print(machine() + "\n")
    header = ["clients", "req/s off", "req/s on", "req/s ratio (off/on)"]
    header += ["p50 ms off", "p50 ms floor", "p50 ms on", "p50 ratio", "p50 to floor"]
    header += ["p99 ms off", "p99 ms on", "p99 ratio"]
    print(
        "The demo service on the bare AG-UI SDK (`moca_agui.demo.frameworks.ag_ui`), "
        f"uvicorn on 127.0.0.1, the demo question, {rounds} rounds per row:\n"
    )
    print(table(header, rows))
    print(
        f"\nThe same, the scripted model taking {PACE * 1000:.0f} ms per text delta "
        "(http_apps.py, `paced_`), 2 rounds per row:\n"
    )
    print(table(header, paced))


if __name__ == "__main__":
    main(sys.argv[1:])
