"""One way to follow an AG-UI stream: as the reference client, `@ag-ui/client`, reads it.

`cite`, `moca-agui check` and `moca_agui.client.Conversation` follow a stream through a
`Follower`, so they cannot disagree on which message an event belongs to. The rules are
those of `@ag-ui/client` 1.0 (its `transformChunks`, then its `defaultApplyEvents`):

- A message's id and role come from its TEXT_MESSAGE_START, or from the first
  TEXT_MESSAGE_CHUNK of a chunked message; no role means "assistant". An id seen before
  (a reopened message, one a snapshot named) keeps the role it had.
- A TEXT_MESSAGE_CHUNK without `messageId` continues the open chunked message. Any other
  event closes that message, except RAW, ACTIVITY_SNAPSHOT, ACTIVITY_DELTA,
  REASONING_ENCRYPTED_VALUE, the SUBAGENT_* events and event types this library does not
  know; a chunk with another `messageId`, a TOOL_CALL_CHUNK or a CUSTOM event close it too.
  A chunk without `messageId` when no chunked message is open belongs to no message
  (`@ag-ui/client` rejects it: "First TEXT_MESSAGE_CHUNK must have a messageId").
- MESSAGES_SNAPSHOT names messages (id, role, text, our key of their `metadata`) and the
  tools of their tool calls.
- TOOL_CALL_START, or the first TOOL_CALL_CHUNK of a call, names the call's tool.
- RUN_STARTED, RUN_FINISHED, RUN_ERROR and MESSAGES_SNAPSHOT close an open chunked message.

One difference, on purpose: AG-UI 1.0 subagents (`subagentRunId`) each have their own lane
of open chunks in `@ag-ui/client`; here all events share one lane.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from ..records.event import EVENT_NAME, METADATA_KEY

__all__ = ["Follower", "StreamSink"]

#: Event types that close an open chunked message (`transformChunks` in @ag-ui/client).
_CLOSES_CHUNK = frozenset(
    {
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "STATE_SNAPSHOT", "STATE_DELTA", "CUSTOM", "STEP_STARTED", "STEP_FINISHED",
        "THINKING_START", "THINKING_END", "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END",
        "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END", "REASONING_END",
        "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT",
    }
)  # fmt: skip


class StreamSink:
    """What a `Follower` reports, one call per fact; each method does nothing by default."""

    def run_started(self) -> None:
        """A RUN_STARTED."""

    def message_opened(self, message_id: str, role: str) -> None:
        """A TEXT_MESSAGE_START, or the first chunk of a chunked message (reopened ids too)."""

    def text(self, message_id: str, delta: str) -> None:
        """Text of a message, from TEXT_MESSAGE_CONTENT or a chunk."""

    def message_closed(self, message_id: str) -> None:
        """A TEXT_MESSAGE_END, or the end of a chunked message (before the event that ends it)."""

    def tool_call(self, tool_call_id: str, tool_name: str) -> None:
        """A TOOL_CALL_START, or the first TOOL_CALL_CHUNK of a call."""

    def tool_result(self, tool_call_id: str, tool_name: str | None, content: object) -> None:
        """A TOOL_CALL_RESULT; `tool_name` None for a call the stream did not name.

        `content` is a string, or content parts as plain data (`{"type": "text", ...}`).
        """

    def snapshot_started(self) -> None:
        """A MESSAGES_SNAPSHOT: the client's messages are replaced by those that follow."""

    def snapshot_message(
        self, message_id: str, role: str, content: object, tool_call_id: str | None
    ) -> None:
        """One message of a MESSAGES_SNAPSHOT, in its order."""

    def snapshot_citations(self, message_id: str, value: object) -> None:
        """A snapshot message's `metadata["moca.citations"]`, as sent (right after its
        `snapshot_message`)."""

    def snapshot_ended(self) -> None:
        """The last message of a MESSAGES_SNAPSHOT was reported."""

    def citations(self, value: object) -> None:
        """A CUSTOM `moca.citations` event's value, as sent."""

    def run_finished(self) -> None:
        """A RUN_FINISHED."""

    def run_error(self) -> None:
        """A RUN_ERROR."""

    def rejected(self, kind: str, reason: str) -> None:
        """An event `@ag-ui/client` rejects; it was not applied to any message."""

    def malformed(self, kind: str, reason: str) -> None:
        """An event whose fields are not what AG-UI says (not applied)."""


def _field(event: Any, name: str, wire_name: str) -> Any:
    """A field of an `ag_ui.core` event (snake_case attribute) or a wire dict (camelCase)."""
    if isinstance(event, dict):  # not Mapping: an ABC check would cost every event
        return event.get(wire_name)
    return getattr(event, name, None)


def _is_model(message: object) -> bool:
    """Whether `message` is a pydantic model (an `ag_ui.core` message): its fields are in
    its __dict__. Not isinstance: BaseModel's metaclass is an ABC's."""
    return hasattr(type(message), "__pydantic_fields__")


def _model_field(message: Any, name: str, wire_name: str) -> Any:
    """A field of a pydantic model, None if it has none: read from its __dict__. Through
    getattr, a field a message lacks (a user message's `tool_calls`) raises twice inside
    pydantic, and a snapshot repeats every message of the thread."""
    value = message.__dict__.get(name)
    if value is None and (extra := message.__pydantic_extra__):
        return extra.get(name)  # as getattr finds an extra field (`extra="allow"`)
    return value


def _plain(part: object) -> object:
    """A content part as plain data (`{"type": "text", "text": ...}`)."""
    return part.model_dump() if isinstance(part, BaseModel) else part


class Follower:
    """Follows one AG-UI stream and reports each fact to its `StreamSink`.

    Feed it every event in order: `ag_ui.core` events or wire dicts (camelCase). Its state
    is the stream's: the open chunked message or tool call, the role of each message id,
    the tool of each tool call id. O(1) per event, apart from a snapshot's messages.
    """

    __slots__ = ("_roles", "_sink", "_tools", "chunk")

    def __init__(self, sink: StreamSink) -> None:
        self._sink = sink
        #: The open chunked message or tool call: (kind, id), kind "text", "tool" or
        #: "reasoning"; None when nothing is open.
        self.chunk: tuple[str, str] | None = None
        self._roles: dict[str, str] = {}  # message id -> role
        self._tools: dict[str, str] = {}  # tool call id -> tool name

    def feed(self, event: object) -> None:
        """Take in the stream's next event."""
        kind = _field(event, "type", "type")
        if self.chunk is not None and kind in _CLOSES_CHUNK:
            self.close()
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event)

    def reads(self, kind: str) -> bool:
        """Whether an event of type `kind` tells it anything now: one it reads, or one that
        closes the open chunked message. Another may pass unfed (unparsed, even)."""
        return kind in _HANDLERS or (self.chunk is not None and kind in _CLOSES_CHUNK)

    def close(self) -> None:
        """End the open chunked message or tool call, as the stream's end does."""
        chunk, self.chunk = self.chunk, None
        if chunk is not None and chunk[0] == "text":
            self._sink.message_closed(chunk[1])

    def role_of(self, message_id: str) -> str:
        """The role of a message id: from its start, first chunk or a snapshot."""
        return self._roles.get(message_id, "assistant")

    def tool_name(self, tool_call_id: str) -> str | None:
        """The tool of a tool call id, if the stream named it."""
        return self._tools.get(tool_call_id)

    # -- the events --------------------------------------------------------------------

    def _run_started(self, event: Any) -> None:
        self._sink.run_started()

    def _run_finished(self, event: Any) -> None:
        self._sink.run_finished()

    def _run_error(self, event: Any) -> None:
        self._sink.run_error()

    def _message_id(self, event: Any, kind: str) -> str | None:
        message_id = _field(event, "message_id", "messageId")
        if isinstance(message_id, str):
            return message_id
        self._sink.malformed(kind, f"messageId is {type(message_id).__name__}, not a string")
        return None

    def _open(self, message_id: str, role: object) -> None:
        role = self._roles.setdefault(message_id, role if isinstance(role, str) else "assistant")
        self._sink.message_opened(message_id, role)

    def _text_start(self, event: Any) -> None:
        message_id = self._message_id(event, "TEXT_MESSAGE_START")
        if message_id is not None:
            self._open(message_id, _field(event, "role", "role"))

    def _text_content(self, event: Any) -> None:
        message_id = self._message_id(event, "TEXT_MESSAGE_CONTENT")
        delta = _field(event, "delta", "delta")
        if message_id is None:
            return
        if isinstance(delta, str):
            self._sink.text(message_id, delta)
        else:
            self._sink.malformed("TEXT_MESSAGE_CONTENT", "delta is not a string")

    def _text_end(self, event: Any) -> None:
        message_id = self._message_id(event, "TEXT_MESSAGE_END")
        if message_id is not None:
            self._sink.message_closed(message_id)

    def _continues(self, kind: str, chunk_id: object) -> str | None:
        """The id of the open chunk of `kind` this chunk continues; else closes what is open."""
        chunk = self.chunk
        if chunk is not None and chunk[0] == kind and (chunk_id is None or chunk_id == chunk[1]):
            return chunk[1]
        self.close()
        return None

    def _text_chunk(self, event: Any) -> None:
        message_id = _field(event, "message_id", "messageId")
        delta = _field(event, "delta", "delta")
        if not isinstance(message_id, str | None) or not isinstance(delta, str | None):
            self._sink.malformed("TEXT_MESSAGE_CHUNK", "messageId or delta is not a string")
            return
        continued = self._continues("text", message_id)
        if continued is None:
            if message_id is None:
                self._sink.rejected(
                    "TEXT_MESSAGE_CHUNK",
                    "a chunk without messageId, and no chunked message is open to continue",
                )
                return
            self.chunk = ("text", message_id)
            self._open(message_id, _field(event, "role", "role"))
            continued = message_id
        if delta is not None:
            self._sink.text(continued, delta)

    def _name_call(self, tool_call_id: object, tool_name: object) -> None:
        if isinstance(tool_call_id, str) and isinstance(tool_name, str):
            self._tools[tool_call_id] = tool_name
            self._sink.tool_call(tool_call_id, tool_name)

    def _tool_start(self, event: Any) -> None:
        self._name_call(
            _field(event, "tool_call_id", "toolCallId"),
            _field(event, "tool_call_name", "toolCallName"),
        )

    def _tool_chunk(self, event: Any) -> None:
        call_id = _field(event, "tool_call_id", "toolCallId")
        if self._continues("tool", call_id) is not None:
            return
        name = _field(event, "tool_call_name", "toolCallName")
        if not isinstance(call_id, str) or not isinstance(name, str):
            self._sink.rejected(
                "TOOL_CALL_CHUNK", "a first chunk without toolCallId or toolCallName"
            )
            return
        self.chunk = ("tool", call_id)
        self._name_call(call_id, name)

    def _reasoning_chunk(self, event: Any) -> None:
        message_id = _field(event, "message_id", "messageId")
        if self._continues("reasoning", message_id) is None:
            if isinstance(message_id, str):
                self.chunk = ("reasoning", message_id)
            else:
                self._sink.rejected("REASONING_MESSAGE_CHUNK", "a first chunk without messageId")

    def _tool_result(self, event: Any) -> None:
        call_id = _field(event, "tool_call_id", "toolCallId")
        if not isinstance(call_id, str):
            self._sink.malformed("TOOL_CALL_RESULT", "toolCallId is not a string")
            return
        content = _field(event, "content", "content")
        if isinstance(content, list):  # ag-ui-protocol 1.x content parts
            content = [_plain(part) for part in content]
        self._sink.tool_result(call_id, self._tools.get(call_id), content)

    def _snapshot(self, event: Any) -> None:
        messages = _field(event, "messages", "messages")
        self._sink.snapshot_started()
        for message in messages if isinstance(messages, list) else ():
            field = _model_field if _is_model(message) else _field
            message_id, role = field(message, "id", "id"), field(message, "role", "role")
            if not isinstance(message_id, str) or not isinstance(role, str):
                continue
            self._roles[message_id] = role  # a snapshot replaces the message, role included
            for call in field(message, "tool_calls", "toolCalls") or ():
                function = _field(call, "function", "function")
                call_id, name = _field(call, "id", "id"), _field(function, "name", "name")
                if isinstance(call_id, str) and isinstance(name, str):
                    self._tools[call_id] = name
            call_id = field(message, "tool_call_id", "toolCallId")
            self._sink.snapshot_message(
                message_id,
                role,
                field(message, "content", "content"),
                call_id if isinstance(call_id, str) else None,
            )
            metadata = field(message, "metadata", "metadata")
            if isinstance(metadata, dict) and METADATA_KEY in metadata:
                self._sink.snapshot_citations(message_id, metadata[METADATA_KEY])
        self._sink.snapshot_ended()

    def _custom(self, event: Any) -> None:
        if _field(event, "name", "name") == EVENT_NAME:
            self._sink.citations(_field(event, "value", "value"))


#: event type -> what a `Follower` does with it. The class's own functions, not a table of
#: bound methods each follower builds: that costs every stream, and ties the follower to
#: itself in a cycle only the garbage collector frees.
_HANDLERS: Mapping[str, Callable[[Follower, Any], None]] = {
    "RUN_STARTED": Follower._run_started,
    "TEXT_MESSAGE_START": Follower._text_start,
    "TEXT_MESSAGE_CONTENT": Follower._text_content,
    "TEXT_MESSAGE_END": Follower._text_end,
    "TEXT_MESSAGE_CHUNK": Follower._text_chunk,
    "TOOL_CALL_START": Follower._tool_start,
    "TOOL_CALL_CHUNK": Follower._tool_chunk,
    "TOOL_CALL_RESULT": Follower._tool_result,
    "REASONING_MESSAGE_CHUNK": Follower._reasoning_chunk,
    "MESSAGES_SNAPSHOT": Follower._snapshot,
    "CUSTOM": Follower._custom,
    "RUN_FINISHED": Follower._run_finished,
    "RUN_ERROR": Follower._run_error,
}
