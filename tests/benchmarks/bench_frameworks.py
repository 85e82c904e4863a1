"""Benchmark 7: each framework's demo service over HTTP, with and without citations.

For every `--framework` of `moca-agui demo` installed here, the demo service runs twice,
each in its own uvicorn process on 127.0.0.1: as `moca-agui demo` serves it, and the same
service less the one line that turns citations on (framework_apps.py). One client posts
the demo question to each in turn, alternating request by request, and reads each stream
to its last event. Prints the median time to the last event of each, their ratio, and the
milliseconds citations add per request (and, for the bare SDK, per record sent), and
the same from the CPU time each server process spent on the requests: load elsewhere on
the machine moves the wall-clock figures far more than the CPU ones.

    python tests/benchmarks/bench_frameworks.py [--quick] [--framework NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
from pathlib import Path

import httpx
from workload import machine, one_request, serving, table

from moca_agui.demo.server import FRAMEWORKS, FrameworkUnavailable, load_framework

HERE = Path(__file__).resolve().parent


def records_sent(body: bytes) -> int:
    """How many citation records the stream's `moca.citations` events carry."""
    total = 0
    for line in body.decode().splitlines():
        if line.startswith("data:") and '"moca.citations"' in line:
            total += len(json.loads(line[5:])["value"]["citations"])
    return total


async def alternate(
    urls: dict[str, str], requests: int
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """`requests` requests to each service, alternating, one at a time: the time each
    took, and the CPU seconds each service spent per request."""
    times: dict[str, list[float]] = {name: [] for name in urls}
    async with httpx.AsyncClient(timeout=60) as client:
        for url in urls.values():  # warm: connections, first import paths
            await one_request(client, url)
        started = {name: await cpu_seconds(client, url) for name, url in urls.items()}
        for number in range(requests):
            order = list(urls) if number % 2 == 0 else list(urls)[::-1]
            for name in order:
                latency, body = await one_request(client, urls[name])
                assert (records_sent(body) > 0) == (name == "cited"), name
                times[name].append(latency)
        spent = {
            name: (await cpu_seconds(client, url) - started[name]) / requests
            for name, url in urls.items()
        }
    return times, spent


async def cpu_seconds(client: httpx.AsyncClient, url: str) -> float:
    return float((await client.get(url + "cpu-seconds")).text)


def measure(framework: str, requests: int) -> list[str]:
    app, env = "framework_apps:app", {"MOCA_BENCH_FRAMEWORK": framework}
    with (
        serving(app, **env, MOCA_BENCH_CITED="0") as bare,
        serving(app, **env, MOCA_BENCH_CITED="1") as cited,
    ):
        times, cpu = asyncio.run(alternate({"bare": bare, "cited": cited}, requests))
        body = asyncio.run(_body(cited))
    bare_ms = statistics.median(times["bare"]) * 1e3
    cited_ms = statistics.median(times["cited"]) * 1e3
    added = cited_ms - bare_ms
    records = records_sent(body)
    return [
        framework,
        f"{bare_ms:.2f}",
        f"{cited_ms:.2f}",
        f"**{cited_ms / bare_ms:.3f}**",
        f"{added:+.2f}",
        f"{added / records * 1e3:+.0f}" if records else "",
        f"{cpu['bare'] * 1e3:.2f}",
        f"{cpu['cited'] * 1e3:.2f}",
        f"**{cpu['cited'] / cpu['bare']:.3f}**",
        f"{(cpu['cited'] - cpu['bare']) * 1e3:+.2f}",
    ]


async def _body(url: str) -> bytes:
    async with httpx.AsyncClient(timeout=60) as client:
        return (await one_request(client, url))[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--framework", action="append", choices=list(FRAMEWORKS))
    args = parser.parse_args()
    requests = 30 if args.quick else 200
    rows, missing = [], []
    for framework in args.framework or FRAMEWORKS:
        try:
            load_framework(framework)
        except FrameworkUnavailable as exc:
            missing.append(f"{framework} ({exc})")
            continue
        rows.append(measure(framework, requests))
    print("## 7. Each framework's demo service over HTTP, with and without citations\n")
    print(machine() + "\n")
    print(
        f"One client, {requests} requests to each service, alternating; the demo question; "
        "medians of the time to the last event, and each server's CPU time per request:\n"
    )
    header = ["framework", "bare ms", "cited ms", "ratio", "added ms", "added µs per record"]
    header += ["bare CPU ms", "cited CPU ms", "CPU ratio", "added CPU ms"]
    print(table(header, rows))
    if missing:
        print("\nNot installed here: " + "; ".join(missing))


if __name__ == "__main__":
    main()
