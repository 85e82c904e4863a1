"""Run the examples under `examples/` as a user does (a subprocess each), and compare what
they print with the demo's answer to the same question."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import httpx

from moca_agui.check import check_events
from moca_agui.demo.model import KNOWN_QUESTIONS
from moca_agui.demo.server import ask, build
from support import ROOT, citation_events, parse_sse, run_input

EXAMPLES = ROOT / "examples"
OFF_TOPIC = "What is the capital of France?"
#: Every question an example is run on: the demo's scripted ones and one it knows nothing of.
QUESTIONS = (*KNOWN_QUESTIONS, OFF_TOPIC)
#: Each example and the path of its AG-UI endpoint.
ENDPOINTS = {"ag_ui": "/", "langgraph": "/", "llama_index": "/run", "pydantic_ai": "/"}
_BANNER = re.compile(r"AG-UI endpoint: POST (http://127\.0\.0\.1:\d+)(/\S*)\n")

Cited = list[list[tuple[str | None, str]]]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True, text=True, timeout=300, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def example_events(name: str, question: str) -> list[dict[str, Any]]:
    """`python examples/<name>/app.py --question Q`: its stdout, one wire event a line."""
    done = run(str(EXAMPLES / name / "app.py"), "--question", question)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def cited(events: list[dict[str, Any]]) -> Cited:
    """(marker, node ref) of each citation of each `moca.citations` event."""
    return [
        [(c.get("marker"), c["record"]["node"]["ref"]) for c in value["citations"]]
        for value in citation_events(events)
    ]


@cache
def demo_cited(question: str) -> Cited:
    """What `moca-agui demo --question` cites for `question` (the bare SDK demo)."""

    async def stream() -> list[dict[str, Any]]:
        return [json.loads(event) async for event in ask(build("ag-ui"), question)]

    return cited(asyncio.run(stream()))


def assert_answers_like_the_demo(name: str, question: str) -> None:
    """The example's stream is wire JSON that passes the checker and cites as the demo does."""
    events = example_events(name, question)
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED"
    errors = [str(f) for f in check_events(events) if f.level == "error"]
    assert errors == []
    assert cited(events) == demo_cited(question)


@contextmanager
def serving(name: str, *args: str) -> Iterator[str]:
    """`python examples/<name>/app.py --port 0`: yields its endpoint's URL, from its banner."""
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLES / name / "app.py"), "--port", "0", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        banner = _BANNER.fullmatch(process.stderr.readline())
        assert banner is not None, process.stderr.read()
        base, path = banner.groups()
        assert path == ENDPOINTS[name]
        yield base + path
    finally:
        process.terminate()
        process.wait(timeout=30)


def post_question(url: str, question: str) -> list[dict[str, Any]]:
    """POST one question to a served endpoint; the events of its SSE answer."""
    answer = httpx.post(
        url, json=run_input(question), headers={"Accept": "text/event-stream"}, timeout=120
    )
    answer.raise_for_status()
    return parse_sse(answer.text)


def assert_serves_where_it_says(name: str) -> None:
    """Served, the example answers at the endpoint its first lines and its docs page name."""
    path = ENDPOINTS[name]
    said = re.compile(
        rf"^ *python examples/{name}/app\.py +# AG-UI endpoint: POST "
        rf"http://127\.0\.0\.1:8000{re.escape(path)}$",
        re.MULTILINE,
    )
    source = (EXAMPLES / name / "app.py").read_text(encoding="utf-8")
    first_lines = "\n".join(source.splitlines()[:4])
    assert said.search(first_lines), first_lines
    page = ROOT / "docs" / "frameworks" / f"{name.replace('_', '-')}.md"
    assert said.search(page.read_text(encoding="utf-8")), f"not in {page.name}"
    with serving(name) as url:
        events = post_question(url, KNOWN_QUESTIONS[1])
    assert cited(events) == demo_cited(KNOWN_QUESTIONS[1])
