"""`cite`: the stream middleware that adds `moca.citations` events to any AG-UI stream."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable
from contextlib import AbstractContextManager, nullcontext
from types import AsyncGeneratorType
from typing import TypeVar, Unpack, cast

from ag_ui.core import BaseEvent, RunAgentInput

from ..context import ACTIVE_RUN
from ..options import CitationOptions, OptionKeywords
from ..run import CitationRun
from .citation_stream import CitationStream

__all__ = ["cite", "cited", "tap"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")


def cite(
    events: AsyncIterable[BaseEvent],
    *,
    input: RunAgentInput | None = None,
    run: CitationRun | None = None,
    ended: Callable[[], object] | None = None,
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
    `moca_agui.adapter.CitationRun`), and `ended` to be called once the stream ended or
    was closed (as `cited` does: its run leaves its registry there). Nothing is
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
        return cited(events, CitationStream(run), ended=ended)
    run.read_history(input.messages or ())
    questions = [m.id for m in input.messages or () if getattr(m, "role", None) == "user"]
    question_id = questions[-1] if questions else None
    return cited(events, CitationStream(run, question_id=question_id), ended=ended)


async def cited(
    events: AsyncIterable[BaseEvent],
    stream: CitationStream,
    *,
    ended: Callable[[], object] | None = None,
) -> AsyncIterator[BaseEvent]:
    """Yield `events` through `stream`: what it sends for each event, then what it sends
    when `events` ends. Closing it closes `events`; `ended()` is called once it ended or
    was closed (an adapter's run leaves its registry there).

    `events` makes each event inside the stream's `running()` (entered again for a step
    the consumer makes from another context, a new task each time, say), so numbered
    tools it calls (and tasks it starts) number into the stream's run.
    """
    iterator = aiter(events)
    push, here = stream.push, ACTIVE_RUN.get
    # `async for` steps an async generator again after a break; any other iterator (one
    # with no `__aiter__`, say) is stepped through a generator of its own.
    direct = (
        cast(AsyncGenerator[BaseEvent, None], iterator)
        if isinstance(iterator, AsyncGeneratorType)
        else _stepped_in(nullcontext(), iterator)
    )
    elsewhere = _stepped_in(stream.running(), iterator)
    try:
        with stream.running():
            steps = direct  # the consumer steps from the stream's context: `async for`
            while True:
                async for event in steps:
                    sent = push(event)
                    if sent is event:  # most events: nothing else to send
                        yield event
                    else:
                        async for made in cast(AsyncIterator[BaseEvent], sent):
                            yield made
                    if (here() is stream) is not (steps is direct):
                        break  # the consumer moved from the stream's context or back to it
                else:
                    break
                steps = elsewhere if steps is direct else direct
            async for made in stream.finish():
                yield made
    finally:
        try:
            stream.close()  # a client that left leaves nothing of the run running
            await elsewhere.aclose()
            if direct is not iterator:
                await direct.aclose()
            close = getattr(iterator, "aclose", None)
            if close is not None:
                await close()
        finally:
            if ended is not None:
                ended()


async def _stepped_in(
    running: AbstractContextManager[None], events: AsyncIterator[T]
) -> AsyncGenerator[T, None]:
    """`events`, each step made inside `running`: the stream's run, for a consumer stepping
    from another context than the stream's (a new task each time, say)."""
    while True:
        try:
            with running:
                event = await anext(events)
        except StopAsyncIteration:
            return
        yield event


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
