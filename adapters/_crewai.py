"""The citing CrewAI `Flow` and `Crew`: their runs read results in the model's order.

`citing(target, options)` returns a copy of the flow or crew whose class has
`CitingFlow` or `CitingCrew` mixed in first. Each kickoff (a flow's `kickoff_async` and
`resume_async`, which every entry reaches; a crew's `kickoff` and `akickoff`) runs in a
CrewAI execution scope of hooks (`scoped_hooks`, a context variable: per request, never
process-wide) holding a `ModelOrder` bound to the request's citation run, the one
`CitationMiddleware` made (`request_run()`). ag-ui-crewai copies the flow or
crew for each request, and both it and CrewAI copy the context into their threads.

Before each model call, `ModelOrder` reads the executor's messages the model has not
read yet: its tool messages are the results of the last response's calls, in the order
the model issued them, whichever finished first. It announces each Reader result by its
tool and text (`RunFeed.result_read`), as the wire sends it (an MCP tool by its name
on the server). A result never announced (a tool whose result is the answer, a result
the model read in another form) or Reader results read by two executors (two agents)
leave the run's default markers out, as the bare middleware does.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from crewai import Crew
from crewai.flow.flow import Flow
from crewai.hooks.dispatch import (
    InterceptionPoint,
    get_scoped_hooks,
    register_scoped,
    scoped_hooks,
)
from crewai.utilities.string_utils import sanitize_tool_name
from pydantic import Field

from moca_agui import CitationOptions
from moca_agui.adapter import RunFeed, citing_copy, request_run

__all__ = ["CitingCrew", "CitingFlow", "ModelOrder", "citing"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")

#: Why the order is not known when two executors read Reader results.
SEVERAL_AGENTS = "more than one CrewAI agent read Reader results, each in an order of its own"
#: Why the order is not known when an executor's messages were cut.
MESSAGES_CUT = "CrewAI cut an agent's messages, so the results it read are not known"


class ModelOrder:
    """Announces to `run` each Reader result an executor's model is about to read, in
    the order it reads them (`before_model_call`, a CrewAI PRE_MODEL_CALL hook)."""

    def __init__(self, run: RunFeed) -> None:
        self.run = run
        self._lock = threading.Lock()  # executors call it from their own threads
        #: id(executor) -> (the executor, how many of its messages were read)
        self._read: dict[int, tuple[object, int]] = {}
        self._reader: object | None = None  # the executor whose model read Reader results

    def before_model_call(self, context: Any) -> None:
        """Read the messages the model is about to be sent; None lets the call go on."""
        try:
            with self._lock:
                self._announce(context.executor, context.messages)
        except Exception:
            logger.exception("moca_agui: could not read the order of CrewAI's tool results")
            self.run.order_not_known("the order of CrewAI's tool results could not be read")

    def _announce(self, executor: object, messages: list[Any]) -> None:
        if executor is None:  # a direct LLM call: no executor's results
            return
        _, done = self._read.get(id(executor), (executor, 0))
        if len(messages) < done:
            self.run.order_not_known(MESSAGES_CUT)
            done = 0
        names = _stream_names(executor)
        for message in messages[done:]:
            if not isinstance(message, Mapping) or message.get("role") != "tool":
                continue
            name = str(message.get("name"))
            name = names.get(name, name)
            content = message.get("content")
            if not isinstance(content, str) or not self.run.is_reader_tool(name):
                continue  # a Reader's content in another form is never announced
            if self._reader is None:
                self._reader = executor
            elif self._reader is not executor:
                self.run.order_not_known(SEVERAL_AGENTS)
            self.run.result_read(name, content)
        self._read[id(executor)] = (executor, len(messages))


def _stream_names(executor: object) -> dict[str, str]:
    """The name the stream gives each of the executor's tools the model knows by another:
    an MCP tool is sent under its name on the server, not the model's prefixed one."""
    tools = getattr(executor, "original_tools", None) or ()
    return {
        sanitize_tool_name(tool.name): tool.original_tool_name
        for tool in tools
        if isinstance(getattr(tool, "original_tool_name", None), str)
    }


@contextlib.contextmanager
def model_order(run: RunFeed | None) -> Iterator[None]:
    """A CrewAI hook scope in which each model call announces its results to `run`;
    nothing if there is no run, or a scope for it is open already (a kickoff that
    calls another)."""
    if run is None:
        logger.warning(
            "moca_agui: an instrumented CrewAI flow or crew ran outside CitationMiddleware: "
            "no citations (app.add_middleware(CitationMiddleware) on the app serving it)"
        )
        yield
        return
    current = get_scoped_hooks(InterceptionPoint.PRE_MODEL_CALL)
    if any(getattr(getattr(hook, "__self__", None), "run", None) is run for hook in current):
        yield
        return
    learner = ModelOrder(run)
    run.results_announced()
    outer = {point: hooks for point in InterceptionPoint if (hooks := get_scoped_hooks(point))}
    with scoped_hooks(outer):
        register_scoped(InterceptionPoint.PRE_MODEL_CALL, learner.before_model_call)
        yield


class CitingFlow(Flow):  # type: ignore[misc]
    """A CrewAI `Flow` whose runs announce their results in the model's order.

    Made by `moca_agui.instrument(flow)`, never constructed directly;
    `moca_agui.uninstrument` gives the flow it was made from.
    """

    async def kickoff_async(self, *args: Any, **kwargs: Any) -> Any:
        with model_order(request_run()):
            return await super().kickoff_async(*args, **kwargs)

    async def resume_async(self, *args: Any, **kwargs: Any) -> Any:
        with model_order(request_run()):
            return await super().resume_async(*args, **kwargs)


class CitingCrew(Crew):  # type: ignore[misc]
    """A CrewAI `Crew` whose runs announce their results in the model's order.

    Made by `moca_agui.instrument(crew)`, never constructed directly;
    `moca_agui.uninstrument` gives the crew it was made from.
    """

    #: The instrument's options (a pydantic model takes no attribute it does not declare).
    moca_agui_options: Any = Field(default=None, exclude=True)

    def kickoff(self, *args: Any, **kwargs: Any) -> Any:
        with model_order(request_run()):
            return super().kickoff(*args, **kwargs)

    async def akickoff(self, *args: Any, **kwargs: Any) -> Any:
        with model_order(request_run()):
            return await super().akickoff(*args, **kwargs)


def citing(target: T, options: CitationOptions) -> T:
    """A copy of `target` (a `Flow` or a `Crew`) whose runs read results in the model's
    order. Raises TypeError for options: the middleware's are the run's."""
    if options != CitationOptions():
        raise TypeError(
            "moca_agui.instrument takes no options for a CrewAI flow or crew: pass them to "
            "CitationMiddleware, whose run cites it"
        )
    mixin = CitingCrew if isinstance(target, Crew) else CitingFlow
    return citing_copy(target, mixin, options)
