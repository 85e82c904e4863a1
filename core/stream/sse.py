"""Citations for an AG-UI stream in its SSE wire form, one body chunk at a time.

Each whole `data:` event the citations read is parsed and pushed to the response's
`CitationStream`: into an `ag_ui.core` event, or, for a text delta, into its wire dict
(its fields are all that is read). An event they do not read (its type, in the bytes,
says so: a tool call's arguments, a state delta, ...) is not parsed. Each event leaves
as the bytes it came in as (its `id:`, `event:` lines and spacing kept), after the
citation events due before it, which are encoded here by `ag_ui.encoder.EventEncoder`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent, Event, EventType
from ag_ui.encoder import EventEncoder
from pydantic import TypeAdapter
from pydantic_core import from_json

from .citation_stream import CitationStream

__all__ = ["SSECitations"]

logger = logging.getLogger("moca_agui")

_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
#: An SSE line ends in CRLF, LF or a lone CR; an event ends at an empty line.
_LINE_END = re.compile(rb"\r\n|\r(?!\n)|\n")
_BLANK_LINE = re.compile(rb"(?:\r\n|\r(?!\n)|\n){2}")
#: How the data of an event starts as every AG-UI encoder writes it: its type first.
_TYPE_FIRST = b'{"type":"'
#: A second `type` key in it: the last one is the event's (`_type`).
_TYPE_KEY = b'"type"'
#: Every event type, as the bytes of its JSON string: one not among them is parsed (and
#: then does not read as an AG-UI event).
_TYPES = frozenset(kind.value.encode() for kind in EventType)
_TEXT_DELTA = b"TEXT_MESSAGE_CONTENT"
#: What is sent: bytes, or a view of the bytes a body chunk was read into.
Bytes = bytes | memoryview
#: The longest blank line (CRLF CRLF) less one: how far back an event's end that a chunk
#: completes can begin.
_OVERLAP = 3
#: How much of one unfinished event is held back before citations are turned off and the
#: bytes flow on as they come: a stream that never ends an event costs no unbounded memory.
MAX_PENDING_BYTES = 64 * 1024 * 1024


class SSECitations:
    """Cites one response's SSE body through `stream`: `feed` each chunk, send what it
    returns, then `end`.

    An event that does not read as an AG-UI event flows on as it came, and citations are
    off for the rest of the response (logged once): its text could be part of an answer.
    Linear in the body's size: each byte is searched for an event's end once, and held
    bytes are joined once, when their event ends.
    """

    __slots__ = ("_cr", "_encoder", "_held", "_size", "_stream", "_tail", "_where")

    def __init__(self, stream: CitationStream, where: str) -> None:
        self._stream: CitationStream | None = stream
        self._encoder = EventEncoder()
        self._held: list[bytes] = []  # the start of an event whose end has not arrived
        self._size = 0  # bytes held
        self._tail = b""  # the last bytes held: where an end a chunk completes may begin
        self._cr = False  # whether a CR came: then lines may end in CR or CRLF too
        self._where = where  # names the response in log lines, e.g. "POST /agent"

    async def feed(self, chunk: bytes) -> bytes:
        """The bytes to send for `chunk`: each whole event in it, after its citation events."""
        if self._stream is None:  # citations are off: the bytes flow on as they come
            return self._released() + chunk if self._held else chunk
        self._cr = self._cr or b"\r" in chunk
        if (
            not self._held
            and not self._cr
            and chunk.endswith(b"\n\n")
            and chunk.find(b"\n\n") == len(chunk) - 2
        ):
            return await self._one_event(chunk)  # as most servers send their events
        out: list[Bytes] = []
        await self._events(chunk, out, last=False)
        if self._size > MAX_PENDING_BYTES and self._stream is not None:
            self._off("an event ran past %d bytes without ending", MAX_PENDING_BYTES)
        if self._stream is None:  # off (now or in this chunk): hold nothing back
            out.append(self._released())
        return b"".join(out)

    async def _one_event(self, chunk: bytes) -> bytes:
        """The bytes to send for `chunk`, one whole event with nothing held before it:
        `chunk` itself, unless citation events go before it or it carries citations."""
        pushed = self._pushed(_data(chunk, 0, len(chunk) - 2))
        if pushed is None:  # most events: no coroutine, no copy
            return chunk
        out: list[Bytes] = []
        await self._sent(memoryview(chunk)[:-2], *pushed, out)
        out.append(b"\n\n")
        return b"".join(out)

    async def end(self) -> bytes:
        """The bytes to send when the body ends: the run's last citation events, if it
        never finished, then any unfinished event as it came (clients drop it)."""
        out: list[Bytes] = []
        if self._stream is not None and self._cr:  # a CR was last: its event ends
            await self._events(b"", out, last=True)
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                out.extend([self._encoded(event) async for event in stream.finish()])
            except Exception:
                logger.exception("moca_agui: no citations sent for %s", self._where)
        out.append(self._released())
        return b"".join(out)

    def close(self) -> None:
        """Stop citing (the response was cut off or failed)."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()

    def _released(self) -> bytes:
        held = b"".join(self._held)
        self._hold(b"")
        return held

    def _hold(self, rest: bytes) -> None:
        self._held = [rest] if rest else []
        self._size = len(rest)
        self._tail = rest[-_OVERLAP:]

    async def _events(self, chunk: bytes, out: list[Bytes], *, last: bool) -> None:
        """Take each event `chunk` ends into `out`, with its blank line; hold the rest.

        Only the new bytes (and the last few held) are searched, and what is held is
        joined once, when an event ends: linear in the body, however long an event.
        """
        window = self._tail + chunk
        blank = self._blank_line(window, 0, last=last)
        if blank is None:
            if chunk:
                self._held.append(chunk)
                self._size += len(chunk)
                self._tail = window[-_OVERLAP:]
            return
        buffer = b"".join([*self._held, chunk])
        offset = self._size - len(self._tail)  # where `window` starts in `buffer`
        start = 0
        found: tuple[int, int] | None = (offset + blank[0], offset + blank[1])
        view = memoryview(buffer)  # each event's bytes leave uncopied, joined once in `out`
        while found is not None and self._stream is not None:
            await self._take(view[start : found[0]], _data(buffer, start, found[0]), out)
            out.append(view[found[0] : found[1]])
            start = found[1]
            found = self._blank_line(buffer, start, last=last)
        self._hold(buffer[start:])

    def _blank_line(self, data: bytes, start: int, *, last: bool) -> tuple[int, int] | None:
        """Where the first blank line (an event's end) at or after `start` is, if any.

        A CR that ends the body so far may be the first half of a CRLF the next chunk
        ends, so it ends an event only when it is the body's `last` byte.
        """
        if not self._cr:  # the encoders' own form: LF line ends
            found = data.find(b"\n\n", start)
            return None if found < 0 else (found, found + 2)
        match = _BLANK_LINE.search(data, start)
        if match is None or (not last and match.end() == len(data) and data.endswith(b"\r")):
            return None
        return match.span()

    async def _take(self, event: Bytes, data: bytes | None, out: list[Bytes]) -> None:
        """Append `event` (without its blank line; its `data`) to `out`, after its citation
        events."""
        pushed = self._pushed(data)
        if pushed is None:
            out.append(event)
        else:
            await self._sent(event, *pushed, out)

    def _pushed(self, data: bytes | None) -> tuple[Any, AsyncIterator[Any]] | None:
        """Push the event whose data is `data` to the stream: the event pushed and what is
        to be sent for it, or None when the event goes on as it came, with nothing before
        it (most events; one the stream does not read is not parsed)."""
        stream = self._stream
        if stream is None or data is None:
            return None
        kind = _type(data)
        if kind is not None and kind != _TEXT_DELTA and not stream.reads(kind.decode()):
            return None  # nothing of it is read: not parsed
        try:
            parsed: Any = _delta(data) if kind == _TEXT_DELTA else _EVENT.validate_json(data)
        except ValueError:
            self._off("it cannot read the event %.200r", data)
            return None
        try:
            sent = stream.push(parsed)
        except Exception:
            self._failed()
            return None
        return None if sent is parsed else (parsed, sent)

    async def _sent(
        self, event: Bytes, parsed: Any, sent: AsyncIterator[Any], out: list[Bytes]
    ) -> None:
        """Append to `out` the citation events `sent` yields before `parsed`, then `event`
        (with the data of the snapshot `sent` ends with, if it carries citations)."""
        try:
            *due, last = [e async for e in sent]
            out.extend([self._encoded(e) for e in due if isinstance(e, BaseEvent)])
            if last is not parsed and isinstance(last, BaseEvent):  # a snapshot
                event = _with_data(event, last)  # its answers carry citations
        except Exception:
            self._failed()
        out.append(event)

    def _failed(self) -> None:
        """Citations off for the rest of the response; the failure being handled logged."""
        logger.exception("moca_agui: citations off for %s; the stream flows on", self._where)
        self.close()

    def _encoded(self, event: BaseEvent) -> bytes:
        return self._encoder.encode(event).encode()

    def _off(self, reason: str, *args: object) -> None:
        logger.warning(
            "moca_agui: citations off for %s, the stream flows on unchanged: " + reason,
            self._where,
            *args,
        )
        self.close()


def _with_data(event: Bytes, data: BaseEvent) -> bytes:
    """The SSE event `event` (without its blank line) with `data` as its data: its other
    lines (`id:`, `event:`) kept."""
    lines = [
        line
        for line in _LINE_END.split(bytes(event))
        if not (line.startswith(b"data:") or line == b"data")
    ]
    json = data.model_dump_json(by_alias=True, exclude_none=True).encode()
    return b"\n".join([*lines, b"data: " + json])


def _data(buffer: bytes, start: int, end: int) -> bytes | None:
    """The data of the SSE event `buffer[start:end]` (its `data:` lines joined), or None
    if it has none."""
    if (
        buffer.startswith(b"data: ", start)
        and buffer.find(b"\n", start, end) < 0
        and buffer.find(b"\r", start, end) < 0
    ):
        return buffer[start + 6 : end]  # one line, as every AG-UI encoder writes it
    event = buffer[start:end]
    lines = [
        line[5:].removeprefix(b" ")
        for line in _LINE_END.split(event)
        if line.startswith(b"data:") or line == b"data"
    ]
    return b"\n".join(lines) if lines else None


def _type(data: bytes) -> bytes | None:
    """The event type `data` names first, as every AG-UI encoder writes it, if it is one
    and the only `"type"` in it; else None (the event is parsed to be read: of two `type`
    keys, a JSON parser, the client's too, keeps the last)."""
    if not data.startswith(_TYPE_FIRST) or data.find(_TYPE_KEY, len(_TYPE_FIRST)) >= 0:
        return None
    kind = data[len(_TYPE_FIRST) : data.find(b'"', len(_TYPE_FIRST))]
    return kind if kind in _TYPES else None


def _delta(data: bytes) -> dict[str, Any]:
    """A TEXT_MESSAGE_CONTENT's wire dict: the stream reads its `messageId` and `delta`."""
    fields = from_json(data, cache_strings="keys")
    if not isinstance(fields, dict):
        raise ValueError("not a JSON object")
    return fields
