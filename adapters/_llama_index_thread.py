"""The thread a LlamaIndex AG-UI client sends back, as its model read it.

LlamaIndex writes a tool's output into its MESSAGES_SNAPSHOT as `str()` of it: a dict's
Python repr (single quotes, True, None), not JSON, which the client sends back as the
tool message's content, and the core reads only JSON. Such a content is read back with
`ast.literal_eval` (literals only, never code): the workflow keeps no thread of its own
(each run takes the client's), so that text is the only copy of the output there is.

The snapshot lists a model response's results in the order they finished, the order its
model read them in then and reads them in now; the calls, in the order the model issued
them. The core would take a thread whose results and calls disagree as read in an order
not known, so the calls are listed here in the order of their results.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable
from typing import Any

from moca_agui.adapter import MAX_RESULT_CHARS, calls_message, result_message

__all__ = ["thread_read"]


def thread_read(messages: Iterable[Any]) -> list[Any]:
    """The thread the client sent, as the model read it: each tool result as the value
    the tool returned, each assistant message's calls in the order of their results.

    The client's messages are not changed: a message read differently is replaced by a
    thread message (`calls_message`, `result_message`) in the list handed to
    `read_history`.
    """
    messages = list(messages)
    answered: dict[object, int] = {}  # call id -> the place of its first result
    for n, message in enumerate(messages):
        if getattr(message, "role", None) == "tool":
            answered.setdefault(getattr(message, "tool_call_id", None), n)
    thread: list[Any] = []
    for message in messages:
        role, content = getattr(message, "role", None), getattr(message, "content", None)
        calls = getattr(message, "tool_calls", None) if role == "assistant" else None
        if calls:
            in_read_order = sorted(calls, key=lambda c: answered.get(c.id, len(messages)))
            thread.append(calls_message((call.id, call.function.name) for call in in_read_order))
            continue
        value = _literal(content) if role == "tool" else content
        if value is content:
            thread.append(message)
        else:
            tool_call_id = getattr(message, "tool_call_id", None)
            thread.append(result_message(tool_call_id, value))
    return thread


def _literal(content: object) -> object:
    """A tool message's content that is a dict's or a list's JSON or Python repr, as its
    value (parsed once: JSON fails on a repr at its first quote); anything else (text,
    content parts, what neither reads) as it is."""
    if not isinstance(content, str) or len(content) > MAX_RESULT_CHARS:
        return content
    if not content.startswith(("{", "[")):  # str() of a dict or a list; a text stays text
        return content
    try:
        return json.loads(content)  # a numbered tool's view, a tool that returns JSON text
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(content)
    except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
        return content
