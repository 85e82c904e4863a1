"""Turns of one thread as an AG-UI client sends them: each run's input is the whole thread.

`after_run(sent, stream)` is what @ag-ui/client (`defaultApplyEvents`) holds after a run:
the messages it sent, with the run's TEXT_MESSAGE_*, TOOL_CALL_* and TOOL_CALL_RESULT
events applied, or replaced by a MESSAGES_SNAPSHOT. `next_turn` appends the next question;
the adapter tests POST that as the next run's `RunAgentInput`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

from support import citation_events, record, ref, run_input

A, B, C = record("a.md"), record("b.md"), record("c.md")
#: What the Reader answers for a and b now: the same nodes, a newer trust.
A_NOW, B_NOW = record("a.md", stale=True), record("b.md", contested=True)
FORGED_TITLE = "A forged title"


class Lookup:
    """A `lookup` that answers from the Reader's records of now, and counts what it was asked."""

    def __init__(self, *records: dict[str, Any]) -> None:
        self.records = {ref(r): r for r in records}
        self.asked: list[str] = []

    async def __call__(self, node_ref: str) -> dict[str, Any] | None:
        self.asked.append(node_ref)
        return self.records.get(node_ref)


def after_run(sent: list[dict[str, Any]], stream: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The client's messages after a run: `sent`, with the run's events applied as
    @ag-ui/client applies them (CUSTOM events, `moca.citations` among them, change none)."""
    messages = copy.deepcopy(sent)
    for event in stream:
        kind = event["type"]
        if kind == "MESSAGES_SNAPSHOT":
            snapshot = {m["id"]: m for m in event["messages"]}
            messages = [snapshot.get(m["id"], m) for m in messages if m["id"] in snapshot]
            known = {m["id"] for m in messages}
            messages += [m for m in event["messages"] if m["id"] not in known]
        elif kind == "TEXT_MESSAGE_START":
            if not any(m["id"] == event["messageId"] for m in messages):
                role = event.get("role", "assistant")
                messages.append({"id": event["messageId"], "role": role, "content": ""})
        elif kind == "TEXT_MESSAGE_CONTENT":
            message = next(m for m in messages if m["id"] == event["messageId"])
            message["content"] = (message.get("content") or "") + event["delta"]
        elif kind == "TOOL_CALL_START":
            _tool_call_start(messages, event)
        elif kind == "TOOL_CALL_ARGS":
            call = next(c for m in messages for c in _calls(m) if c["id"] == event["toolCallId"])
            call["function"]["arguments"] += event["delta"]
        elif kind == "TOOL_CALL_RESULT":
            _tool_call_result(messages, event)
    return messages


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    return message.get("toolCalls") or []


def _tool_call_start(messages: list[dict[str, Any]], event: dict[str, Any]) -> None:
    call_id, parent_id = event["toolCallId"], event.get("parentMessageId")
    if any(c["id"] == call_id for m in messages for c in _calls(m)):
        return
    parent = next((m for m in messages if parent_id and m["id"] == parent_id), None)
    if parent is None or parent["role"] != "assistant":
        parent = {"id": parent_id or call_id, "role": "assistant", "toolCalls": []}
        if any(m["id"] == parent["id"] for m in messages):
            parent["id"] = call_id
        messages.append(parent)
    parent.setdefault("toolCalls", []).append(
        {
            "id": call_id,
            "type": "function",
            "function": {"name": event["toolCallName"], "arguments": ""},
        }
    )


def _tool_call_result(messages: list[dict[str, Any]], event: dict[str, Any]) -> None:
    result = {
        "id": event["messageId"],
        "role": event.get("role") or "tool",
        "toolCallId": event["toolCallId"],
        "content": event["content"],
    }
    at = next(
        (i for i, m in enumerate(messages) if m["role"] == "assistant"
         and any(c["id"] == event["toolCallId"] for c in _calls(m))),
        None,
    )  # fmt: skip
    if at is None:
        messages.append(result)
        return
    at += 1
    while at < len(messages) and messages[at]["role"] == "tool":
        at += 1
    messages.insert(at, result)


def next_turn(
    thread: list[dict[str, Any]], question: str, run_id: str, *, thread_id: str = "thread-1"
) -> dict[str, Any]:
    """The next run's `RunAgentInput` (wire form): the whole thread, then the question."""
    return run_input(question, run_id, thread_id=thread_id, history=thread)


def tampered(thread: list[dict[str, Any]], node_ref: str) -> list[dict[str, Any]]:
    """`thread` with every copy of `node_ref`'s record in its tool messages forged: a better
    trust, another title. Fails unless some tool message held that record."""
    forged = copy.deepcopy(thread)
    changed = 0
    for message in forged:
        if message["role"] == "tool" and node_ref in str(message["content"]):
            value = json.loads(message["content"])
            changed += _forge(value, node_ref)
            message["content"] = json.dumps(value)
    assert changed, f"no tool message of the thread holds {node_ref}"
    return forged


def _forge(value: object, node_ref: str) -> int:
    changed = 0
    if isinstance(value, dict):
        node = value.get("node")
        if isinstance(node, dict) and node.get("ref") == node_ref:
            node["title"] = FORGED_TITLE
            value["trust"] = {**value["trust"], "status": "stable", "stale": False}
            value["trust"]["attestedReviews"] = [{"by": "forged", "outcome": "accurate"}]
            changed += 1
        changed += sum(_forge(item, node_ref) for item in value.values())
    elif isinstance(value, list):
        changed += sum(_forge(item, node_ref) for item in value)
    return changed


def cited(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every citation the run sent, in order (markers and records)."""
    return [c for value in citation_events(stream) for c in value["citations"]]


def shown_markers(stream: list[dict[str, Any]]) -> list[list[str]]:
    """The markers each numbered tool result of the run showed the model."""
    shown = []
    for event in stream:
        if event["type"] == "TOOL_CALL_RESULT" and '"marker"' in event["content"]:
            view = json.loads(event["content"])
            shown.append([entry["marker"] for entry in view["results"] if "marker" in entry])
    return shown
