"""The LangGraph page's diff, applied and run: the code a user ends up with cites."""

from __future__ import annotations

from fastapi import FastAPI
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from lg_chat import Say, StreamingChatModel
from lg_reader import SEARCH, A, moca_get_node, moca_search
from lg_service import post, run_input, text_message_ids
from readme_code import readme_diffs

from support import citation_events


async def test_the_docs_diff_applied_gives_an_endpoint_that_cites() -> None:
    [code] = readme_diffs("The one line", "frameworks/langgraph.md")
    assert 'agent = moca_agui.instrument(LangGraphAgent(name="support", graph=graph))' in code
    model = StreamingChatModel(script=[[SEARCH], [Say("Bees need water [1].")]])
    graph = create_agent(model, [moca_search, moca_get_node], checkpointer=InMemorySaver())
    namespace = {"graph": graph, "app": FastAPI()}
    exec(code, namespace)
    stream = await post(namespace["app"], run_input())
    [value] = citation_events(stream)
    assert value["messageId"] == text_message_ids(stream)[-1]
    assert value["citations"] == [{"marker": "[1]", "record": A}]
