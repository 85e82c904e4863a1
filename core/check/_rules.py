"""The rules `moca-agui check` applies to a stream: MOCA citations over AG-UI 0.6.0, §2 and
§3, as far as the stream shows them.

The stream is followed as `cite` and `moca_agui.client` follow it (`moca_agui.stream.follow`),
and Reader results are read with the extraction `cite` uses (`moca_agui.records.extract`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..client import ClientCitation, read_value, wire_event
from ..options import DEFAULT_READER_TOOLS, CitationOptions
from ..records.extract import CompactResult, numbered_items, reader_items
from ..records.references import find_markers, find_refs
from ..run.hooks import Hooks
from ..stream.follow import Follower, StreamSink

__all__ = ["Finding", "Level", "check_events"]

Level = Literal["error", "warning"]
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


# -- checking ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Message:
    role: str
    text: str = ""
    last_text: int = -1  # index of its last START, CONTENT, END or chunk
    ended: bool = False  # its TEXT_MESSAGE_END, the end of its chunks, or a snapshot
    event: int | None = None  # index of its moca.citations event
    dropped: int | None = None  # index of the MESSAGES_SNAPSHOT that left it out


@dataclass(slots=True)
class _Run:
    start: int
    finished: int | None = None
    errored: bool = False
    messages: dict[str, _Message] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)  # call id -> tool name
    answered: set[str] = field(default_factory=set)  # reader call ids with a result seen
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # ref -> records
    compacts: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)  # ref -> compacts
    others: dict[str, str] = field(default_factory=dict)  # ref -> the non-Reader tool with it
    citations: list[tuple[int, object]] = field(default_factory=list)
    #: (index, message id, value) of each snapshot message's metadata citations
    carried: list[tuple[int, str, object]] = field(default_factory=list)


class _Checker(StreamSink):
    def __init__(self, reader_tools: frozenset[str]) -> None:
        # Which tools are Readers, as a citing run decides it: the plugins are asked
        # (Claude Code names an MCP server's tool `mcp__<server>__<tool>`).
        self._hooks = Hooks(CitationOptions(reader_tools=reader_tools))
        self.findings: list[Finding] = []
        self.runs: list[_Run] = []
        self._follower = Follower(self)
        self._index = 0  # of the event being read
        self._snapshot_ids: set[str] = set()  # every message id of the snapshot being read
        self._kind: object = None  # its type

    def add(self, level: Level, section: str, rule: str, event: int, message: str) -> None:
        self.findings.append(Finding(level, section, rule, event, message))

    # one pass over the stream
    def read(self, events: Sequence[Mapping[str, Any]]) -> None:
        for index, event in enumerate(events):
            self._index, self._kind = index, event.get("type")
            if not self.runs and self._kind != "RUN_STARTED":
                self.run_started()  # events before any RUN_STARTED: a run all the same
            self._follower.feed(event)
            if self._kind == "MESSAGES_SNAPSHOT":
                self._snapshot_read()
        self._kind = None
        self._follower.close()

    @property
    def _run(self) -> _Run:
        return self.runs[-1]

    def _message(self, message_id: str) -> _Message:
        message = self._run.messages.get(message_id)
        if message is None:
            message = self._run.messages[message_id] = _Message(self._follower.role_of(message_id))
        return message

    def run_started(self) -> None:
        self.runs.append(_Run(self._index))

    def message_opened(self, message_id: str, role: str) -> None:
        message = self._message(message_id)
        message.ended, message.last_text = False, self._index

    def text(self, message_id: str, delta: str) -> None:
        message = self._message(message_id)
        message.text += delta
        message.last_text = self._index

    def message_closed(self, message_id: str) -> None:
        message = self._message(message_id)
        message.ended = True
        if self._kind == "TEXT_MESSAGE_END":  # not the end of chunks another event makes
            message.last_text = self._index

    def tool_call(self, tool_call_id: str, tool_name: str) -> None:
        self._run.tools[tool_call_id] = tool_name

    def tool_result(self, tool_call_id: str, tool_name: str | None, content: object) -> None:
        self._result(tool_call_id, tool_name, content)

    def snapshot_started(self) -> None:
        self._snapshot_ids = set()

    def _snapshot_read(self) -> None:
        """The client holds the snapshot's messages and no other: an event after this one
        that names a message it left out names a message no client holds."""
        for message_id, message in self._run.messages.items():
            if message_id not in self._snapshot_ids and message.dropped is None:
                message.dropped = self._index

    def snapshot_message(
        self, message_id: str, role: str, content: object, tool_call_id: str | None
    ) -> None:
        """Tool results, and the assistant messages of a model that does not stream: their
        text arrives only here, so their event belongs after this snapshot."""
        self._snapshot_ids.add(message_id)
        run = self._run
        if role == "tool" and tool_call_id is not None:
            self._result(tool_call_id, self._follower.tool_name(tool_call_id), content)
        elif (
            role == "assistant"
            and isinstance(content, str)
            and content
            and message_id not in run.messages
        ):
            run.messages[message_id] = _Message("assistant", content, self._index, ended=True)

    def snapshot_citations(self, message_id: str, value: object) -> None:
        self._run.carried.append((self._index, message_id, value))

    def citations(self, value: object) -> None:
        self._run.citations.append((self._index, value))

    def run_finished(self) -> None:
        if self._run.finished is None:
            self._run.finished = self._index

    def run_error(self) -> None:
        self._run.errored = True

    def rejected(self, kind: str, reason: str) -> None:
        self.add(
            "warning", "AG-UI", kind, self._index,
            f"{reason}: @ag-ui/client rejects this event, so no client shows its text",
        )  # fmt: skip

    def malformed(self, kind: str, reason: str) -> None:
        self.add("warning", "AG-UI", kind, self._index, f"{reason}: the event was not read")

    def _result(self, call_id: str, tool_name: str | None, content: object) -> None:
        if tool_name is None:
            return  # a call the stream did not name: whose result it is stays unknown
        try:  # a numbered result (moca_agui.numbered) shows the model the Reader's items
            items = numbered_items(content)
            if items is None:
                items = reader_items(content)
        except ValueError:
            return  # a result that cannot be read: the nodes it held stay unknown
        run = self._run
        reader = self._hooks.is_reader_tool(tool_name)
        if reader:
            run.answered.add(call_id)
        for item in items:
            if isinstance(item, CompactResult):
                if reader:
                    run.compacts.setdefault(item.ref, []).append(item.result or {})
                continue
            ref = item.get("node", {}).get("ref")
            if not isinstance(ref, str):
                continue
            if reader:
                run.records.setdefault(ref, []).append(item)
            else:
                run.others.setdefault(ref, tool_name)

    # the rules, once the stream is read
    def judge(self) -> None:
        for run in self.runs:
            for index, value in run.citations:
                self._event(run, index, value)
            for index, message_id, value in run.carried:
                self._carried(run, index, message_id, value)
        self._missing_events()

    def _carried(self, run: _Run, index: int, message_id: str, value: object) -> None:
        """A snapshot message's metadata citations: a valid value for that message, the
        same as its event's, so clients that keep messages show what the others show."""
        where = f"metadata of message {message_id!r}: "
        read, problems = read_value(value)
        for problem in problems:
            entry = f"citations[{problem.citation}]: " if problem.citation is not None else ""
            self.add("error", problem.section, problem.rule, index, where + entry + problem.message)
        if read is None:
            return
        if read.message_id != message_id:
            self.add(
                "error", "§2", "messageId", index,
                f"{where}the value names message {read.message_id!r}",
            )  # fmt: skip
            return
        sent = [
            v
            for _, v in run.citations
            if isinstance(v, Mapping) and v.get("messageId") == message_id
        ]
        if sent and value != sent[0]:
            self.add(
                "error", "§2", "metadata", index,
                f"{where}not the value of its moca.citations event: a client that keeps "
                "messages would show other sources than one that reads the event",
            )  # fmt: skip
        message = run.messages.get(message_id)
        if not sent and message is not None and message.last_text < index:
            # an answer this run streamed, whose sources only the metadata carries: they
            # must be records the Reader returned in this run, as an event's must
            self._sources(run, index, read.citations)

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
        if message.dropped is not None and message.dropped < index:
            self.add(
                "error", "§4", "a message the client holds", index,
                f"message {read.message_id!r} was left out by the MESSAGES_SNAPSHOT at event "
                f"{message.dropped}, so no client holds it now and every client ignores this "
                "event: name the snapshot's id of that answer",
            )  # fmt: skip
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
        readers = {call for call, name in run.tools.items() if self._hooks.is_reader_tool(name)}
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
            elif ref in run.others:
                tool = run.others[ref]
                self.add(
                    "error", "§3", "returned by the Reader", index,
                    f"{where} is a record only {tool!r} returned, and {tool!r} is not a Reader "
                    f"tool: its results are data, not sources (if it is a Reader, pass "
                    f"--reader-tool {tool})",
                )  # fmt: skip
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
                if message.dropped is not None:
                    continue  # a snapshot replaced it: the client holds it no more
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


def check_events(
    events: Iterable[object], *, reader_tools: Iterable[str] = DEFAULT_READER_TOOLS
) -> list[Finding]:
    """The findings for one stream of events (wire dicts or `ag_ui.core` events)."""
    checker = _Checker(frozenset(reader_tools))
    checker.read([wire_event(event) for event in events])
    checker.judge()
    return sorted(checker.findings, key=lambda finding: finding.event)
