"""The citing `AGUIStream`: its endpoint cites, its runs number calls in the model's order.

`citing(stream, options)` returns a shallow copy of the `AGUIStream` (sharing its agent
and its held turns) whose class has `CitingAGUIStream` mixed in first. Its `build_asgi()`
is the parent's endpoint behind `CitationMiddleware` with the instrument's options; its
`dispatch` adds `ModelOrder` to the run's AG2 middleware, bound to the run the citation
middleware made for the request: the request's run context (`request_run()`),
which the middleware enters around the endpoint, per request. That is AG2's one link:
the run id AG2 hands `dispatch` is the client's, which requests in flight may share, so
no registry keyed by it could tell their runs apart. An endpoint of the user's own that
calls `dispatch` behind their own `CitationMiddleware` is linked the same way.

`ModelOrder.on_llm_call` sees each `ModelResponse` before AG2 starts its tools: it
announces the response's tool calls to the run in the order the model gave them
(`RunFeed.call_made`). The TOOL_CALL_START events that AG2's tool tasks send later,
in whatever order they run, then change nothing: a call is numbered where it was first
announced. The earlier turns' calls reach the run as the client recorded them from the
wire, so their order is taken as unknown (`RunFeed.calls_out_of_order`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any, TypeVar

from ag2.ag_ui import AGUIStream
from ag2.annotations import Context
from ag2.events import BaseEvent, ModelResponse
from ag2.middleware import BaseMiddleware, Middleware
from ag2.middleware.base import LLMCall, MiddlewareFactory

from moca_agui import CitationOptions
from moca_agui.adapter import RunFeed, citing_copy, options_of, request_run
from moca_agui.asgi import CitationMiddleware

__all__ = ["CitingAGUIStream", "ModelOrder", "citing"]

logger = logging.getLogger("moca_agui")

A = TypeVar("A")


class CitingAGUIStream(AGUIStream):
    """An `AGUIStream` whose endpoint sends one `moca.citations` event per answer.

    Made by `moca_agui.instrument(stream)`, never constructed directly;
    `moca_agui.uninstrument` gives the stream it was made from.
    """

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
        incoming: Any,
        *,
        middleware: Iterable[MiddlewareFactory] = (),
        **kwargs: Any,
    ) -> AsyncIterator[str]:
        """The parent's run, with `ModelOrder` for the request's citation run, if any. The
        thread the client sends back holds earlier turns' calls in the wire's order, which
        may not be the model's: those turns' order is unknown to the run."""
        run = request_run()  # the request's own run: see the module's docstring
        if run is not None:
            run.calls_out_of_order(this_run=False)
            middleware = [*middleware, Middleware(ModelOrder, run=run)]
        return super().dispatch(incoming, middleware=middleware, **kwargs)


class ModelOrder(BaseMiddleware):
    """Announces each model response's tool calls to `run`, in the model's order."""

    def __init__(self, event: BaseEvent, context: Context, *, run: RunFeed) -> None:
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
    return citing_copy(stream, CitingAGUIStream, options)
