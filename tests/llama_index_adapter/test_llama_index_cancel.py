"""A LlamaIndex run cut off mid-way (its client left, the workflow cancelled) leaves no
lookup running: those the streamed answer started end with the run, not at their
timeout."""

from __future__ import annotations

import asyncio
from typing import Any

from ag_ui.core import RunAgentInput, UserMessage
from li_support import QUESTION, Call, Turn, returning, tool, workflow

import moca_agui
from support import compact, other_tasks, record, ref, settled

A = record("a.md")


async def test_a_workflow_cancelled_mid_step_ends_the_lookups_its_answer_started():
    asked, cancelled = asyncio.Event(), []

    async def lookup(node_ref: str) -> dict[str, Any] | None:
        asked.set()
        try:
            await asyncio.Event().wait()  # a Reader that never answers
        except asyncio.CancelledError:
            cancelled.append(node_ref)
            raise
        return None

    async def hang(query: str = "") -> str:
        await asyncio.Event().wait()  # a tool still running when the client leaves
        return ""

    search = Call("moca_search", "c1", {"query": QUESTION})
    agent = moca_agui.instrument(
        workflow(
            Turn(calls=(search,)),
            # The answer names [1] (a compact result: only `lookup` gives its record), then
            # calls a tool in the same response.
            Turn(chunks=("Per [1] ", "and more"), calls=(Call("hang", "c2"),)),
            tools=[returning("moca_search", {"results": [compact(A)]}), tool("hang", hang)],
        ),
        lookup=lookup,
        lookup_timeout=3600,  # the run must end it, not its timeout
    )
    baseline = set(asyncio.all_tasks())
    question = UserMessage(id="u1", role="user", content="How long is the refund window?")
    handler = agent.run(
        input_data=RunAgentInput(
            thread_id="t", run_id="r", state={}, messages=[question], tools=[], context=[],
            forwarded_props={},
        )
    )  # fmt: skip
    await asyncio.wait_for(asked.wait(), 10)  # the lookup runs while the tool hangs
    await asyncio.wait_for(handler.cancel_run(), 10)  # without waiting for the lookup
    assert await settled(lambda: cancelled == [ref(A)])
    assert await settled(lambda: not other_tasks(baseline))
    assert len(agent.moca_agui_runs) == 0  # the run left the registry, though its context lives
    assert handler.ctx is not None
