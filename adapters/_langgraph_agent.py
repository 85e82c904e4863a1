"""The citing `LangGraphAgent`: each run sends one `moca.citations` event per answer.

`citing(agent, options)` returns a fresh clone of `agent` whose class is the agent's own
class with `CitingAgent` mixed in first, so the overrides of a `LangGraphAgent` subclass
stay in force. Three methods change, and only by wrapping the parent's:

- `run` makes a `LangGraphRun` and passes the parent's events through `moca_agui.cite`;
- `prepare_stream` watches the LangGraph events of the run for Reader tool outputs;
- `clone` (which `add_langgraph_fastapi_endpoint` calls for every request) makes another
  instrumented clone of the original agent, with the same options.

Nothing of a run is kept on the agent: run state lives in the run's `LangGraphRun` and
in the parent's own per-run `active_run`.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import AsyncGenerator
from typing import Any, TypeVar, cast

from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui_langgraph import LangGraphAgent  # type: ignore[import-untyped]

import moca_agui
from moca_agui import CitationOptions, cite

from ._langgraph_run import LangGraphRun, watch

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

    def clone(self) -> CitingAgent:
        """A fresh instrumented clone of the original agent, with the same options."""
        options = self.moca_agui_options
        kwargs = {field.name: getattr(options, field.name) for field in dataclasses.fields(options)}
        return moca_agui.instrument(moca_agui.uninstrument(self), **kwargs)

    async def run(self, input: RunAgentInput) -> AsyncGenerator[BaseEvent, None]:
        """The parent's events of one run, plus its `moca.citations` events."""
        run = LangGraphRun(self.moca_agui_options, input)
        async for event in cite(run.observe(super().run(input), self), run=run):
            yield event

    async def prepare_stream(self, input: RunAgentInput, agent_state: Any, config: Any) -> Any:
        """The parent's prepared stream, watched for the tool outputs of its Reader."""
        prepared = await super().prepare_stream(input=input, agent_state=agent_state, config=config)
        try:
            watch(self.active_run, agent_state, prepared)
        except Exception:
            logger.exception("moca_agui: LangGraph tool outputs not watched in this run")
        return prepared


def citing(agent: A, options: CitationOptions) -> A:
    """A fresh clone of `agent` (a `LangGraphAgent`) that sends `moca.citations` events."""
    if isinstance(agent, CitingAgent):
        raise TypeError(
            "this agent is instrumented already; moca_agui.instrument(agent) works on it "
            "only when it was made by moca_agui.instrument"
        )
    twin = agent.clone()  # type: ignore[attr-defined]
    twin.__class__ = _citing_class(type(twin))  # type: ignore[arg-type]
    twin.moca_agui_options = options
    return cast(A, twin)


@functools.cache
def _citing_class(agent_class: type[Any]) -> type[CitingAgent]:
    """`agent_class` with `CitingAgent` mixed in first (made once per class)."""
    if agent_class is LangGraphAgent:
        return CitingAgent
    name = f"Citing{agent_class.__name__}"
    return cast(type[CitingAgent], type(name, (CitingAgent, agent_class), {}))
