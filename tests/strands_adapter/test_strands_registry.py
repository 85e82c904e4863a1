"""Where a Strands run is found: the citing agent's `RunRegistry`, under a key of the run's
own that is all the run puts in Strands' `invocation_state`; an ended run is found no
more."""

from __future__ import annotations

from typing import Any

from strands import ToolContext, tool
from strands_support import A, Call, ScriptedModel, app_for, post, strands_agent

import moca_agui
from moca_agui.adapters._strands import RUN_KEY
from support import citation_events, ref, settled


async def test_the_invocation_state_carries_only_the_runs_key() -> None:
    seen: list[dict[str, Any]] = []

    @tool(context=True)
    def moca_get_node(node_id: str, tool_context: ToolContext) -> dict[str, Any]:
        """Read one node (and what this call's invocation state holds)."""
        seen.append(dict(tool_context.invocation_state))
        return A

    model = ScriptedModel([[Call("moca_get_node", {"node_id": ref(A)})], [f"{ref(A)} [1]"]])
    agent = moca_agui.instrument(strands_agent(model, [moca_get_node]))
    stream = await post(app_for(agent), "q")
    [state] = seen
    key = state[RUN_KEY]
    assert isinstance(key, str)  # a key, not the run: the app's tools and hooks see no run
    assert [key for key, value in state.items() if key.startswith("moca_agui")] == [RUN_KEY]
    assert [v["citations"] for v in citation_events(stream)] == [[{"marker": "[1]", "record": A}]]
    assert await settled(lambda: agent.moca_agui_runs.get(key) is None)  # the run ended


async def test_an_ended_run_is_found_no_more_while_something_still_holds_it() -> None:
    """The run leaves the registry when its stream ends, not when it is collected (here a
    tool keeps it)."""
    held: list[tuple[object, str]] = []

    @tool(context=True)
    def moca_get_node(node_id: str, tool_context: ToolContext) -> dict[str, Any]:
        """Read one node (and keep this call's run)."""
        key = tool_context.invocation_state[RUN_KEY]
        held.append((agent.moca_agui_runs.get(key), key))
        return A

    model = ScriptedModel([[Call("moca_get_node", {"node_id": ref(A)})], [f"{ref(A)} [1]"]])
    agent = moca_agui.instrument(strands_agent(model, [moca_get_node]))
    await post(app_for(agent), "q")
    [(run, key)] = held
    assert run is not None
    assert agent.moca_agui_runs.get(key) is None
