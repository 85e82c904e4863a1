"""`moca-agui check SOURCE`: check an AG-UI stream against the service rules of
MOCA citations over AG-UI 0.6.0, as far as the stream shows them.

SOURCE is a file of JSON lines (one wire event per line) or an SSE capture, `-` for
stdin, or an http(s) URL: the checker POSTs a RunAgentInput with one user message and
reads the SSE answer. One line per finding names the event (0-based index in the stream),
the spec section and rule, and what is wrong. Exit 0: no errors (warnings allowed);
1: errors; 2: the source cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ._extract import CompactResult, reader_items
from ._options import DEFAULT_READER_TOOLS
from ._references import find_markers, find_refs
from .client import ClientCitation, read_value, wire_event

__all__ = [
    "Finding",
    "SourceError",
    "add_arguments",
    "check_events",
    "parse_stream",
    "read_source",
    "run",
]

Level = Literal["error", "warning"]
_EVENT_NAME = "moca.citations"
_TEXT = ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK")
#: Fields of the reference Reader's compact record that a citation record must agree with.
_COMPACT_FIELDS = {
    "title": ("node", "title"),
    "status": ("trust", "status"),
    "stale": ("trust", "stale"),
    "inForce": ("trust", "inForce"),
    "superseded": ("trust", "superseded"),
    "signed": ("package", "signed"),
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the stream does that the spec does not allow (error) or advise (warning)."""

    level: Level
    section: str
    rule: str
    event: int
    message: str

    def __str__(self) -> str:
        return f"event {self.event}: {self.level}: {self.section} {self.rule}: {self.message}"


class SourceError(Exception):
    """The source cannot be read as an AG-UI event stream."""


# -- reading -------------------------------------------------------------------------------


def parse_stream(text: str) -> list[dict[str, Any]]:
    """The events of a JSON-lines file or an SSE capture (`data:` lines); at least one."""
    lines = text.splitlines()
    if any(line.startswith("data:") for line in lines):
        chunks: list[str] = []
        data: list[str] = []
        for line in [*lines, ""]:
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif not line and data:
                chunks.append("\n".join(data))
                data = []
    else:
        chunks = [line for line in lines if line.strip()]
    events = []
    for number, chunk in enumerate(chunks):
        try:
            event = json.loads(chunk)
        except ValueError as exc:
            raise SourceError(f"event {number} is not JSON: {exc}") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise SourceError(f"event {number} is not an AG-UI event (an object with a type)")
        events.append(event)
    if not events:  # an empty answer or file: nothing was checked, so nothing passed
        raise SourceError("cannot read the source: no events")
    return events


def read_source(source: str, *, message: str, timeout: float) -> list[dict[str, Any]]:
    """The events of a file, `-` (stdin) or an http(s) URL; raises SourceError."""
    if source.startswith(("http://", "https://")):
        return parse_stream(_post(source, message, timeout))
    try:
        if source == "-":
            return parse_stream(sys.stdin.read())
        with open(source, encoding="utf-8") as file:
            return parse_stream(file.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot read {source}: {exc}") from None


def _post(url: str, message: str, timeout: float) -> str:
    body = {
        "threadId": f"moca-agui-check-{uuid.uuid4().hex[:12]}",
        "runId": f"moca-agui-check-{uuid.uuid4().hex[:12]}",
        "state": {},
        "messages": [{"id": f"user-{uuid.uuid4().hex[:12]}", "role": "user", "content": message}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text: str = response.read().decode("utf-8")
            return text
    except (urllib.error.URLError, OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot read {url}: {exc}") from None


# -- checking ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Message:
    role: str
    text: str = ""
    last_text: int = -1  # index of its last text event
    ended: bool = False  # a TEXT_MESSAGE_END, chunks (ended by the next other event), a snapshot
    event: int | None = None  # index of its moca.citations event


@dataclass(slots=True)
class _Run:
    start: int
    finished: int | None = None
    errored: bool = False
    messages: dict[str, _Message] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)  # call id -> tool name
    answered: set[str] = field(default_factory=set)  # reader call ids with a result seen
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # ref -> records
    compacts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # ref -> compacts
    citations: list[tuple[int, object]] = field(default_factory=list)
    chunk_id: str | None = None


class _Checker:
    def __init__(self, reader_tools: frozenset[str]) -> None:
        self.reader_tools = reader_tools
        self.findings: list[Finding] = []
        self.runs: list[_Run] = []

    def add(self, level: Level, section: str, rule: str, event: int, message: str) -> None:
        self.findings.append(Finding(level, section, rule, event, message))

    # one pass over the stream
    def read(self, events: Sequence[Mapping[str, Any]]) -> None:
        run: _Run | None = None
        for index, event in enumerate(events):
            kind = event.get("type")
            if kind == "RUN_STARTED" or run is None:
                run = _Run(index)
                self.runs.append(run)
            if kind != "TEXT_MESSAGE_CHUNK":
                run.chunk_id = None
            if kind in _TEXT:
                self._text(run, index, event)
            elif kind in ("TOOL_CALL_START", "TOOL_CALL_CHUNK"):
                call_id, name = event.get("toolCallId"), event.get("toolCallName")
                if isinstance(call_id, str) and isinstance(name, str):
                    run.tools[call_id] = name
            elif kind == "TOOL_CALL_RESULT":
                self._result(run, event.get("toolCallId"), event.get("content"))
            elif kind == "MESSAGES_SNAPSHOT":
                self._snapshot(run, index, event.get("messages") or ())
            elif kind == "CUSTOM" and event.get("name") == _EVENT_NAME:
                run.citations.append((index, event.get("value")))
            elif kind == "RUN_FINISHED" and run.finished is None:
                run.finished = index
            elif kind == "RUN_ERROR":
                run.errored = True

    def _text(self, run: _Run, index: int, event: Mapping[str, Any]) -> None:
        message_id = event.get("messageId")
        if event["type"] == "TEXT_MESSAGE_CHUNK":
            message_id = message_id or run.chunk_id
            run.chunk_id = message_id
        if not isinstance(message_id, str):
            return
        role = event.get("role")
        message = run.messages.setdefault(message_id, _Message(str(role or "assistant")))
        message.last_text = index
        message.ended = message.ended or event["type"] in ("TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK")
        delta = event.get("delta")
        if isinstance(delta, str) and event["type"] != "TEXT_MESSAGE_START":
            message.text += delta

    def _snapshot(self, run: _Run, index: int, messages: Iterable[object]) -> None:
        """Tool results, and the assistant messages of a model that does not stream: their
        text arrives only here, so their event belongs after this snapshot."""
        for message in messages:
            if not isinstance(message, Mapping):
                continue
            message_id, content = message.get("id"), message.get("content")
            if message.get("role") == "tool":
                self._result(run, message.get("toolCallId"), content)
            elif (
                message.get("role") == "assistant"
                and isinstance(message_id, str)
                and isinstance(content, str)
                and content
                and message_id not in run.messages
            ):
                run.messages[message_id] = _Message("assistant", content, index, ended=True)

    def _result(self, run: _Run, call_id: object, content: object) -> None:
        if not isinstance(call_id, str) or run.tools.get(call_id) not in self.reader_tools:
            return
        try:
            items = reader_items(content)
            parsed = json.loads(content) if isinstance(content, str) else content
        except ValueError:
            return  # a result this checker cannot read: the nodes it held stay unknown
        run.answered.add(call_id)
        for item in items:
            if isinstance(item, CompactResult):
                continue
            ref = item.get("node", {}).get("ref")
            if isinstance(ref, str):
                run.records.setdefault(ref, []).append(item)
        for compact in _compacts(parsed):
            run.compacts.setdefault(compact["ref"], []).append(compact)

    # the rules, once the stream is read
    def judge(self) -> None:
        for run in self.runs:
            for index, value in run.citations:
                self._event(run, index, value)
        self._missing_events()

    def _event(self, run: _Run, index: int, value: object) -> None:
        read, problems = read_value(value)
        for problem in problems:
            where = f"citations[{problem.citation}]: " if problem.citation is not None else ""
            self.add("error", problem.section, problem.rule, index, where + problem.message)
        if read is None:
            return
        message = run.messages.get(read.message_id)
        if message is None or message.role != "assistant":
            self.add(
                "error", "§2", "messageId", index,
                f"{read.message_id!r} is not an assistant message of this run",
            )  # fmt: skip
            return
        if message.event is not None:
            self.add(
                "error", "§2", "one event per message", index,
                f"a second event for message {read.message_id!r} (the first is event "
                f"{message.event})",
            )  # fmt: skip
            return
        message.event = index
        self._placement(run, index, read.message_id, message)
        self._sources(run, index, read.citations)
        self._order(index, message.text, read.citations)

    def _placement(self, run: _Run, index: int, message_id: str, message: _Message) -> None:
        if index < message.last_text:
            self.add(
                "error", "§3", "placement", index,
                f"sent before the end of message {message_id!r} (its text goes on at event "
                f"{message.last_text})",
            )  # fmt: skip
        elif not message.ended:
            self.add(
                "error", "§3", "placement", index,
                f"message {message_id!r} has no TEXT_MESSAGE_END before this event",
            )  # fmt: skip
        if run.finished is None or run.finished < index:
            end = "the run has no RUN_FINISHED" if run.finished is None else (
                f"RUN_FINISHED is event {run.finished}"
            )  # fmt: skip
            self.add("error", "§3", "placement", index, f"sent after the run's end: {end}")

    def _sources(self, run: _Run, index: int, citations: Sequence[ClientCitation]) -> None:
        readers = {call for call, name in run.tools.items() if name in self.reader_tools}
        unseen = readers - run.answered
        seen_spans: set[tuple[str, tuple[int, int] | None]] = set()
        for position, citation in enumerate(citations):
            ref, where = citation.ref, f"citations[{position}] ({citation.ref})"
            key = (ref, citation.span)
            if key in seen_spans:
                self.add("error", "§3", "one entry per node and span", index, f"{where} repeats")
            seen_spans.add(key)
            returned = run.records.get(ref)
            if returned:
                if not any(_same(citation.record, original) for original in returned):
                    self.add(
                        "error", "§3", "unchanged", index,
                        f"{where} differs from the record the Reader returned "
                        "(only dropping text is allowed)",
                    )  # fmt: skip
            elif ref in run.compacts:
                for compact in run.compacts[ref]:
                    differs = _compact_differs(citation.record, compact)
                    if differs:
                        self.add(
                            "error", "§3", "unchanged", index,
                            f"{where}: {differs} differs from the Reader's compact result",
                        )  # fmt: skip
                        break
            elif unseen or not readers:
                why = "no Reader tool result" if not readers else "Reader results it cannot see"
                self.add(
                    "warning", "§3", "returned by the Reader", index,
                    f"{where}: cannot check it was returned in this run: the stream shows {why}",
                )  # fmt: skip
            else:
                self.add(
                    "error", "§3", "returned by the Reader", index,
                    f"{where} is not a node any Reader tool result of this run returned",
                )  # fmt: skip

    def _order(self, index: int, text: str, citations: Sequence[ClientCitation]) -> None:
        refs = {c.ref for c in citations}
        markers = {c.marker: c.ref for c in citations if c.marker}
        first: dict[str, int] = {}
        for mention in [*find_refs(text, refs), *find_markers(text, markers)]:
            first[mention.ref] = min(first.get(mention.ref, mention.start), mention.start)
        last_position, last = -1, ""
        for position, citation in enumerate(citations):
            where = f"citations[{position}] ({citation.ref})"
            start = first.get(citation.ref)
            if start is None:
                self.add(
                    "error", "§3", "cited by the answer", index,
                    f"{where}: the message's text mentions neither its ref nor its marker",
                )  # fmt: skip
                continue
            if start < last_position:
                self.add(
                    "error", "§3", "order of first mention", index,
                    f"{where} is first mentioned before {last}, which is listed ahead of it",
                )  # fmt: skip
            if start > last_position:
                last_position, last = start, where

    def _missing_events(self) -> None:
        any_event = any(run.citations for run in self.runs)
        if not any_event:
            self.add(
                "warning", "§3", "an event per message", 0,
                "the stream has no moca.citations event: not a MOCA service, or citations off",
            )  # fmt: skip
            return
        for run in self.runs:
            if run.errored:
                continue
            for message_id, message in run.messages.items():
                if message.role == "assistant" and message.text.strip() and message.event is None:
                    self.add(
                        "warning", "§3", "an event per message", max(message.last_text, 0),
                        f"no moca.citations event for message {message_id!r}; send one with an "
                        "empty list when nothing resolves",
                    )  # fmt: skip


def _same(cited: Mapping[str, Any], original: Mapping[str, Any]) -> bool:
    if "text" not in cited:
        original = {key: value for key, value in original.items() if key != "text"}
    return dict(cited) == dict(original)


def _compact_differs(record: Mapping[str, Any], compact: Mapping[str, Any]) -> str | None:
    for name, (part, key) in _COMPACT_FIELDS.items():
        if name in compact and record.get(part, {}).get(key) != compact[name]:
            return name
    if compact.get("contested", False) != record["trust"]["contested"]:
        return "contested"
    return None


def _compacts(value: object, depth: int = 0) -> Iterable[dict[str, Any]]:
    """The compact records of a `moca_search` or `moca_structure` result, also inside MCP
    text content (`{"content": [{"type": "text", "text": "<json>"}]}`)."""
    if depth > 4:
        return
    if isinstance(value, list):
        for part in value:
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                try:
                    yield from _compacts(json.loads(part["text"]), depth + 1)
                except ValueError:
                    continue
    elif isinstance(value, Mapping):
        if isinstance(value.get("content"), list):
            yield from _compacts(value["content"], depth + 1)
        listed = value.get("results", value.get("result"))
        for item in listed if isinstance(listed, list) else ():
            if isinstance(item, dict) and isinstance(item.get("ref"), str) and "node" not in item:
                yield item


def check_events(
    events: Iterable[object], *, reader_tools: Iterable[str] = DEFAULT_READER_TOOLS
) -> list[Finding]:
    """The findings for one stream of events (wire dicts or `ag_ui.core` events)."""
    checker = _Checker(frozenset(reader_tools))
    checker.read([wire_event(event) for event in events])
    checker.judge()
    return sorted(checker.findings, key=lambda finding: finding.event)


# -- the command ---------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `moca-agui check`."""
    parser.add_argument("source", metavar="SOURCE", help="a JSON-lines or SSE file, - or a URL")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument(
        "--message",
        default="What do your sources say? Cite them.",
        help="the user message to POST when SOURCE is a URL",
    )
    parser.add_argument(
        "--reader-tool",
        action="append",
        dest="reader_tools",
        metavar="NAME",
        help="a Reader tool name (repeat; default: moca_search, moca_get_node, moca_structure)",
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for a URL")


def run(args: argparse.Namespace) -> int:
    """Run `moca-agui check`; 0: no errors, 1: errors, 2: the source cannot be read."""
    try:
        events = read_source(args.source, message=args.message, timeout=args.timeout)
    except SourceError as exc:
        print(f"moca-agui check: {exc}", file=sys.stderr)
        return 2
    findings = check_events(events, reader_tools=args.reader_tools or DEFAULT_READER_TOOLS)
    errors = sum(1 for finding in findings if finding.level == "error")
    warnings = len(findings) - errors
    if args.json:
        report = {
            "source": args.source,
            "events": len(events),
            "errors": errors,
            "warnings": warnings,
            "findings": [asdict(finding) for finding in findings],
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        for finding in findings:
            print(finding)
        print(f"{errors} error(s), {warnings} warning(s) in {len(events)} events: {args.source}")
    return 1 if errors else 0
