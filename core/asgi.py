"""`CitationMiddleware`: citations for any ASGI service that streams AG-UI events as SSE.

For AG-UI services that give no agent object to wrap (AG2's `AGUIStream`, Agno,
CrewAI, ...): one line around the app, pure ASGI, no web framework needed.

    app = CitationMiddleware(app, lookup=reader.get)
    app.add_middleware(CitationMiddleware, lookup=reader.get)  # Starlette, FastAPI
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from functools import partial
from typing import Any, NamedTuple, Unpack

from pydantic_core import from_json

from .context import NumberingRun
from .options import CitationOptions, OptionKeywords, names
from .run import CitationRun
from .run.ending import Ending
from .run.hooks import calls_in_model_order
from .run.registry import RunRegistry
from .stream.citation_stream import CitationStream, running
from .stream.sse import SSECitations

__all__ = ["ASGIApp", "CitationMiddleware", "Message", "Receive", "Scope", "Send"]

logger = logging.getLogger("moca_agui")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
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
        #: The runs whose stream began, by path and thread id (`_Exchange.end`).
        self.threads: RunRegistry[CitationRun] = RunRegistry("thread")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or (self.paths is not None and scope.get("path") not in self.paths)
        ):
            await self.app(scope, receive, send)
            return
        exchange = _Exchange(self, scope, receive, send)
        try:
            with running(exchange.numbering):  # the app's numbered Reader tools number into its run
                await self.app(scope, exchange.receive, exchange.send)
        finally:
            exchange.returned()

    def ordered(self, scope: Scope) -> bool:
        """Whether the endpoint answering `scope` announces parallel calls in the model's
        order, asked once its response starts: Starlette's and FastAPI's routers have put
        the endpoint they chose in `scope["endpoint"]` by then (else, or when it is this
        middleware, mounted on a route, the endpoint is the app it wraps)."""
        endpoint = scope.get("endpoint")
        if endpoint is None or endpoint is self:
            endpoint = self.app
        return calls_in_model_order(scope, endpoint)


class _Thread(NamedTuple):
    """A thread of one path: runs of one thread id on two paths are two agents' runs."""

    path: str
    thread_id: str

    def __str__(self) -> str:
        return self.thread_id


class _Exchange:
    """One request on its way in and its response on its way out, cited if the response
    turns out to be an SSE stream: the request's body as the app reads it (to read the
    thread's messages from, `RunAgentInput.messages`, up to `max_request_bytes`), the
    run, its stream and where they are registered.

    The thread is read into the run once: as soon as the app has read the whole body
    (before it can call a numbered tool), or else when its response starts (an app that
    never read it all; a body not a JSON object, most likely no AG-UI run, which a
    response that is no event stream then never logs).

    It ends as soon as its event stream has (`end`), while the app that sent it may still
    run (it returns only once its request task resumes): its run is freed then, so
    concurrent requests do not hold finished runs for the garbage collector to find.
    """

    __slots__ = (
        "__weakref__",
        "_after",
        "_body",
        "_middleware",
        "_parsed",
        "_receive",
        "_scope",
        "_send",
        "_size",
        "_sse",
        "_thread",
        "_thread_read",
        "numbering",
        "run",
        "stream",
        "where",
    )

    def __init__(
        self, middleware: CitationMiddleware, scope: Scope, receive: Receive, send: Send
    ) -> None:
        self._middleware = middleware
        self._scope = scope
        self._receive = receive
        self._send = send
        self.where = f"POST {scope.get('path')}"
        run = CitationRun(middleware.options)
        # Its stream asks for the question through a weak proxy: the bound method would
        # make the exchange, its stream and run a cycle, left for the garbage collector.
        question_id = partial(_Exchange.question_id, weakref.proxy(self))
        stream = CitationStream(run, question_id=question_id, where=self.where)
        self.run: CitationRun | None = run  # None once the exchange ended
        self.stream: CitationStream | None = stream
        #: What the app's numbered tools number through (the tasks it starts hold it).
        self.numbering = _Numbering(stream)
        self._body: list[bytes] | None = []  # None: too long to keep
        self._size = 0
        self._parsed: tuple[dict[str, Any] | None] | None = None  # (the body read), once read
        self._thread_read = False
        self._sse: SSECitations | None = None
        self._thread: _Thread | None = None  # registered under, in `CitationMiddleware.threads`
        #: The run a numbered tool called after the app returned belongs to (`returned`).
        self._after: Callable[[], CitationRun | None] | None = None

    async def receive(self) -> Message:
        message = await self._receive()
        if message.get("type") == "http.request":
            if self._body is not None:
                chunk = message.get("body", b"")
                self._size += len(chunk)
                if self._size > self._middleware.options.max_request_bytes:
                    self._body = None
                elif chunk:
                    self._body.append(chunk)
            if not message.get("more_body", False):
                self._body_read()
        return message

    async def send(self, message: Message) -> None:
        sse = self._sse
        if sse is not None and message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            body = await sse.feed(chunk)
            more_body = message.get("more_body", False)
            if not more_body:
                body += await sse.end()
                self._sse = None
            elif body is chunk:  # sent as it came
                await self._send(message)
                return
            if body or not more_body:
                message = {"type": "http.response.body", "body": body, "more_body": more_body}
                await self._send(message)
            if not more_body:
                self.end()
            return
        if message["type"] == "http.response.start" and self._is_sse(message.get("headers", ())):
            self._stream_begins()
            headers = [(k, v) for k, v in message["headers"] if k.lower() != b"content-length"]
            message = {**message, "headers": headers}
        await self._send(message)

    def end(self) -> None:
        """The exchange is over (its event stream ended, or else the app returned): its
        stream closes and its run leaves the registries, held here no longer. A numbered
        tool the app (or a task of its) calls before it returns shows no numbers: the
        response it could number into is sent."""
        stream, run, middleware = self.stream, self.run, self._middleware
        if stream is None or run is None:  # ended already
            return
        self.stream = self.run = None
        stream.close()
        after = None if self._thread is None else partial(middleware.threads.get, self._thread)
        if self._thread is not None:
            middleware.threads.remove(self._thread, run)
        current = stream.run
        run.end(after)
        self._after = after if current is run else None
        self.numbering.end(None)

    def returned(self) -> None:
        """The app returned: the exchange ends, if its event stream did not end it. A
        numbered tool called later, in a task the app started, numbers into the sole run
        of its thread in flight (a worker kept per thread, as the Claude Agent SDK's
        session worker, calls the thread's tools there), else shows no numbers."""
        self.end()
        self.numbering.end(self._after)

    def question_id(self) -> str | None:
        """The id of the run's question: the last user message of the body read so far."""
        messages = self._messages()
        for message in reversed(messages if isinstance(messages, list) else []):
            if isinstance(message, dict) and message.get("role") == "user":
                found = message.get("id")
                return found if isinstance(found, str) else None
        return None

    def _body_read(self) -> None:
        """The app read the body's last chunk: the run reads the thread, if the body tells
        it (a JSON object, or over the limit)."""
        if self._body is None or self._read() is not None:
            self._read_thread()

    def _stream_begins(self) -> None:
        """The response is an event stream: the run learns whether the endpoint keeps the
        model's order of calls, reads the thread and is registered under it."""
        run, stream = self.run, self.stream
        if run is None or stream is None:  # ended: a response after the one it cited
            return
        if not self._middleware.ordered(self._scope):
            run.calls_out_of_order()
        self._read_thread()
        body = self._read() if self._body is not None else None
        thread_id = body.get("threadId") if body is not None else None
        if isinstance(thread_id, str) and self._thread is None:
            self._thread = _Thread(str(self._scope.get("path")), thread_id)
            self._middleware.threads.add(self._thread, run)
        self._sse = SSECitations(stream, self.where)

    def _read_thread(self) -> None:
        run = self.run
        if self._thread_read or run is None:  # read, or the run is over
            return
        self._thread_read = True
        messages = self._messages()
        if isinstance(messages, str):
            run.thread_unreadable(f"{messages} ({self.where})")
        else:
            run.read_history(messages)

    def _messages(self) -> list[Any] | str:
        """The thread's messages in the body the app read so far, or why they cannot be
        read: over the limit, not a JSON object (cut, say), or not a list."""
        if self._body is None:
            return (
                "the request's body is over max_request_bytes "
                f"({self._middleware.options.max_request_bytes} bytes); "
                "raise that option to read longer threads"
            )
        body = self._read()
        if body is None:
            return "the request's body is not a JSON object (malformed or cut)"
        messages = body.get("messages", [])  # none: not a `RunAgentInput`, no thread
        if not isinstance(messages, list):
            return "the request's messages are not a list"
        return messages

    def _read(self) -> dict[str, Any] | None:
        """The body read so far as a JSON object, or None (also when over the limit)."""
        if self._body is None:
            return None
        if self._parsed is None:
            try:
                # Once, at 2-3x json.loads' speed; no string of a run kept past the run.
                body = from_json(b"".join(self._body), cache_strings="keys")
            except (ValueError, RecursionError):
                body = None
            self._parsed = (body if isinstance(body, dict) else None,)
        return self._parsed[0]

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
                self.where,
                encoding.decode("latin-1"),
            )
            return False
        return True


class _Numbering:
    """What the app's numbered tools number through while it runs (the run context): the
    exchange's stream, until the exchange ends; then the run a later call belongs to, as
    an ended run's own calls do (`Ending`). The tasks the app starts keep this, not the
    run, which is freed with its stream."""

    __slots__ = ("_ending", "_stream")

    def __init__(self, stream: CitationStream) -> None:
        self._stream: CitationStream | None = stream
        self._ending: Ending[NumberingRun] = Ending()

    @property
    def run(self) -> CitationRun | None:
        """The stream's current run (`CitationRun.current()`); None once the exchange ended."""
        stream = self._stream  # read once: a tool's thread may see the exchange end
        return None if stream is None else stream.run

    def numbered(self, tool_name: str, result: object) -> object:
        """What the model reads of a result of `tool_name` (`CitationStream.numbered`)."""
        stream = self._stream
        if stream is not None:
            return stream.numbered(tool_name, result)
        later = self._ending.run_after(self, tool_name)
        return result if later is None else later.numbered(tool_name, result)

    def end(self, after: Callable[[], CitationRun | None] | None) -> None:
        """The exchange ended (again, once the app returned): a later call numbers into
        `after()`, or not at all."""
        self._ending.end(after)  # first: a call that no longer finds the stream finds this
        self._stream = None
