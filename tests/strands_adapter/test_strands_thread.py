"""Strands over turns of one thread: as @ag-ui/client sends them (the whole thread each run,
built from the previous run's events; ag-ui-strands replays it into the per-thread agent),
and as a client that sends only its new question to an agent that keeps its own history
(`replay_history_into_strands=False`: the model reads the per-thread agent's messages).
Numbered tools count on, an earlier source is cited only with the record `lookup` gives
now, a forged record the client sends back is never sent, a source read again keeps its
number."""

from __future__ import annotations

import functools
from typing import Any

from strands import tool
from strands_support import ScriptedModel, app_for, strands_agent
from thread_turns import (
    LONGER_ANSWER,
    TRIMMED_ANSWER,
    WHOLE_ANSWER,
    Steps,
    follow_ups,
    get_node,
    numbered_over_three_turns,
    resent_thread,
    search_hits,
)

import moca_agui


@tool
def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return search_hits(query)


@tool
def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def serve(steps: Steps, *, numbered: bool, replay: bool = True, **options: Any) -> Any:
    """`replay=False`: the per-thread agents keep their own history (the client's messages
    are not replayed into them)."""
    model = ScriptedModel(lambda question: [[step] for step in steps[question]])
    tools = [moca_search, moca_get_node]
    agent = strands_agent(
        model, moca_agui.numbered(tools) if numbered else tools, replay_history_into_strands=replay
    )
    return app_for(moca_agui.instrument(agent, **options))


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    await numbered_over_three_turns(serve)


async def test_a_client_that_sends_only_new_messages_gets_the_agents_numbers():
    """The per-thread Strands agent holds the thread; each run's input is the new question."""
    await numbered_over_three_turns(functools.partial(serve, replay=False), whole_thread=False)


async def test_follow_ups_cite_earlier_sources_only_with_the_record_lookup_gives_now():
    await follow_ups(serve)


async def test_a_trimmed_or_longer_thread_is_numbered_as_replayed_into_the_agent():
    """ag-ui-strands replays the client's thread into the agent: the model reads it as sent."""
    await resent_thread(serve, "trimmed", TRIMMED_ANSWER)
    await resent_thread(serve, "edited", WHOLE_ANSWER)
    await resent_thread(serve, "longer", LONGER_ANSWER)


async def test_an_agent_keeping_its_own_history_numbers_it_whatever_the_client_sends():
    """Replay off: the model reads the agent's messages and the new question; turns the
    client dropped still count, turns the agent never held (another thread's, or a whole
    thread new to it) never do."""
    keeping = functools.partial(serve, replay=False)
    await resent_thread(keeping, "trimmed", WHOLE_ANSWER)
    await resent_thread(keeping, "edited", WHOLE_ANSWER)
    await resent_thread(keeping, "longer", WHOLE_ANSWER)
    await resent_thread(keeping, "moved", TRIMMED_ANSWER)
