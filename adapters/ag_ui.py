"""The bare ag-ui-protocol SDK: `instrument` takes an async iterable of events (a stream)
or a function returning one (an agent's run function), and cites what it yields."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, Callable
from typing import Any

from ag_ui.core import RunAgentInput

from moca_agui import CitationOptions
from moca_agui.adapter import CitationRun, CitationStream, cited, citing_factory, hookimpl

__all__ = ["citing_function"]

logger = logging.getLogger("moca_agui")


def citing_function(function: Callable[..., Any], options: CitationOptions) -> Callable[..., Any]:
    """Wrap a function that returns (or is) an async generator of events; the
    `RunAgentInput` it is called with, if any, gives the run its thread."""

    def cite_made(events: object, *args: Any, **kwargs: Any) -> object:
        if not isinstance(events, AsyncIterable):  # not a stream: it flows on, uncited
            logger.warning(
                "moca_agui: %s returned %s, not an async iterable of AG-UI events: no "
                "citations. Instrument the function that returns the agent's events (for "
                "a framework's agent, the agent itself, with its extra installed).",
                getattr(function, "__qualname__", repr(function)),
                type(events).__name__,
            )
            return events
        run = CitationRun(options)
        given = next((a for a in (*args, *kwargs.values()) if isinstance(a, RunAgentInput)), None)
        if given is not None:  # the thread the model reads on this turn
            run.read_history(given.messages or ())
        return cited(events, CitationStream(run))

    return citing_factory(function, cite_made)


@hookimpl(trylast=True)
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    if isinstance(target, AsyncIterable):
        return cited(target, CitationStream(CitationRun(options)))
    if callable(target) and not isinstance(target, type):  # a function, method or partial
        return citing_function(target, options)
    return None


@hookimpl
def moca_install_hint() -> str:
    return (
        "a bare AG-UI stream: an async iterable of ag_ui.core events, or a function "
        "returning one (no extra needed)"
    )
