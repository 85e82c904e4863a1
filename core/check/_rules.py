"""The rules `moca-agui check` applies to a stream: MOCA citations over AG-UI 0.6.0, §2 and
§3, as far as the stream shows them, judged once the stream is read (`_reading`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..client import ClientCitation, read_value, wire_event
from ..markers.style import canonical
from ..options import DEFAULT_READER_TOOLS, CitationOptions
from ..records.references import find_refs, marker_items, named_markers, visible_markers
from ..run.hooks import Hooks
from ._findings import Finding, Findings
from ._reading import Message, Run, StreamReading

__all__ = ["check_events"]

#: Fields of the reference Reader's compact record that a citation record must agree with.
_COMPACT_FIELDS = {
    "title": ("node", "title"),
    "status": ("trust", "status"),
    "stale": ("trust", "stale"),
    "inForce": ("trust", "inForce"),
    "superseded": ("trust", "superseded"),
    "signed": ("package", "signed"),
}


class _Judge:
    """The rules, applied to the runs a stream was read into."""

    def __init__(self, runs: list[Run], hooks: Hooks, findings: Findings) -> None:
        self._runs = runs
        self._hooks = hooks
        self._add = findings.add

    def judge(self) -> None:
        for run in self._runs:
            for index, value in run.citations:
                self._event(run, index, value)
            for index, message_id, value in run.carried:
                self._carried(run, index, message_id, value)
        self._missing_events()

    def _carried(self, run: Run, index: int, message_id: str, value: object) -> None:
        """A snapshot message's metadata citations: a valid value for that message, the
        same as its event's, so clients that keep messages show what the others show."""
        where = f"metadata of message {message_id!r}: "
        read, problems = read_value(value)
        for problem in problems:
            entry = f"citations[{problem.citation}]: " if problem.citation is not None else ""
            self._add(
                "error", problem.section, problem.rule, index, where + entry + problem.message
            )
        if read is None:
            return
        if read.message_id != message_id:
            self._add(
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
            self._add(
                "error", "§2", "metadata", index,
                f"{where}not the value of its moca.citations event: a client that keeps "
                "messages would show other sources than one that reads the event",
            )  # fmt: skip
        message = run.messages.get(message_id)
        if not sent and message is not None and message.last_text < index:
            # an answer this run streamed, whose sources only the metadata carries: they
            # must be records the Reader returned in this run, as an event's must
            self._sources(run, index, read.citations)

    def _event(self, run: Run, index: int, value: object) -> None:
        read, problems = read_value(value)
        for problem in problems:
            where = f"citations[{problem.citation}]: " if problem.citation is not None else ""
            self._add("error", problem.section, problem.rule, index, where + problem.message)
        if read is None:
            return
        message = run.messages.get(read.message_id)
        if message is None or message.role != "assistant":
            self._add(
                "error", "§2", "messageId", index,
                f"{read.message_id!r} is not an assistant message of this run",
            )  # fmt: skip
            return
        if message.event is not None:
            self._add(
                "error", "§2", "one event per message", index,
                f"a second event for message {read.message_id!r} (the first is event "
                f"{message.event})",
            )  # fmt: skip
            return
        message.event = index
        if message.dropped is not None and message.dropped < index:
            self._add(
                "error", "§4", "a message the client holds", index,
                f"message {read.message_id!r} was left out by the MESSAGES_SNAPSHOT at event "
                f"{message.dropped}, so no client holds it now and every client ignores this "
                "event: name the snapshot's id of that answer",
            )  # fmt: skip
        self._placement(run, index, read.message_id, message)
        self._sources(run, index, read.citations)
        self._order(run, index, message, read.citations)

    def _placement(self, run: Run, index: int, message_id: str, message: Message) -> None:
        if index < message.last_text:
            self._add(
                "error", "§3", "placement", index,
                f"sent before the end of message {message_id!r} (its text goes on at event "
                f"{message.last_text})",
            )  # fmt: skip
        elif not message.ended:
            self._add(
                "error", "§3", "placement", index,
                f"message {message_id!r} has no TEXT_MESSAGE_END before this event",
            )  # fmt: skip
        if run.finished is None or run.finished < index:
            end = "the run has no RUN_FINISHED" if run.finished is None else (
                f"RUN_FINISHED is event {run.finished}"
            )  # fmt: skip
            self._add("error", "§3", "placement", index, f"sent after the run's end: {end}")

    def _sources(self, run: Run, index: int, citations: Sequence[ClientCitation]) -> None:
        readers = {call for call, name in run.tools.items() if self._hooks.is_reader_tool(name)}
        unseen = readers - run.answered
        seen_spans: set[tuple[str, tuple[int, int] | None]] = set()
        for position, citation in enumerate(citations):
            ref, where = citation.ref, f"citations[{position}] ({citation.ref})"
            key = (ref, citation.span)
            if key in seen_spans:
                self._add("error", "§3", "one entry per node and span", index, f"{where} repeats")
            seen_spans.add(key)
            returned = run.records.get(ref)
            if returned:
                if not any(_same(citation.record, original) for original in returned):
                    self._add(
                        "error", "§3", "unchanged", index,
                        f"{where} differs from the record the Reader returned "
                        "(only dropping text is allowed)",
                    )  # fmt: skip
            elif ref in run.compacts:
                for compact in run.compacts[ref]:
                    differs = _compact_differs(citation.record, compact)
                    if differs:
                        self._add(
                            "error", "§3", "unchanged", index,
                            f"{where}: {differs} differs from the Reader's compact result",
                        )  # fmt: skip
                        break
            elif ref in run.others:
                tool = run.others[ref]
                self._add(
                    "error", "§3", "returned by the Reader", index,
                    f"{where} is a record only {tool!r} returned, and {tool!r} is not a Reader "
                    f"tool: its results are data, not sources (if it is a Reader, pass "
                    f"--reader-tool {tool})",
                )  # fmt: skip
            elif unseen or not readers:
                why = "no Reader tool result" if not readers else "Reader results it cannot see"
                self._add(
                    "warning", "§3", "returned by the Reader", index,
                    f"{where}: cannot check it was returned in this run: the stream shows {why}",
                )  # fmt: skip
            else:
                self._add(
                    "error", "§3", "returned by the Reader", index,
                    f"{where} is not a node any Reader tool result of this run returned",
                )  # fmt: skip

    def _order(
        self, run: Run, index: int, message: Message, citations: Sequence[ClientCitation]
    ) -> None:
        text, refs = message.text, {c.ref for c in citations}
        styles = self._hooks.marker_styles
        by_marker: dict[str, list[str]] = {}  # a group's marker is each of its entries'
        #: `[n]` -> the citations whose marker names n alone, in any style: a group or range
        #: written elsewhere (`[1, 2]`) names them too, as the npm client opens them
        by_number: dict[str, list[str]] = {}
        for citation in citations:
            if citation.marker:
                by_marker.setdefault(citation.marker, []).append(citation.ref)
                items = marker_items(citation.marker, styles)
                if items is not None and len(items) == 1 and isinstance(items[0], int):
                    by_number.setdefault(canonical(items[0]), []).append(citation.ref)
        first: dict[str, int] = {}
        for mention in find_refs(text, refs):
            first.setdefault(mention.ref, mention.start)
        if by_marker:
            cuts, stretch = message.cuts, 0
            for at, end in visible_markers(text, styles):
                while stretch + 1 < len(cuts) and cuts[stretch + 1][0] <= at:
                    stretch += 1
                written = text[at:end]
                named = named_markers(written, by_number, styles)
                for ref in [*by_marker.get(written, ()), *(r for k in named for r in by_number[k])]:
                    # a marker written before its node arrived names nothing
                    if not cuts or run.arrival.get(ref, -1) < cuts[stretch][1]:
                        first[ref] = min(first.get(ref, at), at)
        last_position, last = -1, ""
        for position, citation in enumerate(citations):
            where = f"citations[{position}] ({citation.ref})"
            start = first.get(citation.ref)
            if start is None:
                self._add(
                    "error", "§3", "cited by the answer", index,
                    f"{where}: the message's text mentions neither its ref nor its marker",
                )  # fmt: skip
                continue
            if start < last_position:
                self._add(
                    "error", "§3", "order of first mention", index,
                    f"{where} is first mentioned before {last}, which is listed ahead of it",
                )  # fmt: skip
            if start > last_position:
                last_position, last = start, where

    def _missing_events(self) -> None:
        any_event = any(run.citations for run in self._runs)
        if not any_event:
            self._add(
                "warning", "§3", "an event per message", 0,
                "the stream has no moca.citations event: not a MOCA service, or citations off",
            )  # fmt: skip
            return
        for run in self._runs:
            if run.errored:
                continue
            for message_id, message in run.messages.items():
                if message.dropped is not None:
                    continue  # a snapshot replaced it: the client holds it no more
                if message.role == "assistant" and message.text.strip() and message.event is None:
                    self._add(
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
    # Which tools are Readers, as a citing run decides it: the plugins are asked (Claude
    # Code names an MCP server's tool `mcp__<server>__<tool>`).
    hooks = Hooks(CitationOptions(reader_tools=frozenset(reader_tools)))
    findings = Findings()
    reading = StreamReading(hooks, findings)
    reading.read([wire_event(event) for event in events])
    _Judge(reading.runs, hooks, findings).judge()
    return sorted(findings.found, key=lambda finding: finding.event)
