"""A scripted model's side of markers: the numbers it writes come from what it was shown.

A model writes `[n]` for the n-th source its thread showed it (a source shown again keeps
its number), or the marker a numbered tool showed beside it. `markers_shown` reads that
off the tool results of the thread the model was given, so a test model built on it
writes the markers its own thread gives: a run that numbers another thread (a discarded
branch, the client's order instead of the model's) shows as a citation of the wrong node.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from thread_turns import Lookup, after_run, new_thread_id, post

from support import Call, record, ref, run_input

A, B, C, D = record("a.md"), record("b.md"), record("c.md"), record("d.md")
NODES = {r["node"]["path"]: r for r in (A, B, C, D)}

#: Which Reader tool results the model numbers (the reference Reader's tools).
READER_TOOLS = {"moca_search", "moca_get_node"}


def markers_shown(results: Iterable[object]) -> dict[str, str]:
    """node path -> the marker the model reads for it, from the Reader tool results it was
    shown (their contents: values, JSON or Python repr text), in the order shown."""
    markers: dict[str, str] = {}
    for content in results:
        for marker, entry in _entries(_value(content)):
            path = entry.get("node", {}).get("path")
            if path and path not in markers:
                markers[path] = marker or f"[{len(markers) + 1}]"
    return markers


def answer(paths: Iterable[str], shown: Mapping[str, str]) -> str:
    """The answer citing `paths`, each by the marker the model was shown for it."""
    return "; ".join(f"{path} {shown[path]}" for path in paths) + "."


def _value(content: object) -> object:
    if not isinstance(content, str):
        return content
    try:
        return json.loads(content)
    except ValueError:
        return ast.literal_eval(content)


def _entries(value: object) -> list[tuple[str | None, dict[str, Any]]]:
    """(the marker shown beside it, or None) and each source of one tool result."""
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("results"), list):
        return [
            (item["marker"], item["result"]) if "marker" in item else (None, item)
            for item in value["results"]
            if isinstance(item, dict)
        ]
    return [(None, value)] if "node" in value else []


# -- the scenarios: each framework's test gives its app and a model built on `markers_shown`

#: A question's steps: a Call per model response, then the paths its answer cites.
Steps = dict[str, list[Call | tuple[str, ...]]]
#: Makes a framework's app whose model plays `steps` (read at each call, so a test may
#: change them between runs): (steps, numbered, **options).
Serve = Callable[..., Any]


def read(path: str, call_id: str) -> Call:
    """A model response calling `moca_get_node` for `path`."""
    return Call("moca_get_node", {"node_id": ref(NODES[path])}, call_id)


def get_node(node_id: str) -> dict[str, Any]:
    """The Reader's `moca_get_node` over A, B, C, D."""
    return {ref(r): r for r in NODES.values()}.get(node_id) or {"error": f"no node {node_id}"}


def two_turns() -> Steps:
    """Turn 1 reads A and B, turn 2 reads C; each cites what it read and an earlier source."""
    return {
        "q1": [read("a.md", "t1-a"), read("b.md", "t1-b"), ("a.md", "b.md")],
        "q2": [read("c.md", "t2-c"), ("c.md", "a.md")],
    }


async def _asked(app: Any, thread_id: str, *questions: str) -> list[dict[str, Any]]:
    """The client's thread after asking `questions`, one run each (the whole thread sent)."""
    thread: list[dict[str, Any]] = []
    for n, question in enumerate(questions, start=1):
        body = run_input(question, f"run-{n}", thread_id=thread_id, history=thread)
        thread = after_run(body["messages"], await post(app, body))
    return thread


def _question_at(thread: list[dict[str, Any]], turn: int) -> int:
    return [i for i, m in enumerate(thread) if m["role"] == "user"][turn - 1]


async def regenerated(serve: Serve, *, numbered: bool, lookup: bool) -> list[dict[str, Any]]:
    """The client drops turn 2's answer and sends the thread again, up to its question; this
    time the model reads D. The regenerated run's stream."""
    steps = two_turns()
    app = serve(steps, numbered=numbered, **({"lookup": Lookup(A, B, C, D)} if lookup else {}))
    thread_id = new_thread_id()
    thread = await _asked(app, thread_id, "q1", "q2")
    steps["q2"] = [read("d.md", "t2-again-d"), ("d.md", "a.md", "b.md")]
    at = _question_at(thread, 2)
    body = run_input("q2", "run-again", thread_id=thread_id, history=thread[:at])
    body["messages"][-1]["id"] = thread[at]["id"]
    return await post(app, body)


async def reordered(serve: Serve, *, numbered: bool, lookup: bool) -> list[dict[str, Any]]:
    """The client sends turn 2 before turn 1, then a third question reading D: the model
    reads C, then A and B. The third run's stream."""
    steps = {**two_turns(), "q3": [read("d.md", "t3-d"), ("d.md", "c.md", "a.md", "b.md")]}
    app = serve(steps, numbered=numbered, **({"lookup": Lookup(A, B, C, D)} if lookup else {}))
    thread_id = new_thread_id()
    thread = await _asked(app, thread_id, "q1", "q2")
    second = _question_at(thread, 2)
    swapped = [*thread[second:], *thread[:second]]
    return await post(app, run_input("q3", "run-3", thread_id=thread_id, history=swapped))
