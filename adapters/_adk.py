"""`CitingADKAgent`: an ag-ui-adk `ADKAgent` whose runs send `moca.citations` events.

ag-ui-adk runs the ADK agent in a background task and translates its ADK events into
AG-UI events; TOOL_CALL_RESULT carries each tool's result as JSON text, and none at all
for a long-running tool. So the Reader results are read in ADK itself, by an ADK
plugin on the run's `Runner` (`_ADKRunPlugin`):

- `after_tool_callback` sees each tool's own return value (a function tool's, or the
  dumped `CallToolResult` of ADK's MCP toolset), with the id of the call;
- `on_tool_error_callback` marks a failed call: what an error handler answers for it
  is no source;
- `on_event_callback` sees the model's function calls in the order it issued them, and
  the id of each ADK event of the run: MESSAGES_SNAPSHOT names assistant messages by
  ADK event id, not by the id their text streamed with, so the run's messages in a
  snapshot get their own event under the snapshot's id.
- `before_run_callback` reads the thread the model reads: ag-ui-adk keeps an ADK session
  per thread and appends to it only the client's new question (and results of calls it
  left open); the model reads the session. So the session's function calls and
  responses (what the model was shown, with a numbered view's markers) are the thread:
  a turn the client dropped or edited still counts, one the session never held (another
  server's, unless ag-ui-adk seeded it into a new session) never does.

`ADKAgent` makes a new `Runner` per run in its background task (`_create_runner`), which
the run's stream starts in its `running()` (`asyncio.create_task` copies the run context):
there the run is `request_run()`, the one link from the run to its Runner (why
not a registry by an ADK id: see `_create_runner`); the citing agent's `RunRegistry`
gives the `ADKRun` that feeds that run. Each run has its own `ADKRun` (holding its run as
a `RunFeed`) and plugin. The thread reading is `_adk_thread`'s.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncIterator, Iterable
from functools import partial
from typing import Any, TypeVar, cast

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui_adk import ADKAgent  # type: ignore[import-untyped]
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import Runner
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext

from moca_agui import CitationOptions
from moca_agui.adapter import (
    CitationRun,
    CitationStream,
    RunFeed,
    RunRegistry,
    cited,
    citing_variant,
    options_of,
    request_run,
)

from ._adk_thread import model_thread, unwrapped

__all__ = ["ADKRun", "CitingADKAgent", "citing"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")

_PLUGIN_NAME = "moca_agui"


class ADKRun:
    """One run as an ADK plugin feeds it (`feed`): tool return values, call order, event ids."""

    def __init__(self, feed: RunFeed, sent: Iterable[object] = ()) -> None:
        self.feed = feed
        #: The ids of this run's ADK events: the ids MESSAGES_SNAPSHOT names its answers by.
        self.event_ids: set[str] = set()
        self._failed: set[str] = set()  # ids of calls that raised
        self._sent = list(sent)  # the client's thread

    def read_session(self, context: InvocationContext) -> None:
        """Read the thread the model reads, once, before the run's first result."""
        self.feed.read_history(self._sent, kept=model_thread(context), only_answers=True)

    def saw_event(self, event: Event) -> None:
        """An ADK event of this run: its id, and the model's calls in the order it made them."""
        if event.id:
            self.event_ids.add(event.id)
        if event.partial:
            return
        for call in event.get_function_calls():
            if call.id and call.name:
                self.feed.call_made(call.id, call.name)

    def is_event(self, event_id: str) -> bool:
        """Whether `event_id` is of an ADK event of this run."""
        return event_id in self.event_ids

    def tool_failed(self, call_id: str | None) -> None:
        if call_id:
            self._failed.add(call_id)

    def tool_returned(self, name: str, call_id: str | None, result: object) -> None:
        """A tool's own return value, as ADK hands it to plugins: not yet wrapped as
        `{"result": value}`, the form the model and TOOL_CALL_RESULT get a non-dict in."""
        self.feed.capture(name, result, tool_call_id=call_id, failed=call_id in self._failed)


class _ADKRunPlugin(BasePlugin):
    """Feeds one `ADKRun` from the ADK `Runner` of its run; never changes what ADK does."""

    def __init__(self, run: ADKRun) -> None:
        super().__init__(name=_PLUGIN_NAME)
        self._run = run

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._run.read_session(invocation_context)

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> None:
        try:
            self._run.saw_event(event)
        except Exception:
            logger.exception("moca_agui: could not read an ADK event; it flows on unchanged")

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> None:
        self._run.tool_failed(tool_context.function_call_id)

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> None:
        try:
            self._run.tool_returned(tool.name, tool_context.function_call_id, result)
        except Exception:
            logger.exception("moca_agui: skipped a result of %s", getattr(tool, "name", "?"))


class CitingADKAgent(ADKAgent):  # type: ignore[misc]
    """An `ADKAgent` whose runs send one `moca.citations` event per assistant message."""

    #: This agent's runs in flight, by the `CitationRun` each feeds (`citing` makes one per
    #: citing agent, `__init__` one per instance of a citing class).
    moca_agui_runs: RunRegistry[ADKRun]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.moca_agui_runs = RunRegistry("citation run")

    def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        """The parent's AG-UI events, plus the run's `moca.citations` events.

        MESSAGES_SNAPSHOT names this run's answers by ADK event id, not by the id their
        text streamed with: those get their own event under the snapshot's id.
        """
        # The thread is read once the session is (`before_run_callback`).
        feed = CitationRun(options_of(self), reads_tool_call_results=False)  # the plugin's
        run = ADKRun(feed, unwrapped(input.messages or ()))
        self.moca_agui_runs.add(feed, run)  # found until its stream ends
        ended = partial(self.moca_agui_runs.remove, feed, run)
        stream = CitationStream(feed, snapshot_text=run.is_event)
        return cited(super().run(input), stream, ended=ended)

    def _create_runner(self, adk_agent: Any, user_id: str, app_name: str) -> Runner:
        runner = cast(Runner, super()._create_runner(adk_agent, user_id, app_name))
        # The run context, not a registry: nothing ag-ui-adk carries from `run` to here is
        # one run's own. Its run id is the client's (runs in flight may share it: keyed by
        # it, both would go uncited), its `input` may be a copy, and ADK's invocation id is
        # made after this Runner and shared by a run that resumes a call. The run's
        # background task runs in the engine's run context (`asyncio.create_task` copies
        # it), where the run is; from here the run's own Runner carries it.
        feed = request_run()
        run = self.moca_agui_runs.get(feed) if feed is not None else None
        if run is not None:
            try:
                plugins = runner.plugin_manager.plugins
                # First: a plugin that answers a callback stops the ones after it.
                plugins.insert(0, _ADKRunPlugin(run))
            except Exception:
                logger.exception("moca_agui: citations off for this run; the answer is unchanged")
        return runner


def citing(target: T, options: CitationOptions) -> T:
    """A citing copy of an `ADKAgent` subclass or instance, with `options`."""
    return citing_variant(target, CitingADKAgent, options, copy=_with_registry)


def _with_registry(agent: T) -> T:
    """A shallow copy of `agent` with a run registry of its own."""
    twin = copy.copy(agent)
    cast(CitingADKAgent, twin).moca_agui_runs = RunRegistry("citation run")
    return twin
