"""The thread an ADK run's model reads, and the client's thread as its tools returned it.

ag-ui-adk keeps an ADK session per thread; the model reads the session's earlier turns
(unless its agents read only the current turn). ADK and ag-ui-adk wrap a function's value
that is not a dict as `{"result": value}`, in the session and in the JSON text of a tool
message: both are read back as the tool returned them, so a numbered view's markers count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event

from moca_agui.adapter import ThreadMessage, calls_message, result_message

__all__ = ["model_thread", "unwrapped"]

#: How a function's text wrapped as `{"result": text}` starts.
_WRAPPED = re.compile(r'\s*\{\s*"result"\s*:')


def model_thread(context: InvocationContext) -> Iterator[ThreadMessage]:
    """The session's earlier turns the model reads (`_session_thread`): all of them, or
    none where the run's agents read only the current turn (`include_contents="none"`).
    Where some of them do and others do not, the thread is not known: it raises when read
    (the run leaves its markers out)."""
    reads = {agent.include_contents for agent in _agents(context.agent)}
    if reads == {"none"}:
        return
    if "none" in reads:
        raise ValueError("some of the run's agents read the session, others only this turn")
    yield from _session_thread(context.session.events)


def _agents(agent: Any) -> Iterator[Any]:
    """The agents of a tree that build a model's contents (those with `include_contents`)."""
    if hasattr(agent, "include_contents"):
        yield agent
    for sub_agent in getattr(agent, "sub_agents", None) or ():
        yield from _agents(sub_agent)


def _session_thread(events: Iterable[Event]) -> Iterator[ThreadMessage]:
    """The session's function calls and responses as thread messages, in its order."""
    for event in events:
        if event.partial:
            continue
        calls = [(call.id, call.name) for call in event.get_function_calls()]
        if calls:
            yield calls_message(calls, event.id)
        for response in event.get_function_responses():
            yield result_message(response.id, _response_value(response.response))


def _response_value(response: object) -> object:
    """What a tool returned, from its ADK function response: ADK wraps a value that is
    not a dict as `{"result": value}` (a numbered view's text, say), and so does
    ag-ui-adk writing the client's earlier turns into a new session."""
    if isinstance(response, dict) and response.keys() == {"result"}:
        value = response["result"]
        if not isinstance(value, dict):
            return value
    return response


def _unwrapped_text(text: str) -> str:
    """A tool message's text as the tool returned it: ag-ui-adk sends a function's text
    as `{"result": text}` (ADK's function response), so a numbered view's markers sit one
    JSON text deeper."""
    if not _WRAPPED.match(text):  # no need to parse it
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and value.keys() == {"result"} and isinstance(value["result"], str):
        return str(value["result"])
    return text


def unwrapped(messages: Any) -> list[object]:
    """The client's thread with each tool result as the tool returned it (`_unwrapped_text`)."""
    thread: list[object] = []
    for message in messages:
        content = getattr(message, "content", None)
        if getattr(message, "role", None) == "tool" and isinstance(content, str):
            result = _unwrapped_text(content)
            if result is not content:
                message = message.model_copy(update={"content": result})
        thread.append(message)
    return thread
