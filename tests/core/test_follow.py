"""The stream follower reads AG-UI as @ag-ui/client does: which message each event belongs to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Event
from pydantic import TypeAdapter

from moca_agui.stream.follow import Follower, StreamSink

EVENT: TypeAdapter[Any] = TypeAdapter(Event)
#: The chunk cases the real @ag-ui/client is tested against too (js/test/chunks.test.js).
CHUNK_CASES = json.loads(Path(__file__).with_name("chunk-cases.json").read_text("utf-8"))


class Recorder(StreamSink):
    """Every fact the follower reports, in order."""

    def __init__(self) -> None:
        self.facts: list[tuple[Any, ...]] = []

    def message_opened(self, message_id: str, role: str) -> None:
        self.facts.append(("open", message_id, role))

    def text(self, message_id: str, delta: str) -> None:
        self.facts.append(("text", message_id, delta))

    def message_closed(self, message_id: str) -> None:
        self.facts.append(("close", message_id))

    def tool_call(self, tool_call_id: str, tool_name: str) -> None:
        self.facts.append(("call", tool_call_id, tool_name))

    def tool_result(self, tool_call_id: str, tool_name: str | None, content: object) -> None:
        self.facts.append(("result", tool_call_id, tool_name, content))

    def snapshot_message(
        self, message_id: str, role: str, content: object, tool_call_id: str | None
    ) -> None:
        self.facts.append(("snapshot", message_id, role, content, tool_call_id))

    def citations(self, value: object) -> None:
        self.facts.append(("citations", value))

    def run_started(self) -> None:
        self.facts.append(("run",))

    def run_finished(self) -> None:
        self.facts.append(("finished",))

    def run_error(self) -> None:
        self.facts.append(("error",))

    def rejected(self, kind: str, reason: str) -> None:
        self.facts.append(("rejected", kind))

    def malformed(self, kind: str, reason: str) -> None:
        self.facts.append(("malformed", kind))


def follow(*events: dict[str, Any], sdk: bool = False) -> list[tuple[Any, ...]]:
    """The facts of a stream of wire events (or of the same events as `ag_ui.core` objects)."""
    recorder = Recorder()
    follower = Follower(recorder)
    for event in events:
        follower.feed(EVENT.validate_python(event) if sdk else event)
    follower.close()
    return recorder.facts


def chunk(delta: str, message_id: str | None = None, **fields: Any) -> dict[str, Any]:
    event = {"type": "TEXT_MESSAGE_CHUNK", "delta": delta, **fields}
    return event if message_id is None else {**event, "messageId": message_id}


STEP = {"type": "STEP_STARTED", "stepName": "think"}


@pytest.mark.parametrize("sdk", [False, True], ids=["wire", "sdk"])
def test_a_chunk_without_message_id_after_another_event_continues_nothing(sdk: bool) -> None:
    # @ag-ui/client closes m1 at STEP_STARTED and rejects the third event:
    # "First TEXT_MESSAGE_CHUNK must have a messageId".
    assert follow(chunk("Per ", "m1"), STEP, chunk("[1]"), sdk=sdk) == [
        ("open", "m1", "assistant"),
        ("text", "m1", "Per "),
        ("close", "m1"),
        ("rejected", "TEXT_MESSAGE_CHUNK"),
    ]


@pytest.mark.parametrize(
    "between",
    [
        {"type": "RAW", "event": {"x": 1}},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "plan", "content": {}},
        {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "r",
         "encryptedValue": "..."},
    ],
    ids=["raw", "activity", "encrypted"],
)  # fmt: skip
def test_events_that_leave_a_chunked_message_open(between: dict[str, Any]) -> None:
    assert follow(chunk("Per ", "m1"), between, chunk("[1]")) == [
        ("open", "m1", "assistant"),
        ("text", "m1", "Per "),
        ("text", "m1", "[1]"),
        ("close", "m1"),
    ]


@pytest.mark.parametrize(
    "between",
    [
        {"type": "CUSTOM", "name": "other", "value": 1},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "moca_search"},
        {"type": "STATE_DELTA", "delta": []},
        {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
    ],
    ids=["custom", "tool-chunk", "state", "start"],
)
def test_events_that_close_a_chunked_message(between: dict[str, Any]) -> None:
    facts = follow(chunk("Per ", "m1"), between, chunk("[1]"))
    assert facts[:3] == [("open", "m1", "assistant"), ("text", "m1", "Per "), ("close", "m1")]
    assert ("text", "m1", "[1]") not in facts
    assert facts[-1] == ("rejected", "TEXT_MESSAGE_CHUNK")


def test_a_chunk_with_another_id_closes_the_first_and_continues_its_own() -> None:
    assert follow(chunk("a", "m1"), chunk("b", "m2", role="user"), chunk("c")) == [
        ("open", "m1", "assistant"),
        ("text", "m1", "a"),
        ("close", "m1"),
        ("open", "m2", "user"),
        ("text", "m2", "b"),
        ("text", "m2", "c"),
        ("close", "m2"),
    ]


def test_a_reopened_id_keeps_the_role_it_began_with() -> None:
    facts = follow(
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "user"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        chunk("x", "m1", role="assistant"),
    )
    assert [f for f in facts if f[0] == "open"] == [("open", "m1", "user")] * 3


def test_run_events_close_a_chunked_message_and_end_runs() -> None:
    assert follow(
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        chunk("a", "m1"),
        {"type": "RUN_ERROR", "message": "boom"},
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
        chunk("b", "m2"),
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r2"},
    ) == [
        ("run",), ("open", "m1", "assistant"), ("text", "m1", "a"), ("close", "m1"), ("error",),
        ("run",), ("open", "m2", "assistant"), ("text", "m2", "b"), ("close", "m2"), ("finished",),
    ]  # fmt: skip


@pytest.mark.parametrize("sdk", [False, True], ids=["wire", "sdk"])
def test_tool_calls_name_their_results_and_snapshots_name_messages(sdk: bool) -> None:
    facts = follow(
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "moca_search"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1", "content": "{}"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t2", "toolCallId": "c9", "content": "{}"},
        {"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "a0", "role": "assistant", "toolCalls": [{"id": "c2", "type": "function",
             "function": {"name": "moca_get_node", "arguments": "{}"}}]},
            {"id": "t3", "role": "tool", "toolCallId": "c2", "content": "{}"},
            {"id": "m1", "role": "assistant", "content": "Yes [1]."},
        ]},
        {"type": "TOOL_CALL_RESULT", "messageId": "t4", "toolCallId": "c2", "content": "[]"},
        {"type": "CUSTOM", "name": "moca.citations", "value": {"messageId": "m1"}},
        sdk=sdk,
    )  # fmt: skip
    assert facts == [
        ("call", "c1", "moca_search"),
        ("result", "c1", "moca_search", "{}"),
        ("result", "c9", None, "{}"),
        ("snapshot", "a0", "assistant", None, None),
        ("snapshot", "t3", "tool", "{}", "c2"),
        ("snapshot", "m1", "assistant", "Yes [1].", None),
        ("result", "c2", "moca_get_node", "[]"),
        ("citations", {"messageId": "m1"}),
    ]


def test_malformed_fields_are_reported_not_applied() -> None:
    assert follow(
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": ["x"], "delta": "a"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": None},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": 7, "delta": "a"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t", "content": "{}"},
    ) == [
        ("malformed", "TEXT_MESSAGE_CONTENT"),
        ("malformed", "TEXT_MESSAGE_CONTENT"),
        ("malformed", "TEXT_MESSAGE_CHUNK"),
        ("malformed", "TOOL_CALL_RESULT"),
    ]


@pytest.mark.parametrize(
    "case", CHUNK_CASES["cases"], ids=[c["name"] for c in CHUNK_CASES["cases"]]
)
def test_chunks_are_read_as_the_real_ag_ui_client_reads_them(case: dict[str, Any]) -> None:
    texts: dict[str, str] = {}
    rejected = False
    for fact in follow(*case["events"]):
        if fact[0] == "open":
            texts.setdefault(fact[1], "")
        elif fact[0] == "text":
            texts[fact[1]] = texts.get(fact[1], "") + fact[2]
        rejected = rejected or fact == ("rejected", "TEXT_MESSAGE_CHUNK")
    assert ([list(m) for m in texts.items()], rejected) == (case["messages"], case["rejected"])
