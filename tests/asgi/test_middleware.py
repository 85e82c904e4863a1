"""`moca_agui.asgi.CitationMiddleware` around real Starlette apps: the SSE stream of an
AG-UI run comes out exactly as `cite` makes it; everything else comes out untouched."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from ag_ui.core import BaseEvent, TextMessageChunkEvent
from ag_ui.encoder import EventEncoder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

import moca_agui
from moca_agui.asgi import CitationMiddleware
from moca_agui.check import check_events, parse_stream
from streams import message, run, tool_call
from support import (
    assert_valid_stream,
    citation_events,
    cited_as_shown,
    copied_answer,
    record,
    ref,
    types,
)

from .apps import chunked, cited_body, encoded, post, service, timeless

A, B = record("a.md"), record("b.md")
COMPACT = {"query": "q", "results": [{"ref": ref(B), "title": B["node"]["title"]}]}

#: Hand-made runs, each with citations to send: full records, a marker, a compact result
#: found by `lookup`, a non-Reader tool, chunked text, two messages.
RUNS = {
    "records and a marker": run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A, B]}),
        message("m1", f"As {ref(A)} says,", " and [2] too."),
    ),
    "compact result, lookup": run(
        tool_call("c1", "moca_search", COMPACT),
        tool_call("c2", "web_search", {"results": [A]}),
        message("m1", f"See {ref(B)}; not {ref(A)}."),
    ),
    "chunks and two messages": run(
        tool_call("c1", "moca_get_node", A),
        TextMessageChunkEvent(message_id="m1", role="assistant", delta=f"First {ref(A)}"),
        TextMessageChunkEvent(delta=" continued."),
        message("m2", "Again [1]."),
    ),
}
OPTIONS: dict[str, Any] = {"lookup": {ref(B): B}.get}


def wrapped(app: Starlette, how: str, **options: Any) -> Any:
    """`app` with the middleware, in one of the two ways the README shows."""
    if how == "add_middleware":
        app.add_middleware(CitationMiddleware, **options)
        return app
    return CitationMiddleware(app, **options)


BOTH_WAYS = pytest.mark.parametrize("how", ["add_middleware", "around"])


@BOTH_WAYS
@pytest.mark.parametrize("name", list(RUNS))
async def test_the_stream_is_what_cite_makes_of_the_same_events(how: str, name: str) -> None:
    events = RUNS[name]
    response = await post(wrapped(service(events), how, **OPTIONS))
    assert response.status_code == 200
    assert timeless(response.content) == timeless(await cited_body(events, **OPTIONS))
    stream = parse_stream(response.text)
    assert types(stream).count("CUSTOM:moca.citations") == len(citation_events(stream)) >= 1
    assert_valid_stream(stream)
    assert check_events(stream) == []
    headers = response.headers
    assert headers["content-type"].startswith("text/event-stream")
    assert (headers["x-trace"], headers["cache-control"]) == ("t-1", "no-cache")


async def test_what_each_citation_event_holds() -> None:
    response = await post(CitationMiddleware(service(RUNS["compact result, lookup"]), **OPTIONS))
    (value,) = citation_events(parse_stream(response.text))
    assert value["messageId"] == "m1"
    assert [c["record"] for c in value["citations"]] == [B]  # web_search's record left out


@BOTH_WAYS
async def test_the_content_length_is_dropped_and_the_body_cited(how: str) -> None:
    events = RUNS["records and a marker"]
    plain = await post(service(events), "/sized")
    assert plain.headers["content-length"] == str(len(encoded(events)))
    response = await post(wrapped(service(events), how), "/sized")
    assert "content-length" not in response.headers
    assert timeless(response.content) == timeless(await cited_body(events))


#: (method, path, request arguments): none of these is an AG-UI run's SSE answer.
UNTOUCHED = [
    ("GET", "/feed", {}),  # SSE, but a GET
    ("POST", "/json", {"json": {"a": [1, "data: x"]}}),
    ("POST", "/proto", {"content": b"\x00\x01"}),  # the protobuf encoding
    ("POST", "/gzip", {}),  # SSE, compressed
    ("GET", "/text", {}),
    ("POST", "/text", {"content": b"data: {}\n\n"}),
    ("GET", "/missing", {}),
]


@BOTH_WAYS
@pytest.mark.parametrize(("method", "path", "kwargs"), UNTOUCHED)
async def test_everything_else_passes_byte_for_byte(
    how: str, method: str, path: str, kwargs: dict[str, Any]
) -> None:
    events = RUNS["records and a marker"]
    responses = []
    for app in (service(events), wrapped(service(events), how)):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            responses.append(await client.request(method, path, **kwargs))
    plain, through = responses
    assert (through.status_code, through.headers.raw) == (plain.status_code, plain.headers.raw)
    assert through.content == plain.content


async def test_a_compressed_stream_passes_and_says_where_the_middleware_goes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        response = await post(CitationMiddleware(service(RUNS["records and a marker"])), "/gzip")
    assert response.headers["content-encoding"] == "gzip"
    (warning,) = caplog.records
    assert warning.getMessage() == (
        "moca_agui: not citing POST /gzip: its event stream is compressed (gzip); add "
        "CitationMiddleware inside the middleware that compresses it"
    )


async def test_paths_limits_the_watch_to_those_paths() -> None:
    events = RUNS["records and a marker"]
    app = CitationMiddleware(service(events), paths=["/other"])
    assert (await post(app, "/")).content == encoded(events)
    assert timeless((await post(app, "/other")).content) == timeless(await cited_body(events))


@pytest.mark.parametrize("scope_type", ["websocket", "lifespan"])
async def test_websockets_and_lifespan_reach_the_app_as_they_came(scope_type: str) -> None:
    seen: list[tuple[Any, Any, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append((scope, receive, send))

    async def receive() -> dict[str, Any]:
        return {}

    async def send(message: Any) -> None:
        pass

    scope = {"type": scope_type, "path": "/", "method": "POST"}
    await CitationMiddleware(app)(scope, receive, send)
    ((got_scope, got_receive, got_send),) = seen
    assert got_scope is scope and got_receive is receive and got_send is send


def test_the_typed_keywords_are_the_options() -> None:
    """`OptionKeywords` (what type checkers see of `**options`) names every option."""
    from dataclasses import fields

    from moca_agui.options import OptionKeywords

    assert set(OptionKeywords.__annotations__) == {
        f.name for f in fields(moca_agui.CitationOptions)
    }


def test_wrong_options_fail_when_the_middleware_is_made() -> None:
    with pytest.raises(TypeError, match="unknown moca_agui option"):
        CitationMiddleware(service([]), reader_tool=["x"])
    with pytest.raises(TypeError, match=r"paths must be a collection of strings, e.g. \['/'\]"):
        CitationMiddleware(service([]), paths="/")


async def test_a_service_that_cites_itself_is_not_cited_twice() -> None:
    events = RUNS["records and a marker"]
    once = await cited_body(events)
    response = await post(CitationMiddleware(chunked([once])))
    assert response.content == once


# -- what it cannot read -----------------------------------------------------------------


def _body(*parts: bytes | list[BaseEvent]) -> list[bytes]:
    return [part if isinstance(part, bytes) else encoded(part) for part in parts]


@pytest.mark.parametrize(
    "bad",
    [b"data: {not json\n\n", b'data: {"type": "NOT_AN_EVENT"}\n\n', b'data: {"delta": 1}\n\n'],
)
async def test_an_event_it_cannot_read_passes_and_citations_are_off(
    bad: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    events = RUNS["records and a marker"]
    chunks = _body(events[:6], bad, events[6:], bad)
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        response = await post(CitationMiddleware(chunked(chunks)))
    assert response.content == b"".join(chunks)  # untouched, and no citation event
    (warning,) = [r for r in caplog.records if r.levelno >= logging.WARNING]  # logged once
    assert "citations off for POST /" in warning.getMessage()


async def test_comments_and_other_fields_pass_and_the_run_is_cited() -> None:
    """Keep-alive comments, `retry:`, `id:`/`event:` lines and CRLF line ends (as
    sse-starlette writes) are SSE too: kept as they came, the run still cited."""
    events = RUNS["records and a marker"]
    crlf = [encoded([e]).replace(b"\n", b"\r\n") for e in events]
    crlf[2] = b"id: 7\r\nevent: message\r\n" + crlf[2]
    chunks = [b": ping\n\n", b"retry: 1000\n\n", *crlf[:5], b":\r\n\r\n", *crlf[5:]]
    response = await post(CitationMiddleware(chunked(chunks)))
    got, want = parse_stream(response.text), parse_stream((await cited_body(events)).decode())
    for stream in (got, want):
        (value,) = citation_events(stream)
        del value["computedAt"]
    assert got == want
    body = response.content
    assert body.startswith(b": ping\n\nretry: 1000\n\n" + crlf[0] + crlf[1] + crlf[2])
    assert body.count(b"\r\n") == b"".join(chunks).count(b"\r\n")  # each event as it came


_RECORDS_RUN = encoded(RUNS["records and a marker"])
BODIES = [_RECORDS_RUN, _RECORDS_RUN.replace(b"\n", b"\r\n")]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.sampled_from(BODIES), data=st.data())
def test_where_the_chunks_break_does_not_matter(body: bytes, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(1, len(body) - 1), max_size=12)))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    whole = asyncio.run(post(CitationMiddleware(chunked([body])))).content
    assert whole.count(b'"name":"moca.citations"') == 1
    split = asyncio.run(post(CitationMiddleware(chunked(chunks)))).content
    assert timeless(split.replace(b"\r\n", b"\n")) == timeless(whole.replace(b"\r\n", b"\n"))
    assert split.count(b"\r\n") == whole.count(b"\r\n")


@pytest.mark.parametrize("line_end", [b"\r\n", b"\r"], ids=["crlf", "cr"])
def test_a_cr_at_the_end_of_a_chunk_waits_for_the_next_byte(line_end: bytes) -> None:
    """A chunk may end between the CR and the LF of a CRLF: the event ends after the LF,
    so the citation event does not split it (hypothesis found a body cut there)."""
    body = _RECORDS_RUN.replace(b"\n", line_end)

    def lf(sent: bytes) -> bytes:
        return sent.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    whole = asyncio.run(post(CitationMiddleware(chunked([body])))).content
    for cut in [i + 1 for i in range(len(body)) if body[i : i + 1] == b"\r"]:
        split = asyncio.run(post(CitationMiddleware(chunked([body[:cut], body[cut:]])))).content
        assert timeless(lf(split)) == timeless(lf(whole)), cut
        assert (split.count(b"\r"), split.count(b"\n")) == (whole.count(b"\r"), whole.count(b"\n"))
    assert whole.count(b'"name":"moca.citations"') == 1


async def test_a_body_that_stops_mid_event_ends_as_it_came() -> None:
    """An unfinished run is cited at the end of the body, as cite does; the unfinished
    event after it flows out as it came (clients drop it)."""
    events = RUNS["records and a marker"]
    cut = encoded([events[-1]])[:-1]  # RUN_FINISHED without its blank line
    response = await post(CitationMiddleware(chunked([encoded(events[:-1]), cut])))
    assert response.content.endswith(cut)
    stream = parse_stream(response.content.removesuffix(cut).decode())
    assert types(stream)[-2:] == ["TEXT_MESSAGE_END", "CUSTOM:moca.citations"]


def test_the_middleware_needs_no_web_framework() -> None:
    blocked = "import sys; sys.modules.update(starlette=None, fastapi=None, anyio=None); "
    done = subprocess.run(
        [sys.executable, "-c", blocked + "from moca_agui.asgi import CitationMiddleware"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


async def test_options_reach_every_request_and_state_does_not() -> None:
    """Two requests at once on one middleware: each run is cited on its own."""
    first, second = RUNS["records and a marker"], RUNS["chunks and two messages"]
    app = Starlette(middleware=[Middleware(CitationMiddleware, include_text=False)])
    app.mount("/1", service(first))
    app.mount("/2", service(second))
    one, two = await asyncio.gather(post(app, "/1/"), post(app, "/2/"))
    assert timeless(one.content) == timeless(await cited_body(first, include_text=False))
    assert timeless(two.content) == timeless(await cited_body(second, include_text=False))
    (value,) = citation_events(parse_stream(one.text))
    assert value["citations"] and all("text" not in c["record"] for c in value["citations"])


async def test_a_citation_layer_that_breaks_costs_citations_not_the_stream(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Should making a run's citation events ever fail, the layer turns citations off,
    logs why, and the stream flows on as it came."""

    async def broken(self: Any) -> Any:
        raise RuntimeError("the citation events could not be made")
        yield  # an async generator, as `flush` is

    monkeypatch.setattr("moca_agui.stream.engine.Citing.flush", broken)
    body = encoded(RUNS["records and a marker"])
    with caplog.at_level(logging.ERROR, logger="moca_agui"):
        response = await post(CitationMiddleware(chunked([body])))
    assert response.content == body
    (error,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "citations off for POST /" in error.getMessage()
    assert "could not be made" in str(error.exc_info[1])


async def test_numbered_reader_tools_the_app_runs_number_into_the_requests_run() -> None:
    """`moca_agui.numbered` tools called by the app (here inside its event stream) show
    the model the markers this request's run assigns, and the event uses them."""

    @moca_agui.numbered
    def moca_search(query: str) -> dict[str, Any]:
        return {"query": query, "results": [A, B]}

    async def events() -> AsyncIterator[BaseEvent]:
        shown = moca_search(query="q")  # the text the model reads
        for event in run(
            tool_call("c1", "moca_search", shown), message("m1", copied_answer([shown]))
        ):
            yield event

    async def endpoint(request: Request) -> StreamingResponse:
        encoder = EventEncoder()
        body = (encoder.encode(event) async for event in events())
        return StreamingResponse(body, media_type="text/event-stream")

    for _ in range(2):  # each request numbers from [1] in its own run
        app = CitationMiddleware(Starlette(routes=[Route("/", endpoint, methods=["POST"])]))
        stream = parse_stream((await post(app)).text)
        (result,) = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
        assert [item["marker"] for item in json.loads(result["content"])["results"]] == [
            "[1]",
            "[2]",
        ]
        (value,) = citation_events(stream)
        answer = copied_answer([result["content"]])
        assert value["citations"] == cited_as_shown(answer, A, B)


async def test_an_event_that_never_ends_is_not_held_back(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Past MAX_PENDING_BYTES of one unfinished event, citations are off and the bytes
    flow on as they come: a broken stream costs no unbounded memory, and loses nothing."""
    monkeypatch.setattr("moca_agui.stream.sse.MAX_PENDING_BYTES", 1000)
    head = encoded(RUNS["records and a marker"][:3])
    chunks = [head, b'data: {"type":"TEXT_MESSAGE_CONTENT","delta":"' + b"x" * 600, b"y" * 600]
    chunks += [b"z" * 10, b'"}\n\n', encoded(RUNS["records and a marker"][3:])]
    sent: list[bytes] = []

    async def send(message: Any) -> None:
        if message["type"] == "http.response.body":
            sent.append(message["body"])

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        await CitationMiddleware(chunked(chunks))(scope, receive, send)
    assert b"".join(sent) == b"".join(chunks)  # as it came, no citation event
    assert sent[:3] == [head, chunks[1] + chunks[2], chunks[3]]  # nothing held back after
    (warning,) = caplog.records
    assert "an event ran past 1000 bytes without ending" in warning.getMessage()
