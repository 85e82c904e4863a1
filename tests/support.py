"""What the tests share: valid records, wire form, and the checks every stream must pass."""

from __future__ import annotations

import asyncio
import copy
import gc
import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import regress
from ag_ui.core import AssistantMessage, BaseEvent
from ag_ui_validate.pytest_plugin import assert_valid_agui
from contract import EXAMPLE_EVENT, official_record_schema, required_record_schema
from contract import ROOT as ROOT
from pydantic import BaseModel
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import moca_agui
from moca_agui.adapter import as_record

PACKAGE_ID = "https://example.com/moca/test-kb"
RECORD_SCHEMA_ID = "https://w3id.org/moca/schemas/v1/citation-record.schema.json"


def example_record() -> dict[str, Any]:
    """The support-kb record for refund-window.md (a fresh copy each call)."""
    event = json.loads(EXAMPLE_EVENT.read_text(encoding="utf-8"))
    return copy.deepcopy(event["value"]["citations"][0]["record"])


def record(
    path: str = "a.md",
    *,
    package_id: str = PACKAGE_ID,
    version: str = "1.0.0",
    text: str | None = None,
    **trust: Any,
) -> dict[str, Any]:
    """A valid citation record for node `path` of a test package."""
    body = text if text is not None else f"Text of {path}."
    result: dict[str, Any] = {
        "package": {
            "id": package_id,
            "version": version,
            "digest": "sha256:" + hashlib.sha256(f"{package_id}@{version}".encode()).hexdigest(),
            "signed": False,
        },
        "node": {
            "id": f"{package_id}#{path}",
            "path": path,
            "type": "Note",
            "ref": f"{package_id}@{version}#{path}",
            "title": f"Title of {path}",
            "digest": "sha256:" + hashlib.sha256(body.encode()).hexdigest(),
        },
        "text": body,
        "trust": {
            "status": "stable",
            "declaredVerified": [],
            "attestedReviews": [],
            "stale": False,
            "inForce": True,
            "superseded": False,
            "contested": False,
            **trust,
        },
    }
    return result


def ref(rec: dict[str, Any]) -> str:
    return str(rec["node"]["ref"])


def compact(rec: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """The reference Reader's compact search result for a record (the fields of
    tests/data/reference-reader/search_compact.json, `text` aside), changed by `fields`."""
    trust = rec["trust"]
    return {
        "ref": rec["node"]["ref"],
        "title": rec["node"].get("title"),
        "score": 1.0,
        "status": trust["status"],
        "stale": trust["stale"],
        "inForce": trust["inForce"],
        "superseded": trust["superseded"],
        "signed": rec["package"]["signed"],
        "evidenceMatched": None,
        **fields,
    }


def earlier_turn(n: int, tool: str, result: object, answer: str) -> list[dict[str, Any]]:
    """One earlier turn as a client sends it back: the question, the assistant's call, the
    tool's result (the content the model was shown), the answer."""
    content = result if isinstance(result, str) else json.dumps(result)
    call = {"id": f"c{n}", "type": "function", "function": {"name": tool, "arguments": "{}"}}
    return [
        {"id": f"u{n}", "role": "user", "content": "a question"},
        {"id": f"a{n}", "role": "assistant", "toolCalls": [call]},
        {"id": f"t{n}", "role": "tool", "toolCallId": f"c{n}", "content": content},
        {"id": f"m{n}", "role": "assistant", "content": answer},
    ]


def run_input(
    question: str = "What do your sources say?",
    run_id: str = "run-1",
    *,
    thread_id: str = "thread-1",
    history: Sequence[object] = (),
) -> dict[str, Any]:
    """A RunAgentInput as a client POSTs it (camelCase): `history`, then the question."""
    messages = [
        m.model_dump(mode="json", by_alias=True, exclude_none=True) if isinstance(m, BaseModel)
        else m
        for m in history
    ]  # fmt: skip
    messages.append({"id": f"user-{run_id}", "role": "user", "content": question})
    return {
        "threadId": thread_id,
        "runId": run_id,
        "state": {},
        "messages": messages,
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }


def parse_sse(body: str) -> list[dict[str, Any]]:
    """The events of an SSE answer in which every event is one `data:` line, as every
    AG-UI emitter these tests serve writes it (anything else fails the test)."""
    frames = [frame for frame in body.replace("\r\n", "\n").split("\n\n") if frame.strip()]
    assert all(frame.startswith("data: ") and "\n" not in frame for frame in frames), frames
    return [json.loads(frame.removeprefix("data: ")) for frame in frames]


def wire(event: BaseEvent) -> dict[str, Any]:
    """An event as it goes over the wire (camelCase, no nulls), parsed back."""
    return json.loads(event.model_dump_json(by_alias=True, exclude_none=True))


async def collect(events: AsyncIterable[BaseEvent]) -> list[dict[str, Any]]:
    """The wire form of every event, each moca.citations value checked against both schemas."""
    stream = [wire(event) async for event in events]
    assert_valid_stream(stream, grammar=False)
    return stream


def citation_events(stream: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `value`s of the moca.citations events in a wire stream, in order."""
    return [
        e["value"] for e in stream if e["type"] == "CUSTOM" and e["name"] == moca_agui.EVENT_NAME
    ]


#: Whether this ag-ui-protocol's messages have `metadata` (1.x; 0.1.x has none, and a
#: snapshot then goes as it came).
MESSAGES_CARRY_METADATA = "metadata" in AssistantMessage.model_fields


def carried_by_snapshot(stream: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """{message id: value} of the citations the answers of the stream's last
    MESSAGES_SNAPSHOT carry on their metadata: what a client that keeps only messages has."""
    [*_, snapshot] = [e for e in stream if e["type"] == "MESSAGES_SNAPSHOT"]
    return {
        m["id"]: m["metadata"][moca_agui.METADATA_KEY]
        for m in snapshot["messages"]
        if moca_agui.METADATA_KEY in (m.get("metadata") or {})
    }


def without_citations(stream: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream without what citing adds: the moca.citations events, and the citations
    its snapshots' answers carry on their metadata (an emptied metadata goes too)."""
    return [
        _uncarried(e)
        for e in stream
        if not (e["type"] == "CUSTOM" and e["name"] == moca_agui.EVENT_NAME)
    ]


def _uncarried(event: dict[str, Any]) -> dict[str, Any]:
    if event["type"] != "MESSAGES_SNAPSHOT":
        return event
    messages = []
    for message in event["messages"]:
        metadata = message.get("metadata")
        if isinstance(metadata, dict) and moca_agui.METADATA_KEY in metadata:
            rest = {k: v for k, v in metadata.items() if k != moca_agui.METADATA_KEY}
            message = {k: v for k, v in message.items() if k != "metadata"}
            if rest:
                message["metadata"] = rest
        messages.append(message)
    return {**event, "messages": messages}


def types(stream: Iterable[dict[str, Any]]) -> list[str]:
    """Event types, with `CUSTOM:<name>` for custom events."""
    return [e["type"] + (":" + e["name"] if e["type"] == "CUSTOM" else "") for e in stream]


def answer_ids(stream: list[dict[str, Any]]) -> list[str]:
    """Ids of the assistant messages with text, in the order they started."""
    with_text = {e["messageId"] for e in stream if e["type"] == "TEXT_MESSAGE_CONTENT"}
    return [
        e["messageId"]
        for e in stream
        if e["type"] == "TEXT_MESSAGE_START" and e["messageId"] in with_text
    ]


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    # JSON Schema patterns are ECMA-262 regular expressions (2020-12 validation 6.3.3).
    # jsonschema uses Python's re, whose `$` and `\s` differ; regress is ECMA-262.
    if validator.is_type(instance, "string") and regress.Regex(pattern).find(instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


_EcmaValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, {"pattern": _ecma_pattern}
)


def record_validator() -> Any:
    """The official citation-record schema, with ECMA-262 patterns: a contract test, skipped
    without the spec (see contract.py)."""
    required_record_schema()
    return _official_validator()


@cache
def _official_validator() -> Any:
    schema = _official_schema()
    return None if schema is None else _EcmaValidator(schema)


def _official_schema() -> dict[str, Any] | None:
    """The official schema; None without the spec, outside CI (which requires it)."""
    return required_record_schema() if os.environ.get("CI") else official_record_schema()


@cache
def event_validator() -> Any:
    """The project's schema for the event's value, resolving records to the official one
    (to any object without the spec, outside CI: `assert_valid_record` then holds them to
    the core; with `CI` set the official schema is required)."""
    official = _official_schema() or {"type": "object"}
    resource = Resource.from_contents(official, default_specification=DRAFT202012)
    registry = Registry().with_resource(RECORD_SCHEMA_ID, resource)
    ours = json.loads(files("moca_agui").joinpath("citations-event.schema.json").read_text())
    return _EcmaValidator(ours, registry=registry)


def assert_valid_record(rec: Any) -> None:
    """`rec` is a valid citation record: by the official schema, or without the spec (not
    in CI) by the core's own record rules (which the contract tests hold equal to it)."""
    official = _official_validator()
    if official is None:
        as_record(rec)
    else:
        official.validate(rec)


def assert_valid_stream(stream: list[dict[str, Any]], *, grammar: bool = True) -> None:
    """Every check a test stream must pass: AG-UI grammar (ag-ui-validate), the event's
    value against the project's schema, each record against the official schema.

    `grammar=False` only for an input stream that is itself outside the grammar (e.g. a
    message id reopened after its END, as LangGraph does); the tests say why.
    """
    if grammar:
        assert_valid_agui(stream)
    for value in citation_events(stream):
        event_validator().validate(value)
        for citation in value["citations"]:
            assert_valid_record(citation["record"])


def hostile_record() -> dict[str, Any]:
    """A valid record whose fields carry markup, scripts, remote images and `javascript:`
    links: a client must show all of it as inert text (only the https link may be a link)."""
    rec = record(
        "notice-board.md",
        package_id="https://example.org/moca/community-notices",
        text=(
            'Notice board. <script>window.__pwned = "text"</script>'
            '<img src="https://attacker.example/pixel.png" onerror="window.__pwned = \'img\'">'
            ' [click me](javascript:window.__pwned="md") <a href="javascript:alert(1)">here</a>'
        ),
    )
    rec["node"]["title"] = (
        '<script>window.__pwned = "title"</script>Notice board'
        '<img src="https://attacker.example/title.png" onerror="window.__pwned = 1">'
    )
    rec["node"]["description"] = '<a href="javascript:window.__pwned=2">Read the notice board</a>'
    rec["evidence"] = [
        {
            "source": {"id": "js", "title": "<b>Board</b> rules", "url": "javascript:alert(1)"},
            "selector": {"type": "TextQuoteSelector", "exact": "<script>alert(1)</script>"},
            "matched": False,
        },
        {"source": {"id": "web", "title": "Notices", "resource": "https://example.org/notices"}},
        {"source": {"id": "data", "resource": "data:text/html,<script>alert(1)</script>"}},
        {"source": {"id": "upper", "resource": " JAVASCRIPT:alert(1)"}},
    ]
    return rec


def copied_answer(shown: Iterable[object]) -> str:
    """What a model that copies the numbers it was shown writes, having read these
    numbered results (`moca_agui.numbered`) in this order: each source's path beside the
    marker shown with it."""
    parts = []
    for text in shown:
        view = json.loads(text) if isinstance(text, str) else text
        for item in view["results"]:
            result = item["result"]
            path = result["node"]["path"] if "node" in result else result["ref"].split("#")[-1]
            parts.append(f"{path} {item['marker']}")
    return "Sources: " + "; ".join(parts) + "."


def cited_as_shown(answer: str, *records: dict[str, Any]) -> list[dict[str, Any]]:
    """The event's entries for a `copied_answer`: each record with the marker written
    beside its path, in order of first mention."""
    by_path = {rec["node"]["path"]: rec for rec in records}
    pairs = dict.fromkeys(re.findall(r"(\S+\.md) (\[\d+\])", answer))
    assert pairs, answer
    return [{"marker": marker, "record": by_path[path]} for path, marker in pairs]


MOCA_AGUI = str(Path(sys.executable).with_name("moca-agui"))
#: Where the demo's handbook nodes live (`HANDBOOK + "hive-registration.md"` is a ref).
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"


def demo_printed(framework: str, question: str) -> list[dict[str, Any]]:
    """The events `moca-agui demo --framework F --question Q` prints; it must exit 0."""
    done = subprocess.run(
        [MOCA_AGUI, "demo", "--framework", framework, "--question", question],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def python(code: str) -> subprocess.CompletedProcess[str]:
    """`code` (dedented) run by a fresh interpreter of this environment."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def import_error(module: str, *, missing: str) -> subprocess.CompletedProcess[str]:
    """`import module` in a fresh interpreter in which no module whose name starts with
    `missing` can be imported: it prints the ImportError."""
    return python(
        f"""
        import sys
        class Missing:
            def find_spec(self, name, path=None, target=None):
                if name.startswith({missing!r}):
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        sys.meta_path.insert(0, Missing())
        try:
            import {module}
        except ImportError as exc:
            print(exc)
        """
    )


def other_tasks(baseline: set[asyncio.Task[Any]]) -> set[asyncio.Task[Any]]:
    """The tasks still running that were not running at `baseline`."""
    return {t for t in asyncio.all_tasks() if t not in baseline and not t.done()}


async def settled(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Wait (collecting garbage) until `condition` holds; False if it never does."""
    for _ in range(int(seconds / 0.01)):
        gc.collect()
        if condition():
            return True
        await asyncio.sleep(0.01)
    return condition()


@dataclass(frozen=True)
class Call:
    """A scripted model's step: call tool `name` with `args` (each framework's test model
    turns it into the framework's own tool call)."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str = "call-1"


class Reader:
    """In-process tools named and shaped like the reference Reader's, returning Python
    values (each framework's tests wrap `tools` as that framework wants)."""

    def __init__(self, *records: dict[str, Any]) -> None:
        self.records = {ref(rec): rec for rec in records}

    def moca_search(self, query: str, detail: str = "full") -> dict[str, Any]:
        """Search the loaded packages; a node matches when its path is in the query."""
        hits = [rec for rec in self.records.values() if rec["node"]["path"] in query]
        results = hits if detail == "full" else [compact(rec) for rec in hits]
        return {"query": query, "results": results}

    def moca_get_node(self, node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref."""
        return self.records.get(node_id) or {"error": f"no node {node_id}"}

    def get(self, node_ref: str) -> dict[str, Any] | None:
        """The in-process lookup: ref -> record."""
        return self.records.get(node_ref)

    @property
    def tools(self) -> list[Callable[..., Any]]:
        return [self.moca_search, self.moca_get_node]


def markers_left_out(caplog: Any) -> list[str]:
    """The markers the run left out for want of the model's order, as logged."""
    said = [r.getMessage() for r in caplog.records if "left out the marker" in r.getMessage()]
    assert all("moca_agui.numbered" in line for line in said)  # the line names the fix
    return [line.split(":", 2)[1].split()[-1] for line in said]
