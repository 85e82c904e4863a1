"""The citing `AGUIStream`: its endpoint cites, its runs number calls in the model's order.

`citing(stream, options)` returns a shallow copy of the `AGUIStream` (sharing its agent
and its held turns) whose class has `CitingAGUIStream` mixed in first. Its `build_asgi()`
is the parent's endpoint behind `CitationMiddleware` with the instrument's options; its
`dispatch` adds `ModelOrder` to the run's AG2 middleware, bound to the run the citation
middleware made for the request, which it finds by the run id of the `RunAgentInput` AG2
hands it, in the registry every endpoint the stream builds fills (`moca_agui_runs`).
Two requests in flight under one run id are never told apart: neither finds the other's
run, and a run whose id is shared knows no order of its calls (its markers that depend
on it are left out, logged). An endpoint of the user's own that calls `dispatch` behind
their own `CitationMiddleware` fills no registry of the stream's: its run is the
request's run context (`CitationRun.current()`).

`ModelOrder.on_llm_call` sees each `ModelResponse` before AG2 starts its tools: it
announces the response's tool calls to the run in the order the model gave them
(`CitationRun.call_made`). The TOOL_CALL_START events that AG2's tool tasks send later,
in whatever order they run, then change nothing: a call is numbered where it was first
announced. The earlier turns' calls reach the run as the client recorded them from the
wire, so their order is taken as unknown (`CitationRun.calls_out_of_order`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any, TypeVar, cast

from ag2.ag_ui import AGUIStream
from ag2.annotations import Context
from ag2.events import BaseEvent, ModelResponse
from ag2.middleware import BaseMiddleware, Middleware
from ag2.middleware.base import LLMCall, MiddlewareFactory

from moca_agui import CitationOptions
from moca_agui.adapter import CitationRun, RunRegistry, citing_copy, options_of
from moca_agui.asgi import CitationMiddleware

__all__ = ["CitingAGUIStream", "ModelOrder", "citing"]

logger = logging.getLogger("moca_agui")

A = TypeVar("A")


class CitingAGUIStream(AGUIStream):
    """An `AGUIStream` whose endpoint sends one `moca.citations` event per answer.

    Made by `moca_agui.instrument(stream)`, never constructed directly;
    `moca_agui.uninstrument` gives the stream it was made from.
    """

    #: The runs of the requests its endpoints cite, by run id (`citing` makes one per copy).
    moca_agui_runs: RunRegistry[CitationRun]

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
        middleware.runs = self.moca_agui_runs
        return middleware

    def dispatch(
        self,
        incoming: Any,
        *,
        middleware: Iterable[MiddlewareFactory] = (),
        **kwargs: Any,
    ) -> AsyncIterator[str]:
        """The parent's run, with `ModelOrder` for the request's citation run, if any. The
        thread the client sends back holds earlier turns' calls in the wire's order, which
        may not be the model's: those turns' order is unknown to the run."""
        run_id = getattr(incoming, "run_id", None)
        # An endpoint of the user's own, behind their own `CitationMiddleware`, whose
        # registry this stream cannot see: the request's run context is the one link.
        current = CitationRun.current()
        run = current
        # An id this stream's endpoint registered must find the request's own run; not when
        # runs in flight share it (on this endpoint or another one): this request's run
        # then knows no order of its calls (its markers left out).
        runs = self.moca_agui_runs
        if isinstance(run_id, str) and run_id in runs and runs.get(run_id) is not current:
            run = None
            if current is not None:
                current.calls_out_of_order()
        if run is not None:
            run.calls_out_of_order(this_run=False)
            middleware = [*middleware, Middleware(ModelOrder, run=run)]
        return super().dispatch(incoming, middleware=middleware, **kwargs)


class ModelOrder(BaseMiddleware):
    """Announces each model response's tool calls to `run`, in the model's order."""

    def __init__(self, event: BaseEvent, context: Context, *, run: CitationRun) -> None:
        super().__init__(event, context)
        self._run = run

    async def on_llm_call(
        self, call_next: LLMCall, events: Sequence[BaseEvent], context: Context
    ) -> ModelResponse:
        response = await call_next(events, context)
        try:
            for call in response.tool_calls.calls:
                self._run.call_made(call.id, call.name)
        except Exception:
            logger.exception("moca_agui: could not read the order of AG2's tool calls")
        return response


def citing(stream: A, options: CitationOptions) -> A:
    """A copy of `stream` (an `AGUIStream`) that sends `moca.citations` events."""
    twin = citing_copy(stream, CitingAGUIStream, options)
    cast(CitingAGUIStream, twin).moca_agui_runs = RunRegistry()
    return twin
