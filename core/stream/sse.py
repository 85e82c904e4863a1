"""Citations for an AG-UI stream in its SSE wire form, one body chunk at a time.

Each whole `data:` event is read into an `ag_ui.core` event and fed to the run's
`CitationStream`; the event leaves as the bytes it came in as (its `id:`, `event:` lines
and spacing kept), after the citation events due before it, which are encoded here by
`ag_ui.encoder.EventEncoder`.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from ag_ui.core import BaseEvent, Event
from ag_ui.encoder import EventEncoder
from pydantic import TypeAdapter

from ..plugins.numbered import ACTIVE_RUN
from ..run import CitationRun
from .engine import CitationStream

__all__ = ["SSECitations"]

logger = logging.getLogger("moca_agui")

_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
#: An SSE line ends in CRLF, LF or a lone CR; an event ends at an empty line.
_LINE_END = re.compile(rb"\r\n|\r(?!\n)|\n")
_BLANK_LINE = re.compile(rb"(?:\r\n|\r(?!\n)|\n){2}")
#: The longest blank line (CRLF CRLF) less one: how far back an event's end that a chunk
#: completes can begin.
_OVERLAP = 3
#: How much of one unfinished event is held back before citations are turned off and the
#: bytes flow on as they come: a stream that never ends an event costs no unbounded memory.
MAX_PENDING_BYTES = 64 * 1024 * 1024


class SSECitations:
    """Cites one response's SSE body: `feed` each chunk, send what it returns, then `end`.

    An event that does not read as an AG-UI event flows on as it came, and citations are
    off for the rest of the response (logged once): its text could be part of an answer.
    Linear in the body's size: each byte is held once and searched for an event's end once.
    """

    __slots__ = ("_cr", "_encoder", "_rest", "_scanned", "_stream", "_where")

    def __init__(self, run: CitationRun, where: str) -> None:
        self._stream: CitationStream | None = CitationStream(run)
        self._encoder = EventEncoder()
        self._rest = bytearray()  # the start of an event whose end has not arrived
        self._scanned = 0  # how much of `_rest` holds no event's end
        self._cr = False  # whether a CR came: then lines may end in CR or CRLF too
        self._where = where  # names the response in log lines, e.g. "POST /agent"

    async def feed(self, chunk: bytes) -> bytes:
        """The bytes to send for `chunk`: each whole event in it, after its citation events."""
        if self._stream is None:  # citations are off: the bytes flow on as they come
            return self._held() + chunk if self._rest else chunk
        self._rest += chunk
        self._cr = self._cr or b"\r" in chunk
        out: list[bytes] = []
        await self._events(out, last=False)
        if len(self._rest) > MAX_PENDING_BYTES and self._stream is not None:
            self._off("an event ran past %d bytes without ending", MAX_PENDING_BYTES)
        if self._stream is None:  # off (now or in this chunk): hold nothing back
            out.append(self._held())
        return b"".join(out)

    async def end(self) -> bytes:
        """The bytes to send when the body ends: the run's last citation events, if it
        never finished, then any unfinished event as it came (clients drop it)."""
        out: list[bytes] = []
        if self._stream is not None and self._cr:  # a CR was last: its event ends
            await self._events(out, last=True)
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                out.extend([self._encoded(event) for event in await stream.close()])
            except Exception:
                logger.exception("moca_agui: no citations sent for %s", self._where)
        out.append(self._held())
        return b"".join(out)

    def close(self) -> None:
        """Stop citing (the response was cut off or failed)."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.stop()

    def _held(self) -> bytes:
        held = bytes(self._rest)
        self._rest.clear()
        self._scanned = 0
        return held

    async def _events(self, out: list[bytes], *, last: bool) -> None:
        """Take each whole event held into `out`, with its blank line; keep the rest.

        A CR that ends the body so far may be the first half of a CRLF the next chunk
        ends, so it ends an event only when it is the body's `last` byte.
        """
        rest, start = self._rest, 0
        position = self._scanned
        while self._stream is not None:
            if not self._cr:  # the encoders' own form: LF line ends
                found = rest.find(b"\n\n", position)
                if found < 0:
                    break
                blank = (found, found + 2)
            else:
                match = _BLANK_LINE.search(rest, position)
                if match is None or (
                    not last and match.end() == len(rest) and rest.endswith(b"\r")
                ):
                    break
                blank = match.span()
            await self._take(bytes(rest[start : blank[0]]), out)
            out.append(bytes(rest[blank[0] : blank[1]]))
            start = position = blank[1]
        del rest[:start]
        self._scanned = max(0, len(rest) - _OVERLAP)

    async def _take(self, event: bytes, out: list[bytes]) -> None:
        """Append `event` (without its blank line) to `out`, after its citation events."""
        stream = self._stream
        if stream is not None and (data := _data(event)) is not None:
            try:
                parsed = _EVENT.validate_json(data)
            except ValueError:
                self._off("it cannot read the event %.200r", data)
            else:
                try:
                    if stream.feed(parsed):
                        out.extend([self._encoded(sent) for sent in await stream.flush()])
                    if ACTIVE_RUN.get() is not stream.run:  # a new run began in this response
                        ACTIVE_RUN.set(stream.run)
                except Exception:
                    logger.exception(
                        "moca_agui: citations off for %s; the stream flows on", self._where
                    )
                    self.close()
        out.append(event)

    def _encoded(self, event: BaseEvent) -> bytes:
        return self._encoder.encode(event).encode()

    def _off(self, reason: str, *args: object) -> None:
        logger.warning(
            "moca_agui: citations off for %s, the stream flows on unchanged: " + reason,
            self._where,
            *args,
        )
        self.close()


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
