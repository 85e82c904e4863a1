"""`cite` on an AG-UI stream in its SSE wire form, one body chunk at a time.

Each whole `data:` event is read into an `ag_ui.core` event and handed to `cite`; what
`cite` sends back is that same event, sometimes after citation events. The event leaves
as the bytes it came in as (its `id:`, `event:` lines and spacing kept); only the
citation events are encoded here, by `ag_ui.encoder.EventEncoder`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import BaseEvent, Event
from ag_ui.encoder import EventEncoder
from pydantic import TypeAdapter

from ._run import CitationRun
from ._stream import cite

__all__ = ["SSECitations"]

logger = logging.getLogger("moca_agui")

_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
#: An SSE line ends in CRLF, LF or a lone CR; an event ends at an empty line.
_LINE_END = re.compile(rb"\r\n|\r(?!\n)|\n")
_BLANK_LINE = re.compile(rb"(?:\r\n|\r(?!\n)|\n){2}")
#: How much of one unfinished event is held back before citations are turned off and the
#: bytes flow on as they come: a stream that never ends an event costs no unbounded memory.
MAX_PENDING_BYTES = 64 * 1024 * 1024


class SSECitations:
    """Cites one response's SSE body: `feed` each chunk, send what it returns, then `end`.

    An event that does not read as an AG-UI event flows on as it came, and citations are
    off for the rest of the response (logged once): its text could be part of an answer.
    """

    __slots__ = ("_cited", "_encoder", "_inbox", "_rest", "_where")

    def __init__(self, run: CitationRun, where: str) -> None:
        self._inbox = _Inbox()
        self._cited: AsyncIterator[BaseEvent] | None = cite(self._inbox, run=run)
        self._encoder = EventEncoder()
        self._rest = b""  # the start of an event whose end has not arrived
        self._where = where  # names the response in log lines, e.g. "POST /agent"

    async def feed(self, chunk: bytes) -> bytes:
        """The bytes to send for `chunk`: each whole event in it, after its citation events."""
        if self._cited is None:  # citations are off: the bytes flow on as they come
            rest, self._rest = self._rest, b""
            return rest + chunk if rest else chunk
        buffer = self._rest + chunk if self._rest else chunk
        out: list[bytes] = []
        if b"\r" not in buffer:  # the encoders' own form: LF line ends
            *events, self._rest = buffer.split(b"\n\n")
            for event in events:
                await self._take(event, out)
                out.append(b"\n\n")
        else:
            self._rest = await self._events(buffer, out, last=False)
        if len(self._rest) > MAX_PENDING_BYTES and self._cited is not None:
            await self._off("an event ran past %d bytes without ending", MAX_PENDING_BYTES)
        if self._cited is None:  # off (now or in this chunk): hold nothing back
            out.append(self._rest)
            self._rest = b""
        return b"".join(out)

    async def end(self) -> bytes:
        """The bytes to send when the body ends: the run's last citation events, if it
        never finished, then any unfinished event as it came (clients drop it)."""
        out: list[bytes] = []
        if self._cited is not None and b"\r" in self._rest:  # a CR was last: its event ends
            self._rest = await self._events(self._rest, out, last=True)
        cited, self._cited = self._cited, None
        if cited is not None:
            self._inbox.closed = True
            try:
                out.extend([self._encoded(event) async for event in cited])
            except Exception:
                logger.exception("moca_agui: no citations sent for %s", self._where)
                out.clear()
        out.append(self._rest)
        self._rest = b""
        return b"".join(out)

    async def close(self) -> None:
        """Stop citing (the response was cut off or failed): closes `cite`'s stream."""
        cited, self._cited = self._cited, None
        if cited is not None:
            await cited.aclose()  # type: ignore[attr-defined]

    async def _events(self, buffer: bytes, out: list[bytes], *, last: bool) -> bytes:
        """Take each whole event of `buffer` (any line ends) into `out`; the rest back.

        A CR that ends a chunk may be the first half of a CRLF the next chunk ends, so
        it ends an event only when it is the body's `last` byte.
        """
        start = 0
        for end in _BLANK_LINE.finditer(buffer):
            if not last and end.end() == len(buffer) and buffer.endswith(b"\r"):
                break
            await self._take(buffer[start : end.start()], out)
            out.append(end.group())
            start = end.end()
        return buffer[start:]

    async def _take(self, event: bytes, out: list[bytes]) -> None:
        """Append `event` (without its blank line) to `out`, after its citation events."""
        cited = self._cited
        if cited is not None and (data := _data(event)) is not None:
            try:
                parsed = _EVENT.validate_json(data)
            except ValueError:
                await self._off("it cannot read the event %.200r", data)
            else:
                self._inbox.event = parsed
                extras: list[bytes] = []
                try:  # cite sends the event back last, after its citation events
                    while (sent := await cited.__anext__()) is not parsed:
                        extras.append(self._encoded(sent))
                except Exception:
                    logger.exception(
                        "moca_agui: citations off for %s; the stream flows on", self._where
                    )
                    await self.close()
                else:
                    out.extend(extras)
        out.append(event)

    def _encoded(self, event: BaseEvent) -> bytes:
        return self._encoder.encode(event).encode()

    async def _off(self, reason: str, *args: object) -> None:
        logger.warning(
            "moca_agui: citations off for %s, the stream flows on unchanged: " + reason,
            self._where,
            *args,
        )
        await self.close()


def _data(event: bytes) -> bytes | None:
    """The data of one SSE event (its `data:` lines joined), or None if it has none."""
    if event[:6] == b"data: " and b"\n" not in event and b"\r" not in event:
        return event[6:]  # one line, as every AG-UI encoder writes it
    lines = [
        line[5:].removeprefix(b" ")
        for line in _LINE_END.split(event)
        if line.startswith(b"data:") or line == b"data"
    ]
    return b"\n".join(lines) if lines else None


class _Inbox:
    """What `cite` reads: the one event it was just given, until the body ends."""

    __slots__ = ("closed", "event")

    def __init__(self) -> None:
        self.event: BaseEvent | None = None
        self.closed = False

    def __aiter__(self) -> _Inbox:
        return self

    async def __anext__(self) -> BaseEvent:
        event, self.event = self.event, None
        if event is not None:
            return event
        if self.closed:
            raise StopAsyncIteration
        raise RuntimeError("cite asked for an event before it sent back the one it was given")
