"""The citing `AGUIStream`: its endpoint cites, its runs number calls in the model's order.

`citing(stream, options)` returns a shallow copy of the `AGUIStream` (sharing its agent
and its held turns) whose class has `CitingAGUIStream` mixed in first. Its `build_asgi()`
is the parent's endpoint behind `CitationMiddleware` with the instrument's options; its
`dispatch` adds `ModelOrder` to the turn's AG2 middleware, through a `TurnLink` pointed
at the run the citation middleware made for the request: the request's run context
(`request_run()`), which the middleware enters around the endpoint, per request. That is
AG2's one link: the run id AG2 hands `dispatch` is the client's, which requests in flight
may share, so no registry keyed by it could tell their runs apart. A user's own endpoint
calling `dispatch` behind their own `CitationMiddleware` is linked the same way.

A turn paused on a question to the client outlives its request: AG2 holds it, and the
request that answers the question resumes it, under its own run. The turn keeps the
middleware of the request that started it, so its `TurnLink` is kept, by the ids of the
questions it paused on (read off the exchange's last event, for as long as the turn
lives), and pointed at the run of the request answering one; between requests it points
at none. A resume is linked only if every question it answers is one its thread's live
turn asked (AG2 holds turns by thread, and ignores other answers), else its run's order
is unknown (logged): no marker is guessed. The link is pointed in the step AG2 takes the
turn in: a request that never reaches AG2 never holds it.

AG2 runs a paused turn on (a background subagent's question pauses it while the model
loop goes on), and a call announced before a pause may reach the wire after it: the link
keeps the turn's calls, as announced, and tells them all to each run it is pointed at (a
call whose result never reaches that run holds no entry there).

`ModelOrder.on_llm_call` sees each `ModelResponse` before AG2 starts its tools: it
announces the response's tool calls to the run in the order the model gave them
(`RunFeed.call_made`). The TOOL_CALL_START events that AG2's tool tasks send later,
in whatever order they run, then change nothing: a call is numbered where it was first
announced. The earlier turns' calls reach the run as the client recorded them from the
wire, so their order is taken as unknown (`RunFeed.calls_out_of_order`).
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import aclosing
from typing import Any, TypeVar

from ag2.ag_ui import AGUIStream
from ag2.annotations import Context
from ag2.events import BaseEvent, ModelResponse
from ag2.middleware import BaseMiddleware
from ag2.middleware.base import LLMCall, MiddlewareFactory
from ag_ui.core import RunAgentInput

from moca_agui import CitationOptions
from moca_agui.adapter import RunFeed, RunRegistry, citing_copy, options_of, request_run
from moca_agui.asgi import CitationMiddleware

__all__ = ["CitingAGUIStream", "ModelOrder", "citing"]

logger = logging.getLogger("moca_agui")

A = TypeVar("A")

#: Why a resumed turn's order is not known: no paused turn of this stream is linked.
RESUME_NOT_LINKED = (
    "a question this request answers was not asked by an AG2 turn the citing stream "
    "holds paused, so the resumed turn's calls are not announced to this run"
)


class CitingAGUIStream(AGUIStream):
    """An `AGUIStream` whose endpoint sends one `moca.citations` event per answer.

    Made by `moca_agui.instrument(stream)`, never constructed directly;
    `moca_agui.uninstrument` gives the stream it was made from.
    """

    #: The links of the live turns this stream carried, by the questions they paused on
    #: (AG2's interrupt ids); `citing` makes one per citing stream.
    moca_agui_asked: RunRegistry[TurnLink]

    def build_asgi(self) -> Any:
        """The parent's endpoint behind `CitationMiddleware` (the instrument's options), as
        a class of this module: AG2's own is declared to send calls as they finish, this
        one's runs know the model's order."""
        endpoint = super().build_asgi()
        # AG2's own endpoint class is declared unordered (ag2_plugin); this one, of this
        # module, is not: its runs learn the model's order from `ModelOrder`.
        ordered = type(endpoint.__name__, (endpoint,), {"__module__": __name__})
        middleware = CitationMiddleware(ordered)
        middleware.options = options_of(self)
        return middleware

    def dispatch(
        self,
        incoming: RunAgentInput,
        *,
        middleware: Iterable[MiddlewareFactory] = (),
        **kwargs: Any,
    ) -> AsyncIterator[str]:
        """The parent's run, with `ModelOrder` for the request's citation run, if any. The
        thread the client sends back holds earlier turns' calls in the wire's order, which
        may not be the model's: those turns' order is unknown to the run."""
        run = request_run()  # the request's own run: see the module's docstring
        if run is None:
            return super().dispatch(incoming, middleware=middleware, **kwargs)
        run.calls_out_of_order(this_run=False)
        started = TurnLink(run, incoming.thread_id)  # the link of a turn this request starts
        chunks = super().dispatch(incoming, middleware=[*middleware, started], **kwargs)
        return self._carrying(chunks, incoming, run, started)

    def _resumed(self, incoming: RunAgentInput, run: RunFeed) -> TurnLink | None:
        """The link of the paused turn whose questions `incoming` answers, pointed at
        `run`; None, and the run's order unknown, if any answer is to a question no live
        turn of its thread linked here asked, or the turn is carried by another request
        (AG2 then starts a turn anew, or refuses)."""
        if not incoming.resume:
            return None
        asked = self.moca_agui_asked
        links = {asked.get(entry.interrupt_id) for entry in incoming.resume}
        held = links.pop() if len(links) == 1 else None
        if held is None or held.thread_id != incoming.thread_id or not held.carry(run):
            run.order_not_known(RESUME_NOT_LINKED)
            return None
        return held

    async def _carrying(
        self,
        chunks: AsyncIterator[str],
        incoming: RunAgentInput,
        run: RunFeed,
        started: TurnLink,
    ) -> AsyncIterator[str]:
        """`chunks`, the request's exchange, which AG2 begins (taking a paused turn) when
        first read: the resumed turn's link is pointed at `run` right before. Its last event
        (before it reaches the client, who may answer at once) sets its turn down, linked by
        the questions it paused on."""
        resumed = self._resumed(incoming, run)
        carried = [link for link in (started, resumed) if link is not None]
        try:
            # AG2's dispatch is an async generator, typed as an iterator: closed as one.
            async with aclosing(chunks):  # type: ignore[type-var]
                async for chunk in chunks:
                    questions = _questions_if_last(chunk)
                    if questions is not None:
                        self._link(started if started.started else resumed, questions)
                        for link in carried:
                            link.set_down(run)
                    yield chunk
        finally:
            for link in carried:
                link.set_down(run)

    def _link(self, turn: TurnLink | None, questions: list[str]) -> None:
        """Keep the link of the turn (if linked) by the questions it paused on, for the
        requests that answer them."""
        if turn is not None:
            for question in questions:
                self.moca_agui_asked.add(question, turn)


def _questions_if_last(chunk: str) -> list[str] | None:
    """The ids of the questions an exchange's last event (RUN_FINISHED or RUN_ERROR)
    pauses its turn on; None for any other event. (A quoted type name inside a string
    value is escaped: only the events that may be last are parsed.)"""
    if '"RUN_FINISHED"' not in chunk and '"RUN_ERROR"' not in chunk:
        return None
    try:
        event = json.loads(chunk.removeprefix("data:"))
    except ValueError:
        logger.warning("moca_agui: an AG2 event could not be read; its turn is not linked")
        return None
    if not isinstance(event, dict) or event.get("type") not in ("RUN_FINISHED", "RUN_ERROR"):
        return None
    outcome = event.get("outcome")
    if not isinstance(outcome, dict) or outcome.get("type") != "interrupt":
        return []
    interrupts = outcome.get("interrupts")
    if not isinstance(interrupts, list):
        return []
    return [i["id"] for i in interrupts if isinstance(i, dict) and isinstance(i.get("id"), str)]


class TurnLink:
    """The citation run of the request carrying one AG2 turn (started on `thread_id`):
    the one that started it, then each that resumes it; none between them. It is the
    turn's middleware factory, which AG2 calls as the turn starts."""

    __slots__ = ("__weakref__", "calls", "run", "started", "thread_id")

    def __init__(self, run: RunFeed, thread_id: str) -> None:
        self.run: RunFeed | None = run
        self.thread_id = thread_id
        self.started = False  # AG2 started a turn with this link
        self.calls: list[tuple[str, str]] = []  # the turn's calls (id, tool), as announced

    def __call__(self, event: BaseEvent, context: Context) -> ModelOrder:
        self.started = True
        return ModelOrder(event, context, link=self)

    def call_made(self, call_id: str, tool_name: str) -> None:
        """The turn's model issued a call: kept, and told to the run carrying the turn."""
        self.calls.append((call_id, tool_name))
        if self.run is not None:
            self.run.call_made(call_id, tool_name)

    def carry(self, run: RunFeed) -> bool:
        """Point the paused turn at `run`, which resumes it, and tell it the turn's calls
        so far (their results may reach it); False if a request carries the turn."""
        if self.run is not None:
            return False
        self.run = run
        for call_id, tool_name in self.calls:
            run.call_made(call_id, tool_name)
        return True

    def set_down(self, run: RunFeed) -> None:
        """`run`'s exchange ended: the turn points at no run, if it pointed at that one."""
        if self.run is run:
            self.run = None


class ModelOrder(BaseMiddleware):
    """Announces each model response's tool calls to the turn's `link`, in the model's
    order."""

    def __init__(self, event: BaseEvent, context: Context, *, link: TurnLink) -> None:
        super().__init__(event, context)
        self._link = link

    async def on_llm_call(
        self, call_next: LLMCall, events: Sequence[BaseEvent], context: Context
    ) -> ModelResponse:
        response = await call_next(events, context)
        try:
            for call in response.tool_calls.calls:
                self._link.call_made(call.id, call.name)
        except Exception:
            logger.exception("moca_agui: could not read the order of AG2's tool calls")
        return response


def citing(stream: A, options: CitationOptions) -> A:
    """A copy of `stream` (an `AGUIStream`) that sends `moca.citations` events."""
    return citing_copy(stream, CitingAGUIStream, options, copy=_copy)


def _copy(stream: Any) -> Any:
    """A shallow copy of `stream`, with a registry of its own for the turns it carries."""
    twin = copy.copy(stream)
    twin.moca_agui_asked = RunRegistry("question")
    return twin
