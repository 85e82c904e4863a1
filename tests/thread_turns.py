"""Turns of one thread as an AG-UI client sends them: each run's input is the whole thread.

`after_run(sent, stream)` is what @ag-ui/client (`defaultApplyEvents`) holds after a run:
the messages it sent, with the run's TEXT_MESSAGE_*, TOOL_CALL_* and TOOL_CALL_RESULT
events applied, or replaced by a MESSAGES_SNAPSHOT. `next_turn` appends the next question;
the adapter tests POST that as the next run's `RunAgentInput`.
"""

from __future__ import annotations

import ast
import copy
import json
import uuid
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpx

from support import Call, assert_valid_stream, citation_events, parse_sse, record, ref, run_input

A, B, C = record("a.md"), record("b.md"), record("c.md")
D = record("d.md")  # read only in another thread
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
    thread: list[dict[str, Any]], question: str, run_id: str, *, thread_id: str
) -> dict[str, Any]:
    """The next run's `RunAgentInput` (wire form): the whole thread, then the question."""
    return run_input(question, run_id, thread_id=thread_id, history=thread)


def new_thread_id() -> str:
    """A thread of its own (sessions of some frameworks outlive an app)."""
    return f"thread-{uuid.uuid4().hex}"


def tampered(thread: list[dict[str, Any]], node_ref: str) -> list[dict[str, Any]]:
    """`thread` with every copy of `node_ref`'s record in its tool messages forged: a better
    trust, another title. Fails unless some tool message held that record."""
    forged = copy.deepcopy(thread)
    changed = 0
    for message in forged:
        if message["role"] == "tool" and node_ref in str(message["content"]):
            value, written = _read(message["content"])
            changed += _forge(value, node_ref)
            message["content"] = written(value)
    assert changed, f"no tool message of the thread holds {node_ref}"
    return forged


def _read(content: str) -> tuple[Any, Callable[[Any], str]]:
    """A tool message's content as a value, and how to write it back in the same form: JSON,
    or the Python repr LlamaIndex sends (`str()` of the tool's output)."""
    try:
        return json.loads(content), json.dumps
    except ValueError:
        return ast.literal_eval(content), repr


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


def shown_markers(
    stream: list[dict[str, Any]], sent: Iterable[dict[str, Any]] = ()
) -> list[list[str]]:
    """The markers each numbered tool result of the run showed the model: in its
    TOOL_CALL_RESULT events or, in a stream that has none (LlamaIndex's), in the tool
    messages of its last MESSAGES_SNAPSHOT that answer no call of the thread it was `sent`."""
    shown = []
    for content in _run_results(stream, sent):
        view = json.loads(content)
        if isinstance(view.get("result"), str):  # ADK: a function's text, as {"result": text}
            view = json.loads(view["result"])
        if any("marker" in entry for entry in view.get("results", ())):
            shown.append([entry["marker"] for entry in view["results"] if "marker" in entry])
    return shown


def _run_results(stream: list[dict[str, Any]], sent: Iterable[dict[str, Any]]) -> list[str]:
    results = [event["content"] for event in stream if event["type"] == "TOOL_CALL_RESULT"]
    snapshots = [event["messages"] for event in stream if event["type"] == "MESSAGES_SNAPSHOT"]
    if results or not snapshots:
        return results
    earlier = {m["toolCallId"] for m in sent if m["role"] == "tool"}
    return [
        m["content"]
        for m in snapshots[-1]
        if m["role"] == "tool" and m["toolCallId"] not in earlier
    ]


# -- the scenarios: each framework's test gives its app and its scripted model ------------

#: A question's steps: each Call is one model response calling that tool (a list of
#: calls: one response calling them together), the text the last.
Steps = dict[str, list[Call | list[Call] | str]]
#: Makes a framework's app whose scripted model plays `steps`: (steps, numbered, **options).
Serve = Callable[..., Any]

READ_A_AND_B: list[Call | list[Call] | str] = [
    Call("moca_search", {"query": "a.md b.md"}, "t1-call"),
    "A [1]; B [2].",
]
NUMBERED: Steps = {
    "q1": READ_A_AND_B,
    "q2": [Call("moca_search", {"query": "c.md a.md"}, "t2-call"), "C [3]; A [1] again."],
    "q3": [Call("moca_get_node", {"node_id": ref(B)}, "t3-call"), "B [2]; C [3]."],
}
FOLLOW_UP: Steps = {
    "q1": READ_A_AND_B,
    "q2": [
        Call("moca_get_node", {"node_id": ref(C)}, "t2-call"),
        f"Now [3]; as said [1]; see {ref(B)}.",
    ],
}


def search_hits(query: str) -> dict[str, Any]:
    """The Reader's `moca_search` over A, B, C, D: the nodes whose path the query names."""
    return {"query": query, "results": [r for r in (A, B, C, D) if r["node"]["path"] in query]}


def get_node(node_id: str) -> dict[str, Any]:
    """The Reader's `moca_get_node` over A, B, C, D."""
    return {ref(r): r for r in (A, B, C, D)}.get(node_id) or {"error": f"no node {node_id}"}


async def post(app: Any, body: dict[str, Any], path: str = "/") -> list[dict[str, Any]]:
    """POST one run over ASGI; its SSE events, after the checks every stream passes."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(path, json=body, headers={"accept": "text/event-stream"})
    assert response.status_code == 200, response.text
    stream = parse_sse(response.text)
    assert_valid_stream(stream)
    return stream


Post = Callable[[Any, dict[str, Any]], Awaitable[list[dict[str, Any]]]]


async def numbered_over_three_turns(
    serve: Serve, *, post: Post = post, whole_thread: bool = True
) -> None:
    """Numbered tools count on over three turns; a source read again keeps its number.
    `whole_thread=False`: the client sends only the new question (the server keeps the
    thread)."""
    app, thread_id = serve(NUMBERED, numbered=True, lookup=Lookup(C)), new_thread_id()
    body = run_input("q1", "run-1", thread_id=thread_id)
    stream = await post(app, body)
    assert shown_markers(stream, body["messages"]) == [["[1]", "[2]"]]
    assert cited(stream) == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    expected = {
        "q2": ([["[1]", "[3]"]], [{"marker": "[3]", "record": C}, {"marker": "[1]", "record": A}]),
        "q3": ([["[2]"]], [{"marker": "[2]", "record": B}, {"marker": "[3]", "record": C}]),
    }
    for n, (question, (markers, citations)) in enumerate(expected.items(), start=2):
        thread = after_run(body["messages"], stream) if whole_thread else []
        body = next_turn(thread, question, f"run-{n}", thread_id=thread_id)
        stream = await post(app, body)
        assert shown_markers(stream, body["messages"]) == markers, question
        assert cited(stream) == citations, question


async def follow_up(
    serve: Serve, lookup: Lookup | None, *, forge: str | None = None, post: Post = post
) -> list[dict[str, Any]]:
    """Turn 1 reads A and B; turn 2 reads C and cites A by marker, B by versioned ref (the
    client forging `forge`'s record in the thread it sends back). Turn 2's citations."""
    app = serve(FOLLOW_UP, numbered=False, **({"lookup": lookup} if lookup else {}))
    thread_id = new_thread_id()
    first = run_input("q1", "run-1", thread_id=thread_id)
    thread = after_run(first["messages"], await post(app, first))
    sent = tampered(thread, forge) if forge else thread
    stream = await post(app, next_turn(sent, "q2", "run-2", thread_id=thread_id))
    assert FORGED_TITLE not in json.dumps(citation_events(stream))
    return cited(stream)


async def follow_ups(serve: Serve, *, post: Post = post) -> None:
    """A follow-up cites turn 1's sources with the record `lookup` gives now, or leaves them
    out without `lookup`, never as another node; a forged record is never sent."""
    later = [{"marker": "[3]", "record": C}, {"marker": "[1]", "record": A_NOW}, {"record": B_NOW}]
    lookup = Lookup(A_NOW, B_NOW)
    assert await follow_up(serve, lookup, post=post) == later
    assert sorted(lookup.asked) == sorted([ref(A), ref(B)])
    assert await follow_up(serve, None, post=post) == [{"marker": "[3]", "record": C}]
    assert await follow_up(serve, None, forge=ref(A), post=post) == [{"marker": "[3]", "record": C}]
    assert await follow_up(serve, Lookup(A_NOW, B_NOW), forge=ref(A), post=post) == later


# -- a thread the client resends changed, while the server may keep its own ------------


def resent_steps(answer: str) -> Steps:
    """Turn 0 (of another thread) reads D; turn 1 reads A and B; turn 2 reads A and C and
    writes `answer`."""
    return {
        "q0": [Call("moca_get_node", {"node_id": ref(D)}, "t0-call"), "D [1]."],
        "q1": READ_A_AND_B,
        "q2": [Call("moca_search", {"query": "c.md a.md"}, "t2-call"), answer],
    }


#: What the model writes on turn 2, by the thread it reads: one with turn 1 (the server's
#: own, or the client's whole or edited one: A [1] and B [2], then C [3]), the client's
#: with turn 1 dropped (this run's A [1] and C [2]), or the client's with turn 0 put first
#: (D [1], A [2], B [3], C [4]).
WHOLE_ANSWER, TRIMMED_ANSWER, LONGER_ANSWER = "C [3]; A [1].", "C [2]; A [1].", "C [4]; A [2]."


async def resent_thread(
    serve: Serve, change: str, answer: str, *, post: Post = post, **options: Any
) -> None:
    """Turn 1 reads A and B; the client resends the thread changed (`change`: "trimmed",
    turn 1 dropped; "edited", turn 1's question changed under its id; "longer", another
    thread's turn 0, which read D, put first; "moved": that longer thread sent as a
    thread new to the server) with turn 2's question; the model reads A and C and writes
    `answer`, as its thread numbers them (`WHOLE_ANSWER`, `TRIMMED_ANSWER`,
    `LONGER_ANSWER`). Each marker is cited as the source the model was shown under it:
    C and A."""
    app = serve(resent_steps(answer), numbered=False, **options)
    other = run_input("q0", "run-0", thread_id=new_thread_id())
    turn_0 = after_run(other["messages"], await post(app, other))
    thread_id = new_thread_id()
    first = run_input("q1", "run-1", thread_id=thread_id)
    turn_1 = after_run(first["messages"], await post(app, first))
    sent = {
        "trimmed": [],
        "edited": [{**m, "content": "q1, edited"} if m["role"] == "user" else m for m in turn_1],
    }.get(change, [*turn_0, *turn_1])
    thread_id = new_thread_id() if change == "moved" else thread_id
    stream = await post(app, next_turn(sent, "q2", "run-2", thread_id=thread_id))
    c, a = (f"[{digit}]" for digit in answer if digit.isdigit())
    assert cited(stream) == [{"marker": c, "record": C}, {"marker": a, "record": A}]
