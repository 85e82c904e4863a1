"""Benchmark 13: showing one source whose record holds many ISO dates, on each surface.

A record's dates are made readable where they stand (`withReadableDates`), so a record of
20,000 dates (220 KB in `trust.supersededBy`) costs what its size costs: this prints the
time to show one such source with 0, 10,000, 20,000 and 40,000 dates, and the ratios
20k / 10k and 40k / 20k (about 2 when the rendering is linear), on the demo page in
headless Chromium (the page's own `handleEvent`, then a forced layout), in
`<MocaSources>` rendered by React in node (`renderToStaticMarkup`), and in the Python
client's HTML (`render_record`).

    python tests/benchmarks/bench_render.py [--quick]

Needs chromium and chromium-driver, and js/node_modules (`cd js && npm ci`).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import gc
import itertools
import json
import shutil
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from selenium import webdriver
from workload import machine, table

from moca_agui.client import render_record
from moca_agui.demo.reader import DemoReader, load_records
from moca_agui.demo.server import demo_app, load_framework

ROOT = Path(__file__).resolve().parents[2]
SIZES = (0, 10_000, 20_000, 40_000)

#: The demo page: one answer and its event, handled by the page's own code, then laid out.
PAGE_SCRIPT = """
const done = arguments[arguments.length - 1];
const [record, id] = arguments;
import('/app.js').then(({ handleEvent }) => {
  const start = performance.now();
  handleEvent({type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant'});
  handleEvent({type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: 'See [1].'});
  handleEvent({type: 'TEXT_MESSAGE_END', messageId: id});
  handleEvent({type: 'CUSTOM', name: 'moca.citations', value: {version: 1, messageId: id,
    citations: [{marker: '[1]', record}]}});
  document.body.offsetHeight;  // the layout of what was added
  done(performance.now() - start);
});
"""

#: `<MocaSources>` in node: milliseconds to render each record given on stdin, in turn.
REACT_SCRIPT = """
import { createElement as h } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MocaSources } from "moca-agui/react";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const records = JSON.parse(input);
const render = (record) => {
  const value = { computedAt: null, citations: [{ marker: "[1]", record }] };
  const start = performance.now();
  renderToStaticMarkup(h(MocaSources, { value, locale: "en-GB", timeZone: "UTC" }));
  return performance.now() - start;
};
records.forEach(render);  // warm up: the first renders compile the code paths
const times = records.map(render);
process.stdout.write(JSON.stringify(times));
"""


def record_with_dates(count: int) -> dict[str, Any]:
    """A demo record whose `trust.supersededBy` holds `count` ISO dates."""
    record = copy.deepcopy(load_records()[1][0])
    if count:
        record["trust"]["superseded"] = True
        record["trust"]["supersededBy"] = [
            f"2026-01-{n % 28 + 1:02}T10:00:00Z" for n in range(count)
        ]
    return record


@contextmanager
def demo_page() -> Iterator[str]:
    """The bare-SDK demo on 127.0.0.1, serving the page."""
    app = demo_app(load_framework("ag-ui")(DemoReader(load_records()[1])))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def chromium() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1400,1800", "--disable-gpu"):  # fmt: skip
        options.add_argument(argument)
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_script_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


def on_page(browser: webdriver.Chrome, url: str) -> Callable[[dict[str, Any]], float]:
    def show(record: dict[str, Any]) -> float:
        browser.get(url)  # a fresh page each time: nothing shown before
        return float(browser.execute_async_script(PAGE_SCRIPT, record, "m1")) / 1000

    return show


def in_react(records: list[dict[str, Any]]) -> list[float]:
    shown = subprocess.run(
        ["node", "--input-type=module", "-e", REACT_SCRIPT],
        input=json.dumps(records), capture_output=True, text=True, check=True,
        cwd=ROOT / "js", timeout=600,
    ).stdout  # fmt: skip
    return [ms / 1000 for ms in json.loads(shown)]


def in_python(record: dict[str, Any]) -> float:
    """The fastest of five renders with the collector off, as `timeit` measures: one takes
    a few milliseconds, and a collection of this process's heap (the other surfaces'
    records) landing in it costs more than the render."""
    times = []
    gc.disable()
    try:
        for _ in range(5):
            start = time.perf_counter()
            render_record(record, marker="[1]")
            times.append(time.perf_counter() - start)
    finally:
        gc.enable()
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    repeats = 3 if parser.parse_args().quick else 7
    print("## 13. A source whose record holds many dates\n")
    print(machine() + "\n")
    records = {size: record_with_dates(size) for size in SIZES}
    times: dict[str, dict[int, list[float]]] = {
        surface: {size: [] for size in SIZES}
        for surface in ("demo page (Chromium)", "<MocaSources> (React, node)", "Python client")
    }
    # Each surface on its own: Chromium keeps painting after a page's script returns, and
    # on two cores that would slow whatever runs beside it.
    for _ in range(repeats):  # interleaved sizes
        for size in SIZES:
            times["Python client"][size].append(in_python(records[size]))
    for _ in range(repeats):
        react = in_react([records[size] for size in SIZES])
        for size, seconds in zip(SIZES, react, strict=True):
            times["<MocaSources> (React, node)"][size].append(seconds)
    with demo_page() as url, chromium() as browser:
        show = on_page(browser, url)
        for _ in range(repeats):
            for size in SIZES:
                times["demo page (Chromium)"][size].append(show(records[size]))
    rows = []
    for surface, by_size in times.items():
        medians = [statistics.median(by_size[size]) for size in SIZES]
        ratios = [f"{b / a:.2f}x" if a else "-" for a, b in itertools.pairwise(medians[1:])]
        rows.append([surface, *(f"{m * 1000:.1f}" for m in medians), *ratios])
    header = ["surface", *(f"{size:,} dates (ms)" for size in SIZES), "20k / 10k", "40k / 20k"]
    print(table(header, rows))
    print(f"\nMedians of {repeats} runs each, sizes interleaved; a fresh page for each run.")


if __name__ == "__main__":
    main()
