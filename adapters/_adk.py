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
there the run is `CitationRun.current()`. Each run has its own `ADKRun` and plugin.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator, Iterable, Iterator
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
    ThreadMessage,
    calls_message,
    cited,
    citing_variant,
    options_of,
    result_message,
)

__all__ = ["ADKRun", "CitingADKAgent", "citing"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")

_PLUGIN_NAME = "moca_agui"

#: How a function's text wrapped as `{"result": text}` starts.
_WRAPPED = re.compile(r'\s*\{\s*"result"\s*:')


class ADKRun(CitationRun):
    """A `CitationRun` fed by an ADK plugin: tool return values, call order, event ids."""

    def __init__(self, options: CitationOptions, sent: Iterable[object] = ()) -> None:
        super().__init__(options, reads_tool_call_results=False)  # each tool's own value
        #: The ids of this run's ADK events: the ids MESSAGES_SNAPSHOT names its answers by.
        self.event_ids: set[str] = set()
        self._failed: set[str] = set()  # ids of calls that raised
        self._sent = list(sent)  # the client's thread

    def read_session(self, context: InvocationContext) -> None:
        """Read the thread the model reads, once, before the run's first result."""
        self.read_history(self._sent, kept=_model_thread(context), only_answers=True)

    def saw_event(self, event: Event) -> None:
        """An ADK event of this run: its id, and the model's calls in the order it made them."""
        if event.id:
            self.event_ids.add(event.id)
        if event.partial:
            return
        for call in event.get_function_calls():
            if call.id and call.name:
                self.call_made(call.id, call.name)

    def tool_failed(self, call_id: str | None) -> None:
        if call_id:
            self._failed.add(call_id)

    def tool_returned(self, name: str, call_id: str | None, result: object) -> None:
        """A tool's own return value, as ADK hands it to plugins: not yet wrapped as
        `{"result": value}`, the form the model and TOOL_CALL_RESULT get a non-dict in."""
        self.capture(name, result, tool_call_id=call_id, failed=call_id in self._failed)


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

    def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        """The parent's AG-UI events, plus the run's `moca.citations` events.

        MESSAGES_SNAPSHOT names this run's answers by ADK event id, not by the id their
        text streamed with: those get their own event under the snapshot's id.
        """
        # The thread is read once the session is (`before_run_callback`).
        run = ADKRun(options_of(self), _unwrapped(input.messages or ()))
        stream = CitationStream(run, snapshot_text=run.event_ids.__contains__)
        return cited(super().run(input), stream)

    def _create_runner(self, adk_agent: Any, user_id: str, app_name: str) -> Runner:
        runner = cast(Runner, super()._create_runner(adk_agent, user_id, app_name))
        # No registry: ag-ui-adk hands this method no run id, and ADK's invocation id is
        # made later and is no run's own (a run that resumes a call takes the call's, or
        # the client's run id). The run's background task runs in the engine's run
        # context, which holds the run; from here the run's own Runner carries it.
        run = CitationRun.current()
        if isinstance(run, ADKRun):
            try:
                plugins = runner.plugin_manager.plugins
                # First: a plugin that answers a callback stops the ones after it.
                plugins.insert(0, _ADKRunPlugin(run))
            except Exception:
                logger.exception("moca_agui: citations off for this run; the answer is unchanged")
        return runner


def citing(target: T, options: CitationOptions) -> T:
    """A citing copy of an `ADKAgent` subclass or instance, with `options`."""
    return citing_variant(target, CitingADKAgent, options)


def _model_thread(context: InvocationContext) -> Iterator[ThreadMessage]:
    """The session's earlier turns the model reads (`_session_thread`): all of them, or
    none where the run's agents read only the current turn (`include_contents="none"`).
    Where some of them do and others do not, the thread is not known: it raises when read
    (the run leaves its markers out)."""
    reads = {agent.include_contents for agent in _agents(context.agent)}
    if reads == {"none"}:
        return
    if "none" in reads:
        raise ValueError("some of the run's agents read the session, others only this turn")
    yield from _session_thread(context.session.events)


def _agents(agent: Any) -> Iterator[Any]:
    """The agents of a tree that build a model's contents (those with `include_contents`)."""
    if hasattr(agent, "include_contents"):
        yield agent
    for sub_agent in getattr(agent, "sub_agents", None) or ():
        yield from _agents(sub_agent)


def _session_thread(events: Iterable[Event]) -> Iterator[ThreadMessage]:
    """The session's function calls and responses as thread messages, in its order."""
    for event in events:
        if event.partial:
            continue
        calls = [(call.id, call.name) for call in event.get_function_calls()]
        if calls:
            yield calls_message(calls, event.id)
        for response in event.get_function_responses():
            yield result_message(response.id, _response_value(response.response))


def _response_value(response: object) -> object:
    """What a tool returned, from its ADK function response: ADK wraps a value that is
    not a dict as `{"result": value}` (a numbered view's text, say), and so does
    ag-ui-adk writing the client's earlier turns into a new session."""
    if isinstance(response, dict) and response.keys() == {"result"}:
        value = response["result"]
        if not isinstance(value, dict):
            return value
    return response


def _unwrapped_text(text: str) -> str:
    """A tool message's text as the tool returned it: ag-ui-adk sends a function's text
    as `{"result": text}` (ADK's function response), so a numbered view's markers sit one
    JSON text deeper."""
    if not _WRAPPED.match(text):  # no need to parse it
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and value.keys() == {"result"} and isinstance(value["result"], str):
        return str(value["result"])
    return text


def _unwrapped(messages: Any) -> list[object]:
    """The client's thread with each tool result as the tool returned it (`_unwrapped_text`)."""
    thread: list[object] = []
    for message in messages:
        content = getattr(message, "content", None)
        if getattr(message, "role", None) == "tool" and isinstance(content, str):
            result = _unwrapped_text(content)
            if result is not content:
                message = message.model_copy(update={"content": result})
        thread.append(message)
    return thread
