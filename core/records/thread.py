"""Typed messages of a thread a framework keeps, as `records.history` reads them.

An adapter whose framework keeps the thread server-side (a checkpoint, a session, an
agent's own messages) hands the run that thread in AG-UI's shape: the model's calls
(`calls_message`), each call's result (`result_message`) and the other turns
(`turn_message`). Only what the model was shown counts: ids, tool names, contents.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypedDict

__all__ = ["ThreadMessage", "calls_message", "result_message", "turn_message"]


class _Function(TypedDict):
    name: object


class _Call(TypedDict):
    id: object
    type: Literal["function"]
    function: _Function


class ThreadMessage(TypedDict, total=False):
    """One message of a kept thread, in AG-UI's wire shape (camelCase)."""

    id: object
    role: str
    toolCalls: list[_Call]
    toolCallId: object
    content: object


def calls_message(
    calls: Iterable[tuple[object, object]], message_id: object = None
) -> ThreadMessage:
    """An assistant message making `calls` ((call id, tool name), in the model's order)."""
    made = [
        _Call(id=call_id, type="function", function=_Function(name=name)) for call_id, name in calls
    ]
    return ThreadMessage(id=message_id, role="assistant", toolCalls=made)


def result_message(
    call_id: object, content: object, *, failed: bool = False, message_id: object = None
) -> ThreadMessage:
    """The result the model was shown of the call `call_id`. A `failed` call's (an error
    the model may retry on) holds no source: its content is not read."""
    return ThreadMessage(
        id=message_id, role="tool", toolCallId=call_id, content=None if failed else content
    )


def turn_message(role: str, message_id: object = None) -> ThreadMessage:
    """Any other message (`user` counts a turn; the rest hold no result)."""
    return ThreadMessage(id=message_id, role=role)
