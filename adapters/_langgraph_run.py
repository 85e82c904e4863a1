"""One LangGraph run seen by moca_agui: its Reader's tool outputs and its answers' text.

The AG-UI events of ag-ui-langgraph lose part of what a tool returned: TOOL_CALL_RESULT
carries only a `content_and_artifact` tool's content, and flattens a list of content
blocks (an MCP tool's result) into one string. So the tool outputs are read from the
LangGraph events instead, in `prepare_stream` (`watch`), and handed to the run's
`LangGraphRun`, which it finds in the agent's `RunRegistry` by the run's id.
So is the order the model issued its calls (each model response's `tool_calls`), which
numbers the results: TOOL_CALL_START gives it only when the model streams.

A model that does not stream writes no TEXT_MESSAGE events: its answers exist only in
MESSAGES_SNAPSHOT; `is_new_message` tells the stream which of a snapshot's messages are
this run's (not in the input, nor in the thread's checkpoint).

The thread the model reads is the checkpoint's messages, then the input's messages the
checkpoint does not hold (ag-ui-langgraph's `langgraph_default_merge_state`): a client
may send only its new messages. So the run reads its history from both, once
`prepare_stream` has seen the checkpoint (`thread`).

An edited question or a regenerate forks the thread instead (`prepare_regenerate_stream`):
the model reads the checkpoint before that question, then the question, and nothing else
the client sent; the run numbers that thread (`forked_before`), never the discarded branch.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ag_ui.core import BaseEvent, RunAgentInput
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import Command

from moca_agui.adapter import (
    RunFeed,
    ThreadMessage,
    calls_message,
    result_message,
    tap,
    turn_message,
)

__all__ = ["LangGraphRun"]

logger = logging.getLogger("moca_agui")

#: (tool name, what it returned, its call id, whether it failed) of a tool that ended.
_Output = tuple[str, object, str | None, bool]


@dataclass(slots=True)
class Watched:
    """What `prepare_stream` saw of one run."""

    #: Ids of the messages the thread held before the run (its checkpoint).
    before: set[str]
    #: The checkpoint's messages, which the model reads before the input's new ones.
    thread: list[Any] = field(default_factory=list)
    #: Whether `thread` is a fork's, which the model reads alone (no input message after it).
    forked: bool = False
    #: (tool call id, tool name) of each call a model response made, in its order.
    calls: deque[tuple[str, str]] = field(default_factory=deque)
    #: Each tool that ended, not yet taken by the run.
    outputs: deque[_Output] = field(default_factory=deque)


def _watch(agent_state: Any, prepared: dict[str, Any], fork: tuple[Any, ...]) -> Watched:
    """Record the run's earlier messages and the thread its model reads (the checkpoint's,
    or, with `fork` (the question it is forked before), the fork's), and watch its
    LangGraph events for tool outputs."""
    values = getattr(agent_state, "values", None)
    messages = values.get("messages", []) if isinstance(values, Mapping) else []
    watched = Watched(
        {message.id for message in messages if getattr(message, "id", None)}, list(messages)
    )
    if fork:
        # The fork's checkpoint (`prepared["state"]`), then the question it is forked before.
        watched.thread, watched.forked = [*prepared["state"]["messages"], *fork], True
    if prepared.get("stream") is not None:
        prepared["stream"] = tap(prepared["stream"], partial(_keep, watched))
    return watched


def _keep(watched: Watched, event: Any) -> None:
    """Keep the tool calls of a model response and the tool outputs of an `on_tool_end`
    LangGraph event for the run to take."""
    kind = event.get("event") if isinstance(event, Mapping) else None
    if kind == "on_tool_end":
        watched.outputs.extend(_tool_outputs(event))
    elif kind == "on_chat_model_end":
        # The response's own list of calls: the order the model issued them, which
        # TOOL_CALL_START does not give when the model does not stream (it comes with
        # each result, as the calls finish).
        output = event.get("data", {}).get("output")
        for call in getattr(output, "tool_calls", None) or ():
            if call.get("id") and call.get("name"):
                watched.calls.append((call["id"], call["name"]))


def _tool_outputs(event: Mapping[str, Any]) -> Iterator[_Output]:
    """(tool name, what it returned, its call id, whether it failed) for each tool message
    of an `on_tool_end` event."""
    output = event.get("data", {}).get("output")
    if isinstance(output, Command):
        update = output.update
        messages = update.get("messages", []) if isinstance(update, Mapping) else []
    else:
        messages = [output]
    for message in messages:
        if not isinstance(message, ToolMessage):
            continue
        name = message.name or event.get("name") or ""
        output = (
            message.content if message.artifact is None else unwrapped_artifact(message.artifact)
        )
        yield name, output, message.tool_call_id, message.status == "error"


def unwrapped_artifact(artifact: object) -> object:
    """An artifact's records: langchain-mcp-adapters wraps an MCP tool's structured content."""
    if isinstance(artifact, Mapping) and artifact.keys() == {"structured_content"}:
        return artifact["structured_content"]
    return artifact


def _wire(message: object) -> ThreadMessage:
    """A LangChain message as the run reads a thread's message."""
    if isinstance(message, AIMessage):
        calls = [(call.get("id"), call.get("name")) for call in message.tool_calls]
        return calls_message(calls, message.id)
    if isinstance(message, ToolMessage):
        content: object = message.content
        if message.artifact is not None:
            content = unwrapped_artifact(message.artifact)
        failed = message.status == "error"
        return result_message(message.tool_call_id, content, failed=failed, message_id=message.id)
    role = getattr(message, "type", "")
    return turn_message("user" if role == "human" else role, getattr(message, "id", None))


def _kept(watched: Watched) -> Iterator[ThreadMessage]:
    """The checkpoint's thread, read as `read_history` asks for it."""
    for message in watched.thread:
        yield _wire(message)


class LangGraphRun:
    """One LangGraph run as its watched events feed its run (`feed`, a `RunFeed`).

    Once the run's tool outputs are watched, TOOL_CALL_RESULT content (the same output,
    cut down) is not read (`RunFeed.results_captured`).
    """

    def __init__(self, feed: RunFeed, input: RunAgentInput) -> None:
        self.feed = feed
        self._input = list(input.messages or ())
        self._input_ids = {message.id for message in self._input}
        self._watched: Watched | None = None
        self._fork: tuple[Any, ...] = ()  # the question a regenerate forks the thread before
        self._first = True
        self._alive = True

    def forked_before(self, question: Any) -> None:
        """This run forks the thread before `question` (a LangChain message)."""
        self._fork = (question,)

    def watch(self, agent_state: Any, prepared: dict[str, Any]) -> None:
        """Watch the run `prepare_stream` prepared: its checkpoint and LangGraph events."""
        self._watched = _watch(agent_state, prepared, self._fork)
        self.feed.results_captured()

    def take(self, event: BaseEvent) -> None:
        """Take in the tool outputs and calls watched up to `event`, the run's next event."""
        if not self._alive:
            return
        try:
            if self._first:  # `prepare_stream` has run by the first event, if at all
                self._first = False
                self._read_thread()  # before any result
            if self._watched is not None:
                calls, outputs = self._watched.calls, self._watched.outputs
                while calls:
                    self.feed.call_made(*calls.popleft())
                while outputs:
                    name, output, call_id, failed = outputs.popleft()
                    self.feed.capture(name, output, tool_call_id=call_id, failed=failed)
        except Exception:
            logger.exception("moca_agui: stopped reading LangGraph tool outputs in this run")
            self._alive = False

    def _read_thread(self) -> None:
        """Read the thread the model reads: the checkpoint's, then the input's new messages;
        a fork's alone (a checkpoint that cannot be read fails closed: `read_history`).
        A run `prepare_stream` never found (another run in flight under its id) saw no
        checkpoint: the input alone may be part of the thread, so none of it is numbered."""
        watched = self._watched
        if watched is None:
            self.feed.thread_unreadable("LangGraph's checkpoint of this run was not seen")
        else:
            self.feed.read_history([] if watched.forked else self._input, kept=_kept(watched))

    def is_new_message(self, message_id: str) -> bool:
        """Whether a snapshot's message is of this run: the thread did not hold it before."""
        before = self._watched.before if self._watched is not None else ()
        return message_id not in self._input_ids and message_id not in before
