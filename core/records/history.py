"""The tool results of a thread's earlier turns, as the model reads them on this turn.

AG-UI clients send the whole thread with each run (`RunAgentInput.messages`): assistant
messages with their `toolCalls`, and `tool` messages with each call's result. Where the
framework keeps the thread server-side (a checkpoint, a session, an agent's own history),
a client may send only its new messages: the model reads the kept thread, then those
(`kept_then_sent`); a framework that takes from the client only its new turns hands its
model the kept thread and the client's answers to the calls it left open
(`kept_then_answers`). What a result holds is the client's (or the store's) word, so only
what the model was shown counts here (which nodes, in which order, with which markers),
never a record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from .order import LISTED_OUT_OF_ORDER, CallOrder, listed_out_of_order

__all__ = ["EarlierResult", "earlier_results", "kept_then_answers", "kept_then_sent"]

#: The order of a turn whose results the thread lists in their calls' order (the order
#: the results are given in), and of one it lists out of it.
_IN_CALL_ORDER = CallOrder()
_LISTED = CallOrder(unknown=LISTED_OUT_OF_ORDER)


class EarlierResult(NamedTuple):
    """One tool result of the thread: the tool, its call's id, its content, the turn it
    was read in, and the order of that turn's calls.

    `turn` is the turn of its call (how many user messages came before it); turns whose
    results the thread lists out of their calls' order count as one, the first of them,
    whose order is not known.
    """

    tool_name: str
    call_id: str
    content: object
    turn: int
    order: CallOrder


def earlier_results(
    messages: Iterable[object], counts: Callable[[str], bool]
) -> list[EarlierResult]:
    """Each tool result of `messages`, in the order the model issued the calls.

    `messages` are `ag_ui.core` messages or wire dicts (camelCase). A call's result is
    the content of the `tool` message naming its id; a result of no call the thread
    shows (no tool name) and a call without a result are passed over.

    An emitter that sends results as they finish may list them in another order than
    their calls: the model may have read them in call order when it answered, and reads
    them in the thread's order now. The turns of results of `counts` tools (the Reader's)
    listed so are one turn whose order is not known.

    Raises ValueError for an item that is no message (no role): what the model read
    there is not known.
    """
    calls: list[tuple[str, str, int]] = []  # (call id, tool name, turn), in the order issued
    contents: dict[str, object] = {}
    answered: list[str] = []  # call ids, in the order the thread gives their results
    turn = 0
    for message in messages:
        role = _field_any_case(message, "role", "role")
        if role is None:
            raise ValueError(f"the thread holds an item that is no message: {message!r:.80}")
        if role == "user":
            turn += 1
        elif role == "assistant":
            for call in _field_any_case(message, "tool_calls", "toolCalls") or ():
                call_id = _field_any_case(call, "id", "id")
                name = _field_any_case(
                    _field_any_case(call, "function", "function"), "name", "name"
                )
                if isinstance(call_id, str) and isinstance(name, str):
                    calls.append((call_id, name, turn))
        elif role == "tool":
            call_id = _field_any_case(message, "tool_call_id", "toolCallId")
            if isinstance(call_id, str) and call_id not in contents:
                contents[call_id] = _field_any_case(message, "content", "content")
                answered.append(call_id)
    results: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for call_id, name, call_turn in calls:
        if call_id in contents and call_id not in seen:
            seen.add(call_id)
            results.append((call_id, name, call_turn))
    read_as = listed_out_of_order(
        [(call_id, call_turn) for call_id, name, call_turn in results if counts(name)], answered
    )
    return [
        EarlierResult(name, call_id, contents[call_id], read_as[turn], _LISTED)
        if turn in read_as
        else EarlierResult(name, call_id, contents[call_id], turn, _IN_CALL_ORDER)
        for call_id, name, turn in results
    ]


def kept_then_sent(kept: Iterable[object], sent: Iterable[object]) -> list[object]:
    """The thread the model reads: the messages the framework keeps (wire dicts or
    `ag_ui.core` messages, in its order), then the client's `sent` messages it does not
    hold, so no result counts twice: a sent message whose id the kept thread holds is
    passed over, as are a sent assistant message's calls whose ids it holds and a sent
    tool message answering a call whose result it holds."""
    thread = list(kept)
    ids = {_field_any_case(message, "id", "id") for message in thread} - {None}
    calls, answered = _calls_and_answers(thread)
    for message in sent:
        if _field_any_case(message, "id", "id") in ids:
            continue
        role = _field_any_case(message, "role", "role")
        if role == "assistant":
            own = [
                call
                for call in _field_any_case(message, "tool_calls", "toolCalls") or ()
                if _field_any_case(call, "id", "id") not in calls
            ]
            thread.append({"role": "assistant", "toolCalls": own})
        elif (
            role != "tool" or _field_any_case(message, "tool_call_id", "toolCallId") not in answered
        ):
            thread.append(message)
    return thread


def kept_then_answers(kept: Iterable[object], sent: Iterable[object]) -> list[object]:
    """The thread the model reads where the framework keeps it and takes from the client
    only its new turns (ADK's session, a Strands agent's own messages, Agent Framework's
    thread store): the kept messages (wire dicts or `ag_ui.core` messages, in its order),
    then the client's `sent` results of calls the kept thread made and left unanswered
    (a frontend tool's). Any other message of `sent` the kept thread lacks (a turn the
    client dropped, edited or brought from another server) never reaches the model."""
    thread = list(kept)
    calls, answered = _calls_and_answers(thread)
    open_calls = calls - answered - {None}
    for message in sent:
        call_id = _field_any_case(message, "tool_call_id", "toolCallId")
        if _field_any_case(message, "role", "role") == "tool" and call_id in open_calls:
            open_calls.discard(call_id)
            thread.append(message)
    return thread


def _calls_and_answers(thread: list[object]) -> tuple[set[object], set[object]]:
    """The ids of the calls `thread`'s assistant messages make, and of those its tool
    messages answer."""
    calls: set[object] = set()
    answered: set[object] = set()
    for message in thread:
        role = _field_any_case(message, "role", "role")
        if role == "assistant":
            for call in _field_any_case(message, "tool_calls", "toolCalls") or ():
                calls.add(_field_any_case(call, "id", "id"))
        elif role == "tool":
            answered.add(_field_any_case(message, "tool_call_id", "toolCallId"))
    return calls, answered


def _field_any_case(value: Any, name: str, wire_name: str) -> Any:
    """A field of an `ag_ui.core` model (snake_case), or of a dict under its wire name
    (camelCase), else under its snake_case name (`follow._field` reads the wire name only)."""
    if isinstance(value, dict):
        return value.get(wire_name, value.get(name))
    return getattr(value, name, None)
