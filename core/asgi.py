"""`CitationMiddleware`: citations for any ASGI service that streams AG-UI events as SSE.

For AG-UI services that give no agent object to wrap (AG2's `AGUIStream`, Agno,
CrewAI, ...): one line around the app, pure ASGI, no web framework needed.

    app = CitationMiddleware(app, lookup=reader.get)
    app.add_middleware(CitationMiddleware, lookup=reader.get)  # Starlette, FastAPI
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Unpack

from .options import CitationOptions, OptionKeywords, names
from .run import CitationRun
from .stream.sse import SSECitations

__all__ = ["CitationMiddleware"]

logger = logging.getLogger("moca_agui")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
#: The longest request body whose thread is read (a thread of a few thousand turns).
MAX_REQUEST_BYTES = 32 * 1024 * 1024
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class CitationMiddleware:
    """Adds `moca.citations` events to every AG-UI run the app streams as SSE.

    A POST whose response is `text/event-stream` (and not compressed) is read event by
    event, each passed through `moca_agui.cite` and sent on as it arrives; `paths`, if
    given, limits this to requests for those exact paths. Everything else (other
    methods and content types, the protobuf encoding, websockets, lifespan) passes
    through untouched. `options` are those of `moca_agui.cite`.
    """

    def __init__(
        self, app: ASGIApp, *, paths: Iterable[str] | None = None, **options: Unpack[OptionKeywords]
    ) -> None:
        self.app = app
        self.paths = None if paths is None else names(paths, "paths")
        self.options = CitationOptions.from_kwargs(**options)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or (self.paths is not None and scope.get("path") not in self.paths)
        ):
            await self.app(scope, receive, send)
            return
        run = CitationRun(self.options)
        request = _Request(receive)
        response = _Response(send, run, request, f"POST {scope.get('path')}")
        try:
            with run.active():  # the app's numbered Reader tools number into this run
                await self.app(scope, request.receive, response.send)
        finally:
            await response.close()


class _Request:
    """The request's body as the app reads it, kept to read the thread's messages from
    (`RunAgentInput.messages`), up to MAX_REQUEST_BYTES."""

    __slots__ = ("_body", "_receive", "_size")

    def __init__(self, receive: Receive) -> None:
        self._receive = receive
        self._body: list[bytes] | None = []  # None: too long to keep
        self._size = 0

    async def receive(self) -> Message:
        message = await self._receive()
        if self._body is not None and message.get("type") == "http.request":
            chunk = message.get("body", b"")
            self._size += len(chunk)
            if self._size > MAX_REQUEST_BYTES:
                self._body = None
            elif chunk:
                self._body.append(chunk)
        return message

    def messages(self) -> list[Any]:
        """The thread's messages in the body the app read so far (none if it is not a
        `RunAgentInput`, or longer than MAX_REQUEST_BYTES)."""
        if self._body is None:
            logger.warning("moca_agui: the request is too long to read its thread; "
                           "citing from this run's results only")  # fmt: skip
            return []
        try:
            body = json.loads(b"".join(self._body))
        except (ValueError, RecursionError):
            return []
        messages = body.get("messages") if isinstance(body, dict) else None
        return messages if isinstance(messages, list) else []


class _Response:
    """One response on its way out: cited if it turns out to be an SSE stream."""

    __slots__ = ("_request", "_run", "_send", "_sse", "_where")

    def __init__(self, send: Send, run: CitationRun, request: _Request, where: str) -> None:
        self._send = send
        self._run = run
        self._request = request
        self._where = where
        self._sse: SSECitations | None = None

    async def send(self, message: Message) -> None:
        sse = self._sse
        if sse is not None and message["type"] == "http.response.body":
            body = await sse.feed(message.get("body", b""))
            more_body = message.get("more_body", False)
            if not more_body:
                body += await sse.end()
                self._sse = None
            if body or not more_body:
                message = {"type": "http.response.body", "body": body, "more_body": more_body}
                await self._send(message)
            return
        if message["type"] == "http.response.start" and self._is_sse(message.get("headers", ())):
            self._run.read_history(self._request.messages())
            self._sse = SSECitations(self._run, self._where)
            headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-length"]
            message = {**message, "headers": headers}
        await self._send(message)

    def _is_sse(self, headers: Iterable[tuple[bytes, bytes]]) -> bool:
        """Whether response headers announce an uncompressed `text/event-stream`."""
        content_type = encoding = b""
        for name, value in headers:
            key = name.lower()
            if key == b"content-type":
                content_type = value.split(b";", 1)[0].strip().lower()
            elif key == b"content-encoding":
                encoding = value.strip().lower()
        if content_type != b"text/event-stream":
            return False
        if encoding not in (b"", b"identity"):
            logger.warning(
                "moca_agui: not citing %s: its event stream is compressed (%s); add "
                "CitationMiddleware inside the middleware that compresses it",
                self._where,
                encoding.decode("latin-1"),
            )
            return False
        return True

    async def close(self) -> None:
        if self._sse is not None:
            self._sse.close()
            self._sse = None
