"""The citing `StrandsAgent`: each run sends one `moca.citations` event per answer.

`citing(agent, options)` returns a shallow copy of the `StrandsAgent` whose class has
`CitingStrandsAgent` mixed in first, and whose hook providers start with `ReaderResults`
(ag-ui-strands gives its hook providers to every per-thread Strands `Agent` it builds;
hooks that `config.thread_agent_kwargs` returns replace them, so it goes first there too).
The copy shares the original's per-thread agents, so conversations carry on.

Per run, `CitingStrandsAgent.run` makes a `CitationRun` and the `StrandsRun` that feeds
it (the hooks' side of the run, holding it as a `RunFeed`), registers it in the citing agent's
`RunRegistry` under a key of its own, hands the Strands agent only that key in the run's
`invocation_state`, and passes the parent's AG-UI events through `moca_agui.cite`.
`ReaderResults` (one per citing agent, holding its registry) takes each tool's own result
from Strands' `AfterToolCallEvent`: the content blocks the model is sent next, before
ag-ui-strands turns them into the TOOL_CALL_RESULT string (it keeps only the last text
block, and re-reads text that is not JSON with its quotes swapped). Each result is captured with its
`toolUseId`, so markers follow the order the model issued its calls, not the order
Strands' concurrent executor finished them. The hook finds the run by the key in the
invocation's state: it holds no run, and a run its stream dropped (ended, cancelled) is
found no more.

The thread the model reads is the per-thread agent's messages: ag-ui-strands replays the
client's messages into them (`replay_history_into_strands`, the default: a trimmed or
edited thread is read as sent), or the agent keeps its own history (replay off, or a
session manager) and takes from the client only its new question: a turn the client
dropped or edited still counts, one the agent never held never does. So `ReaderResults`
reads the thread at Strands' `BeforeInvocationEvent`, once per run: the agent's messages
and the invocation's new ones (their toolUse and toolResult blocks).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from ag_ui.core import RunAgentInput
from ag_ui_strands import StrandsAgent  # type: ignore[import-untyped]
from strands.hooks import AfterToolCallEvent, BeforeInvocationEvent, HookProvider, HookRegistry

from moca_agui import CitationOptions, cite
from moca_agui.adapter import (
    CitationRun,
    RunFeed,
    RunRegistry,
    ThreadMessage,
    calls_message,
    citing_copy,
    content_parts,
    options_of,
    result_message,
)

__all__ = ["RUN_KEY", "CitingStrandsAgent", "ReaderResults", "StrandsRun", "citing"]

logger = logging.getLogger("moca_agui")

A = TypeVar("A")

# Strands hands its hooks no invocation or run id, only the invocation's `invocation_state`
# (a new one per run, dropped with the invocation), and ag-ui-strands' run id is the
# client's, which runs in flight may share: each run gets a key of its own, the one thing
# of it that rides there.
#: Where a run's key in the citing agent's `RunRegistry` rides in the `invocation_state`.
RUN_KEY = "moca_agui.run"


class StrandsRun:
    """One run as Strands hooks feed it: each tool's own result, the thread it reads."""

    def __init__(self, feed: RunFeed, sent: Iterable[object]) -> None:
        self.feed = feed
        self._sent = list(sent)  # the client's thread

    def read_thread(self, kept: Iterable[ThreadMessage]) -> None:
        """Read the thread the model reads, once, before the run's first result."""
        self.feed.read_history(self._sent, kept=kept, only_answers=True)


class CitingStrandsAgent(StrandsAgent):  # type: ignore[misc]
    """A `StrandsAgent` whose runs send one `moca.citations` event per assistant message.

    Made by `moca_agui.instrument(agent)`, never constructed directly;
    `moca_agui.uninstrument` gives the agent it was made from.
    """

    #: This agent's runs in flight, by their keys (`citing` makes one per citing agent).
    moca_agui_runs: RunRegistry[StrandsRun]

    def run(
        self, input_data: RunAgentInput, *, invocation_state: dict[str, Any] | None = None
    ) -> AsyncIterator[Any]:
        """The parent's events of one run, plus its `moca.citations` events.

        Returns `cite`'s stream itself, not a generator around it: one hop less per event.
        """
        # The hook reads the thread once the per-thread agent holds it (`read_thread`).
        feed = CitationRun(options_of(self), reads_tool_call_results=False)  # the hook reads them
        run = StrandsRun(feed, input_data.messages or ())
        key = uuid.uuid4().hex
        self.moca_agui_runs.add(key, run)
        state = {**(invocation_state or {}), RUN_KEY: key}
        events = super().run(input_data, invocation_state=state)
        return cite(events, run=feed, ended=functools.partial(self.moca_agui_runs.remove, key, run))


class ReaderResults(HookProvider):
    """Captures each tool's result into its run, found in the citing agent's registry by
    the key in the invocation's state.

    It comes first among the agent's hook providers: Strands calls `AfterToolCallEvent`
    callbacks in reverse order, so it sees the result after every other hook changed it.
    """

    def __init__(self, runs: RunRegistry[StrandsRun]) -> None:
        self._runs = runs

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeInvocationEvent, self._read_thread)
        registry.add_callback(AfterToolCallEvent, self._capture)

    def _run_of(self, invocation_state: Mapping[str, Any]) -> StrandsRun | None:
        key = invocation_state.get(RUN_KEY)
        return self._runs.get(key) if isinstance(key, str) else None

    def _read_thread(self, event: BeforeInvocationEvent) -> None:
        """Read the thread the model reads on this turn, once per run, before its first
        result: the agent's messages and the invocation's new ones."""
        run = self._run_of(event.invocation_state)
        if run is not None:
            kept = itertools.chain(_thread(event.agent.messages), _thread(event.messages or ()))
            run.read_thread(kept)  # read once, later calls passed over

    def _capture(self, event: AfterToolCallEvent) -> None:
        run = self._run_of(event.invocation_state)
        if run is not None:  # else a run of the plain agent: nothing to cite
            _capture(run, event)


def _thread(messages: Iterable[Any]) -> Iterator[ThreadMessage]:
    """Strands messages as thread messages: each toolUse block a call, each toolResult
    block its result (a failed call's holds no source)."""
    for message in messages:
        blocks = [block for block in message.get("content") or () if isinstance(block, Mapping)]
        uses = [block["toolUse"] for block in blocks if "toolUse" in block]
        if uses:
            yield calls_message((use.get("toolUseId"), use.get("name")) for use in uses)
        for result in (block["toolResult"] for block in blocks if "toolResult" in block):
            failed = result.get("status") != "success"
            content = content_parts(result.get("content"))
            yield result_message(result.get("toolUseId"), content, failed=failed)


def _capture(run: StrandsRun, event: AfterToolCallEvent) -> None:
    try:
        name, call_id = str(event.tool_use.get("name")), event.tool_use.get("toolUseId")
        result = event.result
        if getattr(event, "retry", False) or event.cancel_message is not None:
            return  # discarded or never run: the model is not sent this result
        failed = event.exception is not None or result.get("status") != "success"
        parts = content_parts(result.get("content"))
    except Exception:
        logger.exception("moca_agui: could not read a Strands tool result; it flows on unchanged")
        return
    run.feed.capture(name, parts, tool_call_id=call_id, failed=failed)


def citing(agent: A, options: CitationOptions) -> A:
    """A copy of `agent` (a `StrandsAgent`) that sends `moca.citations` events."""
    return citing_copy(agent, CitingStrandsAgent, options, copy=_with_reader_results)


def _with_reader_results(agent: Any) -> Any:
    """A shallow copy of `agent` whose per-thread Strands agents get `ReaderResults` first."""
    hooks = getattr(agent, "_hooks", None)
    if not isinstance(hooks, list):
        raise TypeError(
            "moca_agui cannot instrument this StrandsAgent: it keeps no list of hook "
            "providers (`_hooks`), so its tools' results cannot be read; moca-agui "
            "supports ag-ui-strands 1.x"
        )
    twin = copy.copy(agent)
    twin.moca_agui_runs = RunRegistry()
    reader_results = ReaderResults(twin.moca_agui_runs)
    twin._hooks = [reader_results, *hooks]
    per_thread = twin.config.thread_agent_kwargs
    if per_thread is not None:  # the hooks it returns replace `_hooks`: ours go first there too
        thread_kwargs = functools.partial(_thread_kwargs, reader_results, per_thread)
        twin.config = dataclasses.replace(twin.config, thread_agent_kwargs=thread_kwargs)
    return twin


def _thread_kwargs(
    reader_results: ReaderResults, per_thread: Callable[[Any], Any], input_data: Any
) -> Any:
    kwargs = per_thread(input_data)
    if isinstance(kwargs, Mapping) and "hooks" in kwargs:
        return {**kwargs, "hooks": [reader_results, *kwargs["hooks"]]}
    return kwargs
