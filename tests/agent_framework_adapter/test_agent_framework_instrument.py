"""`moca_agui.instrument` on agent-framework-ag-ui's `AgentFrameworkAgent`: an instance, the
class, a user's subclass, what it refuses, and what happens without the framework; and
concurrent requests on one endpoint."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from af_support import (
    A,
    B,
    Reader,
    answer_ids,
    app_for,
    assert_passes_every_check,
    call,
    chat_agent,
    cited,
    post,
    say,
    scripted,
)
from ag_ui.core import BaseEvent, CustomEvent
from agent_framework import Agent, WorkflowBuilder, tool
from agent_framework_ag_ui import AgentFrameworkAgent, AgentFrameworkWorkflow

import moca_agui
from moca_agui.adapters.agent_framework import CitingAgentFrameworkAgent
from support import citation_events, import_error, python, ref, types


def reader_agent() -> Any:
    model = scripted([[call("moca_get_node", node_id=ref(A))], [say(f"See {ref(A)}.")]])
    return chat_agent(model, *Reader(A).tools)


def assert_one_citation_of_a(stream: list[dict[str, Any]], **record_changes: Any) -> None:
    assert_passes_every_check(stream)
    assert types(stream)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    record = {k: v for k, v in A.items() if k not in record_changes}
    assert value["citations"] == [{"record": record}]


async def test_an_instance_is_instrumented_as_a_copy_and_the_original_is_untouched():
    original = AgentFrameworkAgent(agent=reader_agent(), name="support")
    agent = moca_agui.instrument(original)
    assert isinstance(agent, AgentFrameworkAgent) and isinstance(agent, CitingAgentFrameworkAgent)
    assert type(original) is AgentFrameworkAgent
    assert (agent.agent, agent.config, agent.name) == (original.agent, original.config, "support")
    assert moca_agui.uninstrument(agent) is original
    assert_one_citation_of_a(await post(app_for(agent), "q"))
    assert citation_events(await post(app_for(original), "q")) == []


async def test_instrumenting_again_cites_once_with_the_new_options():
    agent = moca_agui.instrument(AgentFrameworkAgent(agent=reader_agent()))
    again = moca_agui.instrument(agent, include_text=False)
    assert [b for b in type(again).__mro__ if b is CitingAgentFrameworkAgent] == [
        CitingAgentFrameworkAgent
    ]
    assert_one_citation_of_a(await post(app_for(again), "q"), text=None)


async def test_the_instrumented_class_makes_citing_agents():
    CitedAgent = moca_agui.instrument(AgentFrameworkAgent, include_text=False)
    assert issubclass(CitedAgent, AgentFrameworkAgent)
    assert moca_agui.uninstrument(CitedAgent) is AgentFrameworkAgent
    assert not issubclass(AgentFrameworkAgent, CitingAgentFrameworkAgent)
    assert_one_citation_of_a(await post(app_for(CitedAgent(agent=reader_agent())), "q"), text=None)


async def test_a_users_subclass_keeps_its_own_run_and_gets_citations():
    class Greeting(AgentFrameworkAgent):
        async def run(self, input_data: dict[str, Any], **kwargs: Any) -> AsyncGenerator[BaseEvent]:
            async for event in super().run(input_data, **kwargs):
                if event.type == "RUN_FINISHED":
                    yield CustomEvent(name="greeting", value="hello")
                yield event

    stream = await post(app_for(moca_agui.instrument(Greeting(agent=reader_agent()))), "q")
    assert_passes_every_check(stream)
    assert types(stream)[-3:] == ["CUSTOM:greeting", "CUSTOM:moca.citations", "RUN_FINISHED"]


async def test_a_chat_agent_that_cannot_be_copied_is_cited_from_tool_call_result(caplog):
    class Singleton(Agent[Any]):
        def __copy__(self) -> Singleton:
            raise TypeError("one of a kind")

    model = scripted([[call("moca_get_node", node_id=ref(A))], [say(f"See {ref(A)}.")]])
    the_agent = Singleton(model, tools=Reader(A).tools, name="singleton")
    with caplog.at_level(logging.ERROR, logger="moca_agui"):
        stream = await post(cited(the_agent), "q")
    assert "reading TOOL_CALL_RESULT instead" in caplog.text
    assert_one_citation_of_a(stream)


def test_the_chat_agent_or_a_workflow_is_refused_with_the_line_to_write():
    the_line = r"instrument\(AgentFrameworkAgent\(agent=chat_agent\)\)"
    workflow = WorkflowBuilder(start_executor=reader_agent()).build()
    for target in (reader_agent(), workflow):
        with pytest.raises(TypeError, match=the_line):
            moca_agui.instrument(target)
    with pytest.raises(TypeError, match="not yet an AgentFrameworkWorkflow"):
        moca_agui.instrument(AgentFrameworkWorkflow(workflow=workflow))


def test_an_object_no_adapter_takes_lists_this_adapters_install_line():
    with pytest.raises(TypeError, match=r"AgentFrameworkAgent.*moca-agui\[agent-framework\]"):
        moca_agui.instrument(object())


async def test_concurrent_requests_on_one_endpoint_see_only_their_own_records():
    """Two runs overlap for real: each one's tool waits until the other one's started."""
    started = {"a.md": asyncio.Event(), "b.md": asyncio.Event()}
    records = {"a.md": A, "b.md": B}

    @tool(name="moca_search")
    async def search(query: str) -> dict[str, Any]:
        """Search (each run's tool waits for the other run's)."""
        started[query].set()
        await started["b.md" if query == "a.md" else "a.md"].wait()
        return {"query": query, "results": [records[query]]}

    def script(question: str) -> list[list[Any]]:
        return [[call("moca_search", query=question)], [say(f"{ref(A)} and {ref(B)} [1].")]]

    app = cited(chat_agent(scripted(script), search))
    first, second = await asyncio.wait_for(
        asyncio.gather(post(app, "a.md"), post(app, "b.md")), timeout=60
    )
    for stream, own in ((first, A), (second, B)):
        assert_passes_every_check(stream)
        [value] = citation_events(stream)
        assert value["messageId"] == answer_ids(stream)[0]
        # the answer names both refs; only this run's Reader returned one of them
        assert value["citations"] == [{"marker": "[1]", "record": own}]


def test_the_plugin_imports_without_the_framework_and_claims_nothing():
    done = python(
        """
        import sys
        import moca_agui
        from moca_agui.adapters.agent_framework_plugin import ADAPTER as agent_framework_plugin
        options = moca_agui.CitationOptions()
        assert agent_framework_plugin.moca_instrument(target=object(), options=options) is None
        assert agent_framework_plugin.moca_instrument(target=type, options=options) is None
        assert not any(name.startswith("agent_framework") for name in sys.modules)
        print("ok")
        """
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_without_the_framework_the_adapter_names_the_install():
    done = import_error("moca_agui.adapters.agent_framework", missing="agent_framework")
    assert "pip install -e '.[agent-framework]' in a clone" in done.stdout, done.stderr
    assert "once released: pip install 'moca-agui[agent-framework]'" in done.stdout
