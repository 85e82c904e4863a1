"""Reading a stream for the checker, in one pass: its runs, their messages, tool calls,
Reader results and citation values, as `cite` and `moca_agui.client` follow it
(`moca_agui.stream.follow`), Reader results read with the extraction `cite` uses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..records.extract import CompactResult, numbered_items, reader_items
from ..run.hooks import Hooks
from ..stream.follow import Follower, StreamSink
from ._findings import Findings

__all__ = ["Message", "Run", "StreamReading"]


@dataclass(slots=True)
class Message:
    role: str
    text: str = ""
    last_text: int = -1  # index of its last START, CONTENT, END or chunk
    ended: bool = False  # its TEXT_MESSAGE_END, the end of its chunks, or a snapshot
    event: int | None = None  # index of its moca.citations event
    dropped: int | None = None  # index of the MESSAGES_SNAPSHOT that left it out
    #: where each stretch of its text begins and how many Reader results had arrived when
    #: it (re)opened there (empty: text only a snapshot carried, written with all shown)
    cuts: list[tuple[int, int]] = field(default_factory=list)

    def began(self, cut: int) -> None:
        """It (re)opened when `cut` Reader results had arrived: what it writes from here
        on was written with those shown, not with what arrives while it streams."""
        if not self.cuts or self.cuts[-1][1] != cut:
            self.cuts.append((len(self.text), cut))


@dataclass(slots=True)
class Run:
    start: int
    finished: int | None = None
    errored: bool = False
    messages: dict[str, Message] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)  # call id -> tool name
    answered: set[str] = field(default_factory=set)  # reader call ids with a result seen
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # ref -> records
    compacts: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)  # ref -> compacts
    others: dict[str, str] = field(default_factory=dict)  # ref -> the non-Reader tool with it
    arrived: int = 0  # how many Reader results holding nodes have arrived
    #: ref -> how many Reader results had arrived before the first that returned it
    arrival: dict[str, int] = field(default_factory=dict)
    citations: list[tuple[int, object]] = field(default_factory=list)
    #: (index, message id, value) of each snapshot message's metadata citations
    carried: list[tuple[int, str, object]] = field(default_factory=list)


class StreamReading(StreamSink):
    """The runs of one stream (`runs`), read event by event; an event no client applies
    is a finding."""

    def __init__(self, hooks: Hooks, findings: Findings) -> None:
        self._hooks = hooks
        self._findings = findings
        self.runs: list[Run] = []
        self._follower = Follower(self)
        self._index = 0  # of the event being read
        self._snapshot_ids: set[str] = set()  # every message id of the snapshot being read
        self._kind: object = None  # its type

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
    def _run(self) -> Run:
        return self.runs[-1]

    def _message(self, message_id: str) -> Message:
        message = self._run.messages.get(message_id)
        if message is None:
            message = self._run.messages[message_id] = Message(self._follower.role_of(message_id))
        return message

    def run_started(self) -> None:
        self.runs.append(Run(self._index))

    def message_opened(self, message_id: str, role: str) -> None:
        message = self._message(message_id)
        message.ended, message.last_text = False, self._index
        message.began(self._run.arrived)

    def text(self, message_id: str, delta: str) -> None:
        message = self._message(message_id)
        if not message.cuts:  # no TEXT_MESSAGE_START began it
            message.began(self._run.arrived)
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
            # when the model read it is not known: no stretch is judged by its arrival
            name = self._follower.tool_name(tool_call_id)
            self._result(tool_call_id, name, content, timed=False)
        elif (
            role == "assistant"
            and isinstance(content, str)
            and content
            and message_id not in run.messages
        ):
            run.messages[message_id] = Message("assistant", content, self._index, ended=True)

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
        self._findings.add(
            "warning", "AG-UI", kind, self._index,
            f"{reason}: @ag-ui/client rejects this event, so no client shows its text",
        )  # fmt: skip

    def malformed(self, kind: str, reason: str) -> None:
        self._findings.add(
            "warning", "AG-UI", kind, self._index, f"{reason}: the event was not read"
        )

    def _result(
        self, call_id: str, tool_name: str | None, content: object, *, timed: bool = True
    ) -> None:
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
        held = False
        for item in items:
            if isinstance(item, CompactResult):
                if reader:
                    run.compacts.setdefault(item.ref, []).append(item.result or {})
                    held = True
                    if timed:
                        run.arrival.setdefault(item.ref, run.arrived)
                continue
            ref = item.get("node", {}).get("ref")
            if not isinstance(ref, str):
                continue
            if reader:
                run.records.setdefault(ref, []).append(item)
                held = True
                if timed:
                    run.arrival.setdefault(ref, run.arrived)
            else:
                run.others.setdefault(ref, tool_name)
        run.arrived += held and timed
