"""LangGraph over turns of one thread: as @ag-ui/client sends them (the whole thread each
run, from the previous run's MESSAGES_SNAPSHOT), and as a client that sends only its new
messages to a checkpointed graph (the model reads the checkpoint's thread). Numbered tools
count on, an earlier source is cited only with the record `lookup` gives now, a forged
record the client sends back is never sent, and a source read again keeps its number."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import tool
from lg_chat import Say, StreamingChatModel, Turn
from lg_service import agent, app_for
from thread_turns import Steps, follow_ups, get_node, numbered_over_three_turns, search_hits

import moca_agui


@tool
def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return search_hits(query)


@tool
def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


class ThreadModel(StreamingChatModel):
    """Answers the thread's last question with its steps, one per model call."""

    steps: Steps

    def turn(self, messages: list[BaseMessage]) -> Turn:
        asked = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        answered = sum(isinstance(m, AIMessage) for m in messages[asked:])
        step = self.steps[str(messages[asked].content)][answered]
        return [Say(step) if isinstance(step, str) else step]


def serve(steps: Steps, *, numbered: bool, **options: Any) -> Any:
    tools = [moca_search, moca_get_node]
    model = ThreadModel(script=[], steps=steps)
    return app_for(agent(model, moca_agui.numbered(tools) if numbered else tools, **options))


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    await numbered_over_three_turns(serve)


async def test_a_client_that_sends_only_new_messages_gets_the_checkpointed_threads_numbers():
    """The checkpointer holds the thread; each run's input is the new question alone."""
    await numbered_over_three_turns(serve, whole_thread=False)


async def test_follow_ups_cite_earlier_sources_only_with_the_record_lookup_gives_now():
    await follow_ups(serve)
