"""The tool results of a thread's earlier turns, as the model reads them on this turn.

AG-UI clients send the whole thread with each run (`RunAgentInput.messages`): assistant
messages with their `toolCalls`, and `tool` messages with each call's result. Where the
framework keeps the thread server-side (a checkpoint, a session, an agent's own history),
a client may send only its new messages: the model reads the kept thread, then those
(`kept_then_sent`). What a result holds is the client's (or the store's) word, so only
what the model was shown counts here (which nodes, in which order, with which markers),
never a record.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

__all__ = ["EarlierResult", "earlier_results", "kept_then_sent"]


class EarlierResult(NamedTuple):
    """One tool result of the thread: the tool, its call's id, its content, the turn its
    call was made in (how many user messages came before it), and whether the thread
    lists that turn's results in the order of their calls."""

    tool_name: str
    call_id: str
    content: object
    turn: int
    turn_in_call_order: bool


def earlier_results(messages: Iterable[object]) -> list[EarlierResult]:
    """Each tool result of `messages`, in the order the model issued the calls.

    `messages` are `ag_ui.core` messages or wire dicts (camelCase). A call's result is
    the content of the `tool` message naming its id; a result of no call the thread
    shows (no tool name) and a call without a result are passed over.

    A turn whose tool messages come in another order than its calls (an emitter that
    sends results as they finish) was not necessarily read in either order: the model
    may have been given them in the order of the calls when it answered, and reads them
    in the thread's order now. `turn_in_call_order` is False for its results.
    """
    calls: list[tuple[str, str, int]] = []  # (call id, tool name, turn), in the order issued
    contents: dict[str, object] = {}
    answered: list[str] = []  # call ids, in the order the thread gives their results
    turn = 0
    for message in messages:
        role = _field(message, "role", "role")
        if role == "user":
            turn += 1
        elif role == "assistant":
            for call in _field(message, "tool_calls", "toolCalls") or ():
                call_id = _field(call, "id", "id")
                name = _field(_field(call, "function", "function"), "name", "name")
                if isinstance(call_id, str) and isinstance(name, str):
                    calls.append((call_id, name, turn))
        elif role == "tool":
            call_id = _field(message, "tool_call_id", "toolCallId")
            if isinstance(call_id, str) and call_id not in contents:
                contents[call_id] = _field(message, "content", "content")
                answered.append(call_id)
    return list(_results(calls, contents, _turns_out_of_call_order(calls, answered)))


def kept_then_sent(kept: Iterable[object], sent: Iterable[object]) -> list[object]:
    """The thread the model reads: the messages the framework keeps (wire dicts or
    `ag_ui.core` messages, in its order), then the client's `sent` messages it does not
    hold, so no result counts twice: a sent message whose id the kept thread holds is
    passed over, as are a sent assistant message's calls whose ids it holds and a sent
    tool message answering a call whose result it holds."""
    thread = list(kept)
    ids: set[object] = set()
    calls: set[object] = set()
    answered: set[object] = set()
    for message in thread:
        ids.add(_field(message, "id", "id"))
        role = _field(message, "role", "role")
        if role == "assistant":
            for call in _field(message, "tool_calls", "toolCalls") or ():
                calls.add(_field(call, "id", "id"))
        elif role == "tool":
            answered.add(_field(message, "tool_call_id", "toolCallId"))
    ids.discard(None)
    for message in sent:
        if _field(message, "id", "id") in ids:
            continue
        role = _field(message, "role", "role")
        if role == "assistant":
            own = [
                call
                for call in _field(message, "tool_calls", "toolCalls") or ()
                if _field(call, "id", "id") not in calls
            ]
            thread.append({"role": "assistant", "toolCalls": own})
        elif role != "tool" or _field(message, "tool_call_id", "toolCallId") not in answered:
            thread.append(message)
    return thread


def _results(
    calls: list[tuple[str, str, int]], contents: dict[str, object], out_of_order: set[int]
) -> Iterator[EarlierResult]:
    seen: set[str] = set()
    for call_id, name, turn in calls:
        if call_id in contents and call_id not in seen:
            seen.add(call_id)
            yield EarlierResult(name, call_id, contents[call_id], turn, turn not in out_of_order)


def _turns_out_of_call_order(calls: list[tuple[str, str, int]], answered: list[str]) -> set[int]:
    """The turns whose results `answered` (call ids in the thread's order) lists in
    another order than their calls."""
    turn_of: dict[str, int] = {}
    for call_id, _, turn in calls:
        turn_of.setdefault(call_id, turn)
    issued: dict[int, list[str]] = {}
    for call_id, turn in turn_of.items():
        issued.setdefault(turn, []).append(call_id)
    listed: dict[int, list[str]] = {}
    for call_id in answered:
        if call_id in turn_of:
            listed.setdefault(turn_of[call_id], []).append(call_id)
    return {
        turn
        for turn, ids in listed.items()
        if ids != [call_id for call_id in issued[turn] if call_id in set(ids)]
    }


def _field(value: Any, name: str, wire_name: str) -> Any:
    """A field of an `ag_ui.core` model (snake_case) or of a wire dict (camelCase)."""
    if isinstance(value, dict):
        return value.get(wire_name, value.get(name))
    return getattr(value, name, None)
