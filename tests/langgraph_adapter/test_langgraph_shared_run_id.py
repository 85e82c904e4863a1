"""Two runs of one citing agent in flight under one run id (the client chooses run ids):
`prepare_stream` cannot tell which is its own, so the run never sees the checkpoint's
thread. It must not number the client's new messages alone as if they were the whole
thread: its markers are left out, never cited as this run's sources."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import RunAgentInput
from lg_service import agent, app_for
from shown_thread import C
from test_langgraph_fork import STEPS, StreamedShownModel, asked, moca_get_node
from thread_turns import cited, new_thread_id

from support import collect, run_input


@pytest.mark.parametrize("shared", [False, True], ids=["alone", "shared-run-id"])
async def test_a_follow_up_whose_run_is_not_found_leaves_its_markers_out(shared: bool) -> None:
    """Turn 1 is kept by the checkpointer (A `[1]`, B `[2]`); turn 2 sends only its question
    and reads C, which the model writes as `[3]`. Alone, `[3]` is C; beside another run
    under the same id, `[3]` (and `[1]`, which means A) are left out, never C as `[1]`."""
    served = agent(StreamedShownModel(script=[], steps=dict(STEPS)), [moca_get_node])
    thread_id = new_thread_id()
    await asked(app_for(served), thread_id, "q1")
    body: dict[str, Any] = run_input("q2", "run-2", thread_id=thread_id)
    if shared:  # another run, started and not yet ended, under the same run id
        other = served.run(RunAgentInput.model_validate(run_input("q1", "run-2")))
    stream = await collect(served.run(RunAgentInput.model_validate(body)))
    assert cited(stream) == ([] if shared else [{"marker": "[3]", "record": C}])
    if shared:
        await other.aclose()


async def test_an_ended_run_is_found_no_more_while_something_still_holds_it() -> None:
    """The run leaves the agent's registry when its stream ends, not when it is collected:
    a later run under the same id is found (here a tool of the first run keeps it)."""
    served = agent(StreamedShownModel(script=[], steps=dict(STEPS)), [moca_get_node])
    held = []

    async def ask() -> list[dict[str, Any]]:
        body = run_input("q1", "run-1", thread_id=new_thread_id())
        events = served.run(RunAgentInput.model_validate(body))
        held.append(served.moca_agui_runs.get("run-1"))
        return await collect(events)

    first = await ask()
    assert held[0] is not None
    assert served.moca_agui_runs.get("run-1") is None
    second = await ask()
    assert held[1] is not None and held[1] is not held[0]
    assert cited(second) == cited(first) != []
