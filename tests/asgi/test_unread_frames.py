"""The middleware reads only what the citations need: an event they never read passes as
its bytes, unparsed, and a text delta is read for its message id and text alone."""

from __future__ import annotations

from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder

from moca_agui.asgi import CitationMiddleware
from moca_agui.check import parse_stream
from streams import message, run, tool_call
from support import citation_events, record, ref

from .apps import chunked, cited_body, post, timeless

A, B = record("a.md"), record("b.md")
EVENTS = run(
    tool_call("c1", "moca_search", {"query": "q", "results": [A, B]}),
    message("m1", f"As {ref(A)} says,", " and [2] too."),
)


def frames(events: list[BaseEvent]) -> list[bytes]:
    encoder = EventEncoder()
    return [encoder.encode(event).encode() for event in events]


async def cited_values(chunks: list[bytes]) -> list[dict[str, object]]:
    """The citation values the middleware sends for `chunks`, less their time; checks the
    chunks themselves pass as they came."""
    response = await post(CitationMiddleware(chunked(chunks)))
    body = response.content
    for chunk in chunks:
        assert chunk in body
    values = citation_events(parse_stream(response.text))
    for value in values:
        value.pop("computedAt", None)
    return values


async def expected() -> list[dict[str, object]]:
    values = citation_events(parse_stream((await cited_body(EVENTS)).decode()))
    for value in values:
        value.pop("computedAt", None)
    return values


async def test_events_the_citations_never_read_pass_unparsed() -> None:
    """A state delta and a tool call's arguments carry no answer text and name no tool:
    their bytes pass as they came, not parsed, so a field AG-UI would refuse there does
    not turn citations off."""
    unread = [
        b'data: {"type":"STATE_DELTA","delta":"not a JSON patch"}\n\n',
        b'data: {"type":"TOOL_CALL_ARGS","toolCallId":7,"delta":"{}"}\n\n',
    ]
    chunks = frames(EVENTS)
    chunks[1:1] = unread
    chunks.insert(-2, unread[0])
    assert await cited_values(chunks) == await expected() != []


async def test_a_text_delta_is_read_for_its_message_and_text_alone() -> None:
    """The delta naming [2] has a timestamp AG-UI would refuse: its text is still read
    (the marker is cited), as the citations read nothing else of it."""
    chunks = frames(EVENTS)
    (at,) = [n for n, chunk in enumerate(chunks) if b"[2]" in chunk]
    chunks[at] = chunks[at].replace(
        b'{"type":"TEXT_MESSAGE_CONTENT",', b'{"type":"TEXT_MESSAGE_CONTENT","timestamp":"soon",'
    )
    assert b'"timestamp":"soon"' in chunks[at]
    values = await cited_values(chunks)
    assert values == await expected()
    assert "[2]" in [c.get("marker") for v in values for c in v["citations"]]


async def test_a_frame_naming_two_types_is_read_as_the_client_reads_it() -> None:
    """A hostile frame names an unread type first and a text delta last: JSON parsers keep
    the last, so the client shows its text; the citations read it as that text too."""
    chunks = frames(EVENTS)
    [last_delta] = [i for i, chunk in enumerate(chunks) if b"[2] too." in chunk]
    assert chunks[last_delta].startswith(b'data: {"type":"TEXT_MESSAGE_CONTENT",')
    chunks[last_delta] = b'data: {"type":"STATE_DELTA",' + chunks[last_delta][len(b"data: {") :]
    assert await cited_values(chunks) == await expected() != []


async def test_an_event_whose_first_byte_comes_alone_is_read_whole() -> None:
    """A chunk of one byte, then the rest of RUN_FINISHED: the event is read once whole,
    and the run's citation events go before it, as `cite` sends them."""
    chunks = frames(EVENTS)
    assert b"RUN_FINISHED" in chunks[-1]
    chunks[-1:] = [chunks[-1][:1], chunks[-1][1:]]
    response = await post(CitationMiddleware(chunked(chunks)))
    assert timeless(response.content) == timeless(await cited_body(EVENTS))
