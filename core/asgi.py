"""`CitationMiddleware`: citations for any ASGI service that streams AG-UI events as SSE.

For AG-UI services that give no agent object to wrap (AG2's `AGUIStream`, Agno,
CrewAI, ...): one line around the app, pure ASGI, no web framework needed.

    app = CitationMiddleware(app, lookup=reader.get)
    app.add_middleware(CitationMiddleware, lookup=reader.get)  # Starlette, FastAPI
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Unpack

from pydantic_core import from_json

from .options import CitationOptions, OptionKeywords, names
from .run import CitationRun
from .run.hooks import calls_in_model_order
from .stream.citation_stream import CitationStream
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
        self._threads = _Threads()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or (self.paths is not None and scope.get("path") not in self.paths)
        ):
            await self.app(scope, receive, send)
            return
        run = CitationRun(self.options)
        path = str(scope.get("path"))
        thread = _Thread(run, f"POST {path}")
        request = _Request(receive, self.options.max_request_bytes, thread.body_read)
        stream = CitationStream(run, question_id=request.question_id, where=thread.where)
        response = _Response(
            send, stream, request, thread, self._threads.begun(path), self._ordered(scope)
        )
        try:
            with stream.running():  # the app's numbered Reader tools number into its run
                await self.app(scope, request.receive, response.send)
        finally:
            stream.close()
            self._threads.end(run, response.thread)

    def _ordered(self, scope: Scope) -> Callable[[], bool]:
        """Whether the endpoint answering `scope` announces parallel calls in the model's
        order, asked once its response starts: Starlette's and FastAPI's routers have put
        the endpoint they chose in `scope["endpoint"]` by then (else, or when it is this
        middleware, mounted on a route, the endpoint is the app it wraps)."""

        def ordered() -> bool:
            endpoint = scope.get("endpoint")
            if endpoint is None or endpoint is self:
                endpoint = self.app
            return calls_in_model_order(scope, endpoint)

        return ordered


class _Threads:
    """The runs in flight, per path and thread id: where a numbered tool numbers when it is
    called, after its run ended, in a task that run started. A framework that keeps one
    worker per thread (the Claude Agent SDK's session worker, started by the thread's first
    run and kept for its later ones) calls the thread's tools there: they belong to the one
    run of that thread in flight. Two in flight at once (or none): not known, so the result
    is shown without numbers (`CitationRun.end`)."""

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        self._runs: dict[tuple[str, str], list[CitationRun]] = {}

    def begun(self, path: str) -> Callable[[CitationRun, str], tuple[str, str]]:
        """What registers a run of `path` once its thread id is read."""

        def begin(run: CitationRun, thread_id: str) -> tuple[str, str]:
            key = (path, thread_id)
            self._runs.setdefault(key, []).append(run)
            return key

        return begin

    def end(self, run: CitationRun, key: tuple[str, str] | None) -> None:
        if key is None:
            run.end()
            return
        runs = self._runs.get(key, [])
        if run in runs:
            runs.remove(run)
        if not runs:
            self._runs.pop(key, None)
        run.end(lambda: self._sole(key))

    def _sole(self, key: tuple[str, str]) -> CitationRun | None:
        runs = list(self._runs.get(key, ()))  # a tool may run in a thread of its own
        if len(runs) > 1:
            logger.warning(
                "moca_agui: %d runs of thread %s are in flight at once: a numbered tool "
                "called outside its run cannot be told apart",
                len(runs),
                key[1],
            )
        return runs[0] if len(runs) == 1 else None


class _Thread:
    """Reads the thread of the request's body into the run, once: as soon as the app has
    read the whole body (before it can call a numbered tool), or else when its response
    starts (an app that never read it all; a body not a JSON object, most likely no AG-UI
    run, which a response that is no event stream then never logs)."""

    __slots__ = ("_read", "_run", "where")

    def __init__(self, run: CitationRun, where: str) -> None:
        self._run = run
        self.where = where
        self._read = False

    def body_read(self, request: _Request) -> None:
        """The app read the body's last chunk."""
        if request.tells_the_thread():
            self.read(request)

    def read(self, request: _Request) -> None:
        if self._read:
            return
        self._read = True
        messages = request.messages()
        if isinstance(messages, str):
            self._run.thread_unreadable(f"{messages} ({self.where})")
        else:
            self._run.read_history(messages)


class _Request:
    """The request's body as the app reads it, kept to read the thread's messages from
    (`RunAgentInput.messages`), up to `max_request_bytes`; `on_read` is called with it
    once the app has read the body's last chunk."""

    __slots__ = ("_body", "_limit", "_on_read", "_parsed", "_receive", "_size")

    def __init__(self, receive: Receive, limit: int, on_read: Callable[[_Request], None]) -> None:
        self._receive = receive
        self._limit = limit
        self._on_read = on_read
        self._body: list[bytes] | None = []  # None: too long to keep
        self._size = 0
        self._parsed: tuple[dict[str, Any] | None] | None = None  # (the body read), once read

    async def receive(self) -> Message:
        message = await self._receive()
        if self._body is not None and message.get("type") == "http.request":
            chunk = message.get("body", b"")
            self._size += len(chunk)
            if self._size > self._limit:
                self._body = None
            elif chunk:
                self._body.append(chunk)
        if message.get("type") == "http.request" and not message.get("more_body", False):
            self._on_read(self)
        return message

    def messages(self) -> list[Any] | str:
        """The thread's messages in the body the app read so far, or why they cannot be
        read: over the limit, not a JSON object (cut, say), or not a list."""
        if self._body is None:
            return (
                f"the request's body is over max_request_bytes ({self._limit} bytes); "
                "raise that option to read longer threads"
            )
        body = self._read()
        if body is None:
            return "the request's body is not a JSON object (malformed or cut)"
        messages = body.get("messages", [])  # none: not a `RunAgentInput`, no thread
        if not isinstance(messages, list):
            return "the request's messages are not a list"
        return messages

    def tells_the_thread(self) -> bool:
        """Whether the body read so far is a JSON object or over the limit: it holds the
        thread's messages or says why they cannot be read."""
        return self._body is None or self._read() is not None

    def question_id(self) -> str | None:
        """The id of the run's question: the last user message of the body read so far."""
        messages = self.messages()
        for message in reversed(messages if isinstance(messages, list) else []):
            if isinstance(message, dict) and message.get("role") == "user":
                found = message.get("id")
                return found if isinstance(found, str) else None
        return None

    def thread_id(self) -> str | None:
        """The `RunAgentInput`'s thread id, if the body read so far has one."""
        body = self._read() if self._body is not None else None
        thread_id = body.get("threadId") if body is not None else None
        return thread_id if isinstance(thread_id, str) else None

    def _read(self) -> dict[str, Any] | None:
        """The body read so far as a JSON object, or None."""
        if self._parsed is None:
            try:
                # Once, at 2-3x json.loads' speed; no string of a run kept past the run.
                body = from_json(b"".join(self._body or ()), cache_strings="keys")
            except (ValueError, RecursionError):
                body = None
            self._parsed = (body if isinstance(body, dict) else None,)
        return self._parsed[0]


class _Response:
    """One response on its way out: cited if it turns out to be an SSE stream."""

    __slots__ = ("_begin", "_ordered", "_request", "_send", "_sse", "_stream", "_thread", "thread")

    def __init__(
        self,
        send: Send,
        stream: CitationStream,
        request: _Request,
        thread: _Thread,
        begin: Callable[[CitationRun, str], tuple[str, str]],
        ordered: Callable[[], bool],
    ) -> None:
        self._send = send
        self._stream = stream
        self._request = request
        self._thread = thread
        self._begin = begin
        self._sse: SSECitations | None = None
        #: The run's path and thread id, once its stream began (None: not a thread's run).
        self.thread: tuple[str, str] | None = None
        self._ordered = ordered  # whether the endpoint keeps the model's order of calls

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
            return
        if message["type"] == "http.response.start" and self._is_sse(message.get("headers", ())):
            run = self._stream.run
            if not self._ordered():
                run.calls_out_of_order()
            self._thread.read(self._request)
            thread_id = self._request.thread_id()
            if thread_id is not None and self.thread is None:
                self.thread = self._begin(run, thread_id)
            self._sse = SSECitations(self._stream, self._thread.where)
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
                self._thread.where,
                encoding.decode("latin-1"),
            )
            return False
        return True
