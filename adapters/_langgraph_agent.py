"""The citing `LangGraphAgent`: each run sends one `moca.citations` event per answer.

`citing(agent, options)` returns a fresh clone of `agent` whose class is the agent's own
class with `CitingAgent` mixed in first, so the overrides of a `LangGraphAgent` subclass
stay in force. Three methods change, and only by wrapping the parent's:

- `run` makes a `LangGraphRun` and passes the parent's events through its `CitationStream`;
- `prepare_stream` watches the LangGraph events of the run for Reader tool outputs;
- `clone` (which `add_langgraph_fastapi_endpoint` calls for every request) makes another
  instrumented clone of the original agent, with the same options.

Nothing of a run is kept on the agent: run state lives in the run's `LangGraphRun`, which
`prepare_stream` finds in the agent's `RunRegistry` by the run's id while it is in flight.
That id is the client's: ag-ui-langgraph hands `prepare_stream` and
`prepare_regenerate_stream` the input, and LangGraph's own run id is made later, by the
graph. It is never shared by two runs of one agent: a `LangGraphAgent` keeps its run's
state on itself (`active_run`), so ag-ui-langgraph's endpoint runs each request on a clone
(`clone`, whose registry is its own) and an agent running two requests at once fails in
ag-ui-langgraph itself. Were two runs in flight under one id, neither is found (logged),
and its markers are left out.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from functools import partial
from typing import Any, TypeVar

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui_langgraph import LangGraphAgent  # type: ignore[import-untyped]

import moca_agui
from moca_agui import CitationOptions
from moca_agui.adapter import (
    CitationRun,
    CitationStream,
    RunRegistry,
    cited,
    citing_copy,
    options_of,
    tap,
)

from ._langgraph_run import LangGraphRun

__all__ = ["CitingAgent", "citing"]

logger = logging.getLogger("moca_agui")

A = TypeVar("A")


class CitingAgent(LangGraphAgent):  # type: ignore[misc]
    """A `LangGraphAgent` whose runs send one `moca.citations` event per assistant message.

    Made by `moca_agui.instrument(agent)`, never constructed directly;
    `moca_agui.uninstrument` gives the agent it was made from.
    """

    #: The options the agent was instrumented with; each clone keeps them.
    moca_agui_options: CitationOptions
    #: This agent's runs in flight, by run id (`citing` makes one per citing agent).
    moca_agui_runs: RunRegistry[LangGraphRun]

    def clone(self) -> CitingAgent:
        """A fresh instrumented clone of the original agent, with the same options."""
        return citing(moca_agui.uninstrument(self), options_of(self))

    def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        """The parent's events of one run, plus its `moca.citations` events.

        Returns `cited`'s stream itself, not a generator around it: one hop less per event.
        A MESSAGES_SNAPSHOT carries the text of this run's answers a model did not stream.
        """
        feed = CitationRun(options_of(self))
        run = LangGraphRun(feed, input)
        self.moca_agui_runs.add(input.run_id, run)
        ended = partial(self.moca_agui_runs.remove, input.run_id, run)
        stream = CitationStream(feed, snapshot_text=run.is_new_message)
        return cited(tap(super().run(input), run.take), stream, ended=ended)

    async def prepare_stream(self, input: RunAgentInput, agent_state: Any, config: Any) -> Any:
        """The parent's prepared stream, watched for the tool outputs of its Reader."""
        prepared = await super().prepare_stream(input=input, agent_state=agent_state, config=config)
        try:
            run = self.moca_agui_runs.get(input.run_id)
            if run is not None:
                run.watch(agent_state, prepared)
        except Exception:
            logger.exception("moca_agui: LangGraph tool outputs not watched in this run")
        return prepared

    async def prepare_regenerate_stream(
        self, input: RunAgentInput, message_checkpoint: Any, config: Any
    ) -> Any:
        """The parent's stream from the thread forked before `message_checkpoint` (the
        edited or regenerated question), which is the thread the run numbers."""
        run = self.moca_agui_runs.get(input.run_id)
        if run is not None:
            run.forked_before(message_checkpoint)
        return await super().prepare_regenerate_stream(
            input=input, message_checkpoint=message_checkpoint, config=config
        )


def citing(agent: A, options: CitationOptions) -> A:
    """A fresh clone of `agent` (a `LangGraphAgent`) that sends `moca.citations` events."""
    return citing_copy(agent, CitingAgent, options, copy=_clone)


def _clone(agent: Any) -> Any:
    twin = agent.clone()
    twin.moca_agui_runs = RunRegistry()
    return twin
