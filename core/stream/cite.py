"""`cite`: the stream middleware that adds `moca.citations` events to any AG-UI stream."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import TypeVar, Unpack

from ag_ui.core import BaseEvent, RunAgentInput, TextMessageContentEvent

from ..options import CitationOptions, OptionKeywords
from ..plugins.numbered import ACTIVE_RUN
from ..run import CitationRun
from .engine import CitationStream

__all__ = ["cite", "cited", "tap"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")


def cite(
    events: AsyncIterable[BaseEvent],
    *,
    input: RunAgentInput | None = None,
    run: CitationRun | None = None,
    **options: Unpack[OptionKeywords],
) -> AsyncIterator[BaseEvent]:
    """Yield `events` unchanged, in order, plus one `moca.citations` event per assistant
    message with text, after its last TEXT_MESSAGE_END (or chunk) and before RUN_FINISHED.

    `input` is the run's `RunAgentInput`: its messages are the thread the model reads, so
    markers count on from the earlier turns and an earlier source is cited with the
    record the Reader gives in this run (`lookup` asks it again); without it, the run
    knows only its own results; an answer a model did not stream, which only a
    MESSAGES_SNAPSHOT carries after the input's last user message, is cited too. `options`
    are those of `CitationOptions`
    (`reader_tools`, `include_text`, `lookup`, `packages`, ...). An adapter that also
    captures Reader results outside the stream passes its own `run` instead (a
    `moca_agui.adapter.CitationRun`). Nothing is
    sent after RUN_ERROR; if anything in the citation layer fails, it is logged and the
    events flow on untouched.
    """
    if run is not None and options:
        raise TypeError("pass either run= or options, not both: the run holds its options")
    if not isinstance(events, AsyncIterable):
        kind = type(events).__name__
        raise TypeError(f"cite() needs an async iterable of AG-UI events, not {kind}")
    run = run or CitationRun(CitationOptions.from_kwargs(**options))
    if input is None:
        return cited(events, CitationStream(run))
    run.read_history(input.messages or ())
    questions = [m.id for m in input.messages or () if getattr(m, "role", None) == "user"]
    return cited(events, CitationStream(run, question_id=questions[-1] if questions else None))


async def cited(
    events: AsyncIterable[BaseEvent], stream: CitationStream
) -> AsyncIterator[BaseEvent]:
    """Yield `events` through `stream`: each event after the citation events due before it,
    then those due when `events` ends. Closing it closes `events`.

    The stream makes each event with its run active, so numbered tools it calls (and tasks
    it starts) number into that run. Set only when another run (or none) is active, as
    when one task reads two streams in turn: one lookup per event.
    """
    iterator = aiter(events)
    active, activate = ACTIVE_RUN.get, ACTIVE_RUN.set
    outside = active()
    try:
        run = stream.run
        activate(run)
        # Most of a stream is its text deltas: each goes straight to the parts of its
        # message where the stream says it may (`delta_path`); every other event is fed.
        parts_of, parts = stream.delta_path()
        async for event in iterator:
            if type(event) is TextMessageContentEvent:
                fields = event.__dict__
                try:
                    message_id, delta = fields["message_id"], fields["delta"]
                except KeyError:  # built without validation: the stream says what is wrong
                    message_id = delta = None
                if type(delta) is str and (
                    message_id is parts_of or (type(message_id) is str and message_id == parts_of)
                ):
                    parts.append(delta)
                    yield event
                    if active() is not run:
                        activate(run)
                    continue
            if stream.feed(event):
                async for extra in stream.flush():
                    yield extra
            if stream.carries_sources:  # a snapshot: its answers carry their citations
                event = await stream.with_sources(event)
            run = stream.run
            parts_of, parts = stream.delta_path()
            yield event
            if active() is not run:  # the consumer's context, or a new run began
                activate(run)
        async for extra in stream.close():
            yield extra
    finally:
        stream.stop()  # a client that left leaves nothing of the run running
        ACTIVE_RUN.set(outside)
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


async def tap(stream: AsyncIterable[T], watch: Callable[[T], object]) -> AsyncIterator[T]:
    """Yield `stream` unchanged, calling `watch` on each item before it is yielded.

    For adapters that read a framework's own events on their way to its AG-UI emitter.
    A `watch` that raises is logged and the item still flows; closing the tap closes
    `stream`.
    """
    iterator = aiter(stream)
    try:
        async for item in iterator:
            try:
                watch(item)
            except Exception:
                logger.exception("moca_agui: could not read an event; it flows on unchanged")
            yield item
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()
