"""Pydantic AI over turns of one thread, as @ag-ui/client sends them (the whole thread each
run, built from the previous run's events): numbered tools count on, an earlier source is
cited only with the record `lookup` gives now, a forged record the client sends back is
never sent, and a source read again keeps its number."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from pai_support import dispatch_app
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from thread_turns import Steps, follow_ups, get_node, numbered_over_three_turns, search_hits

import moca_agui
from support import Call


def thread_model(steps: Steps) -> FunctionModel:
    """Answers the thread's last question with its steps, one per response."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        asked = [
            (index, part.content)
            for index, message in enumerate(messages)
            if isinstance(message, ModelRequest)
            for part in message.parts
            if isinstance(part, UserPromptPart)
        ]
        at, question = asked[-1]
        step = steps[str(question)][sum(isinstance(m, ModelResponse) for m in messages[at:])]
        if isinstance(step, Call):
            yield {0: DeltaToolCall(name=step.name, tool_call_id=step.id)}
            yield {0: DeltaToolCall(json_args=json.dumps(step.args))}
        else:
            yield step

    return FunctionModel(stream_function=stream)


async def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return search_hits(query)


async def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def serve(steps: Steps, *, numbered: bool, **options: Any) -> Any:
    tools = [moca_search, moca_get_node]
    agent = Agent(thread_model(steps), tools=moca_agui.numbered(tools) if numbered else tools)
    return dispatch_app(moca_agui.instrument(AGUIAdapter, **options), agent)


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    await numbered_over_three_turns(serve)


async def test_follow_ups_cite_earlier_sources_only_with_the_record_lookup_gives_now():
    await follow_ups(serve)
