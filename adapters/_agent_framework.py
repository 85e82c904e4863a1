"""Citing AG-UI agents for Microsoft Agent Framework: tool results in, `moca.citations` out.

`AgentFrameworkAgent.run(input_data)` turns the wrapped chat agent's streamed updates
into AG-UI events; `add_agent_framework_fastapi_endpoint` calls it on one shared
instance for every request. The citing variant overrides `run` only. Per call it makes
a `CitationRun` and runs the parent on a shallow copy of itself whose chat agent is a
per-run copy that reads each update on its way in: each tool's own `function_result`,
never the TOOL_CALL_RESULT sent to the client (which a tool may replace with a UI
display payload). its `CitationStream` places the events in the AG-UI events coming out,
for the messages the final MESSAGES_SNAPSHOT still shows. Nothing the endpoint shares
between requests is changed.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Iterable
from typing import Any, TypeVar, cast

from ag_ui.core import BaseEvent
from agent_framework import Content, HistoryProvider, InMemoryHistoryProvider, ResponseStream
from agent_framework_ag_ui import AgentFrameworkAgent

from moca_agui import CitationOptions
from moca_agui.adapter import (
    CitationRun,
    CitationStream,
    RunFeed,
    cited,
    citing_copy,
    citing_variant,
    content_parts,
    options_of,
    tap,
)

__all__ = ["CitingAgentFrameworkAgent", "citing"]

logger = logging.getLogger("moca_agui")

T = TypeVar("T")

#: Where agent-framework-ag-ui's endpoint puts a run's snapshot scope in `input_data`.
_SNAPSHOT_SCOPE = "__ag_ui_snapshot_scope"


class CitingAgentFrameworkAgent(AgentFrameworkAgent):
    """An `AgentFrameworkAgent` whose runs send one `moca.citations` event per assistant
    message with text. Made by `moca_agui.instrument`, which binds the options."""

    def run(self, input_data: dict[str, Any], **kwargs: Any) -> AsyncGenerator[BaseEvent]:
        """The parent's AG-UI events, plus the run's `moca.citations` events.

        Returns `cited`'s stream itself, not a generator around it: one hop less per event.
        A MESSAGES_SNAPSHOT replaces the client's messages (agent-framework-ag-ui 1.0 drops
        the text of a response that also called tools, and gives the rest a new id): the
        messages it leaves out are not cited. The thread read is the one the model reads:
        the client's, or the one the endpoint keeps (`snapshot_store=`) once it holds one
        (`_after_kept_thread`); a thread only a provider holds (`_provider_thread`), or a
        history the chat agent loads itself (`_loads_own_history`), cannot be read: its
        default markers are left out.
        """
        options = options_of(self)
        this_run, results = self, _ToolResults()
        try:
            reading = citing_copy(self.agent, _ReadingAgent, options)
            cast(_ReadingAgent, reading).moca_agui_results = results
            this_run = copy.copy(self)  # shares config and approval state, not the agent
            this_run.agent = reading
        except Exception:
            logger.exception(
                "moca_agui: cannot read the tool results of this chat agent; reading "
                "TOOL_CALL_RESULT instead (a tool's UI display payload holds no record)"
            )
        # Each tool's own result is read, when the copy could be made.
        run = CitationRun(options, reads_tool_call_results=this_run is self)
        results.run = run
        events = super(CitingAgentFrameworkAgent, this_run).run(input_data, **kwargs)
        sent = input_data.get("messages") or ()  # the thread the client sent
        kept = _kept_thread(self, input_data, run)
        if _loads_own_history(self) or (kept is None and _provider_thread(self, stored=False)):
            run.thread_unreadable("the thread the chat agent keeps is not known here")
        elif kept is not None:  # the endpoint keeps the thread: the model reads it
            provider = _provider_thread(self, stored=True)
            events = _after_kept_thread(events, run, sent, provider, *kept)
        else:
            run.read_history(sent)
        cited_events = cited(events, CitationStream(run))
        return cast(AsyncGenerator[BaseEvent], cited_events)  # an async generator, as the parent's


def citing(target: T, options: CitationOptions) -> T:
    """A citing copy of an `AgentFrameworkAgent` subclass or instance, with `options`."""
    return citing_variant(target, CitingAgentFrameworkAgent, options)


def _kept_thread(
    agent: AgentFrameworkAgent, input_data: dict[str, Any], run: RunFeed
) -> tuple[Any, ...] | None:
    """(store, scope, thread id) of the thread the endpoint keeps for this run, if it keeps
    one: agent-framework-ag-ui's Thread Snapshot store (`snapshot_store=`, active with a
    snapshot scope, which the endpoint puts in `input_data`). Not known: the run fails
    closed."""
    try:
        store = getattr(agent.config, "snapshot_store", None)
        scope = input_data.get(_SNAPSHOT_SCOPE)
        thread_id = input_data.get("thread_id") or input_data.get("threadId")
    except Exception as exc:
        run.thread_unreadable(f"whether the endpoint keeps it is not known ({exc!r})")
        return None
    if store is None or not isinstance(scope, str) or not isinstance(thread_id, str):
        return None
    return store, scope, thread_id


def _provider_thread(agent: AgentFrameworkAgent, *, stored: bool) -> bool:
    """Whether, with no snapshot of the thread read (`stored`: the endpoint keeps them),
    the model reads a thread only its provider holds: a service session
    (`use_service_session=True`) continued under the thread's id (without a store it
    must be; with one, `service_session_id_from_thread_id=True`), not a new one."""
    try:
        config = agent.config
        if not getattr(config, "use_service_session", False):
            return False
        return not stored or bool(getattr(config, "service_session_id_from_thread_id", False))
    except Exception:
        logger.exception("moca_agui: cannot tell whether a provider keeps this thread")
        return True


def _loads_own_history(agent: AgentFrameworkAgent) -> bool:
    """Whether the chat agent loads a history of its own into each run, read by its model
    before the thread it is given: a history provider that keeps it outside the run's
    session (a file, a database). The in-memory one keeps it in the session, which
    agent-framework-ag-ui makes anew for each run."""
    try:
        providers = getattr(agent.agent, "context_providers", None) or ()
        return any(
            isinstance(provider, HistoryProvider)
            and provider.load_messages
            and not isinstance(provider, InMemoryHistoryProvider)
            for provider in providers
        )
    except Exception:
        logger.exception("moca_agui: cannot tell whether the chat agent loads a history")
        return True


async def _after_kept_thread(
    events: AsyncGenerator[BaseEvent],
    run: RunFeed,
    sent: object,
    provider: bool,
    store: Any,
    scope: str,
    thread_id: str,
) -> AsyncGenerator[BaseEvent]:
    """`events`, once the run has read the thread the model reads. The framework reads the
    same snapshot when the run starts: with none stored yet, its model reads the client's
    thread (or, with `provider`, its provider's); else the stored one, then only the
    client's new question and its results of calls the stored thread left open
    (`only_answers`): a turn the client dropped or edited counts, one never stored does not."""
    kept: list[Any] | None = None
    try:
        snapshot = await store.get(scope=scope, thread_id=thread_id)
        kept = list(getattr(snapshot, "messages", None) or ())
    except Exception:
        logger.exception("moca_agui: the endpoint's thread not read")
    thread = cast(Iterable[Any], sent)
    if kept is None:
        run.thread_unreadable("the endpoint's thread store was not read")
    elif kept:
        run.read_history(thread, kept=kept, only_answers=True)
    elif provider:
        run.thread_unreadable("the provider's thread is not known here")
    else:
        run.read_history(thread)
    try:
        async for event in events:
            yield event
    finally:
        await events.aclose()


class _ReadingAgent:
    """Mixed into the per-run copy of the chat agent: each streamed update is read into
    the run before the AG-UI emitter sees it."""

    moca_agui_results: _ToolResults

    def run(self, *args: Any, **kwargs: Any) -> Any:
        response = super().run(*args, **kwargs)  # type: ignore[misc]
        return _read(response, self.moca_agui_results) if kwargs.get("stream") else response


def _read(response: Any, results: _ToolResults) -> Any:
    """`response` (a stream of updates, or an awaitable of one) with each update read."""
    if isinstance(response, ResponseStream):  # keeps its hooks, finalizer and contexts
        return response.with_transform_hook(results.read)
    if isinstance(response, AsyncIterable):
        return tap(response, results.read)
    if isinstance(response, Awaitable):
        return _awaited(response, results)
    logger.warning("moca_agui: the agent streamed no updates; no citations for this run")
    return response


async def _awaited(response: Awaitable[Any], results: _ToolResults) -> Any:
    return _read(await response, results)


class _ToolResults:
    """One run's tool calls, read from its updates: each call's name, then its result."""

    __slots__ = ("_names", "run")

    def __init__(self) -> None:
        self.run: RunFeed | None = None  # the run it reads into, once it is made
        self._names: dict[str, str] = {}  # call id -> tool name

    def read(self, update: object) -> None:
        """Capture the tool results in one update; never raises (the update flows on)."""
        try:
            for content in getattr(update, "contents", None) or ():
                if not content.call_id:
                    continue
                if content.type == "function_call" and content.name:
                    self._names.setdefault(content.call_id, content.name)
                elif content.type == "mcp_server_tool_call" and content.tool_name:
                    self._names.setdefault(content.call_id, content.tool_name)
                elif content.type in ("function_result", "mcp_server_tool_result"):
                    self._result(content)
        except Exception:
            logger.exception("moca_agui: could not read an update; it flows on unchanged")

    def _result(self, content: Content) -> None:
        call_id = content.call_id or ""
        name = self._names.get(call_id)
        if name is None:
            logger.debug("moca_agui: result of unknown tool call %s ignored", call_id)
            return
        failed = content.type == "function_result" and content.exception is not None
        if content.type == "function_result":  # failed: an error (the model may retry)
            result: object = content_parts(content.items or [])
        else:  # a provider-hosted MCP tool: its output, Content items or a value
            output = content.output
            result = content_parts(output) if isinstance(output, list) else output
        if self.run is not None:
            self.run.capture(name, result, tool_call_id=call_id, failed=failed)
