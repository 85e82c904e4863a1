"""Where an ADK run is found: the citing agent's `RunRegistry`, under the run's own
`CitationRun`, while its stream is in flight; it leaves when the stream ends or is closed
(the client left), not when it is collected."""

from __future__ import annotations

from typing import Any

from adk_support import A, Call, adk_agent, endpoint, llm_agent, post
from ag_ui.core import RunAgentInput

import moca_agui
from moca_agui.adapter import request_run
from support import citation_events, ref, run_input

SCRIPT = [[Call("moca_get_node", {"node_id": ref(A)}, "call-1")], [f"See {ref(A)} [1]."]]


def held_by_a_tool(held: list[tuple[Any, Any]]) -> Any:
    """An ADK agent whose Reader tool keeps its run's `CitationRun` and registered run."""

    def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref (and keep this call's run)."""
        feed = request_run()
        held.append((feed, agent.moca_agui_runs.get(feed)))
        return A

    agent = moca_agui.instrument(adk_agent(llm_agent(SCRIPT, moca_get_node)))
    return agent


async def test_an_ended_run_is_found_no_more_while_something_still_holds_it() -> None:
    held: list[tuple[Any, Any]] = []
    agent = held_by_a_tool(held)
    stream = await post(endpoint(agent), "q")
    assert [v["citations"] for v in citation_events(stream)] == [[{"marker": "[1]", "record": A}]]
    [(feed, run)] = held
    assert run is not None  # found while in flight
    assert agent.moca_agui_runs.get(feed) is None


async def test_a_run_whose_client_left_mid_stream_is_found_no_more() -> None:
    held: list[tuple[Any, Any]] = []
    agent = held_by_a_tool(held)
    events = agent.run(RunAgentInput.model_validate(run_input("q", "run-1", thread_id="t-left")))
    async for event in events:
        if event.type == "TOOL_CALL_RESULT":
            break  # the client leaves after the Reader's result
    await events.aclose()
    [(feed, run)] = held
    assert run is not None
    assert agent.moca_agui_runs.get(feed) is None
