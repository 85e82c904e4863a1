"""`moca_agui.instrument` on LlamaIndex targets: what it accepts, idempotent, reversible."""

from __future__ import annotations

import inspect
import logging

import pytest
from li_support import Call, Turn, app_of, post, returning, scripted_llm, workflow
from llama_index.core.workflow import StartEvent, StopEvent, Workflow, step
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow
from llama_index.protocols.ag_ui.router import AGUIWorkflowRouter, get_ag_ui_workflow_router

import moca_agui
from moca_agui.adapters.llama_index import CitingWorkflow
from moca_agui.adapters.llama_index_plugin import ADAPTER as llama_index_plugin
from support import citation_events, python, record

A = record("a.md")
TURNS = (
    Turn(calls=(Call("moca_search", "call-1", {"query": "q"}),)),
    Turn(text="Per [1]."),
)


def reader() -> list:
    return [returning("moca_search", {"query": "q", "results": [A]})]


def new_workflow() -> AGUIChatWorkflow:
    return workflow(*TURNS, tools=reader())


async def run(factory) -> list[dict]:
    return await post(app_of(factory))


def serving(instance):
    async def factory():
        return instance

    return factory


async def factory():
    """The user's workflow factory."""
    return new_workflow()


async def test_a_factory_is_wrapped_and_given_back():
    cited = moca_agui.instrument(factory)
    assert inspect.iscoroutinefunction(cited)
    assert cited.__name__ == "factory" and cited.__doc__ == factory.__doc__
    assert moca_agui.uninstrument(cited) is factory
    [value] = citation_events(await run(cited))
    assert value["citations"] == [{"marker": "[1]", "record": A}]
    assert citation_events(await run(factory)) == []


async def test_a_plain_function_returning_a_coroutine_is_a_factory_too():
    def plain_factory():
        return factory()  # a coroutine, as `get_ag_ui_workflow_router` accepts

    cited = moca_agui.instrument(plain_factory)
    assert moca_agui.uninstrument(cited) is plain_factory
    [value] = citation_events(await run(cited))
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_a_class_is_subclassed_and_the_original_left_alone():
    cited_class = moca_agui.instrument(AGUIChatWorkflow, include_text=False)
    assert issubclass(cited_class, AGUIChatWorkflow) and cited_class is not AGUIChatWorkflow
    assert cited_class.__name__ == "CitingAGUIChatWorkflow"
    assert moca_agui.uninstrument(cited_class) is AGUIChatWorkflow
    instance = cited_class(llm=scripted_llm(*TURNS), backend_tools=reader())
    [value] = citation_events(await run(serving(instance)))
    assert value["citations"] == [
        {"marker": "[1]", "record": {k: v for k, v in A.items() if k != "text"}}
    ]
    assert not issubclass(AGUIChatWorkflow, CitingWorkflow)
    assert citation_events(await run(serving(new_workflow()))) == []


async def test_a_user_subclass_keeps_its_own_steps():
    class Shouting(AGUIChatWorkflow):
        def _snapshot_messages(self, ctx, chat_history):
            for message in chat_history:
                if message.role.value == "assistant" and message.content:
                    message.content = message.content.upper()
            super()._snapshot_messages(ctx, chat_history)

    cited_class = moca_agui.instrument(Shouting)
    instance = cited_class(llm=scripted_llm(*TURNS), backend_tools=reader())
    stream = await run(serving(instance))
    assert stream[-3]["messages"][-1]["content"] == "PER [1]."
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_an_instance_is_copied_and_the_original_left_alone():
    original = new_workflow()
    cited = moca_agui.instrument(original)
    assert cited is not original and isinstance(cited, type(original))
    assert moca_agui.uninstrument(cited) is original
    assert cited.llm is original.llm and cited.backend_tools is original.backend_tools
    assert len(citation_events(await run(serving(cited)))) == 1
    assert citation_events(await run(serving(original))) == []


@pytest.mark.parametrize("target", [factory, AGUIChatWorkflow, "instance"])
async def test_instrumenting_twice_cites_once_with_the_new_options(target):
    target = new_workflow() if target == "instance" else target
    twice = moca_agui.instrument(moca_agui.instrument(target), include_text=False)
    assert moca_agui.uninstrument(twice) is target
    if isinstance(twice, type):
        twice = twice(llm=scripted_llm(*TURNS), backend_tools=reader())
    if isinstance(twice, Workflow):
        twice = serving(twice)
    stream = await run(twice)
    [value] = citation_events(stream)
    assert "text" not in value["citations"][0]["record"]


async def test_a_factory_of_instrumented_workflows_cites_once():
    cited_class = moca_agui.instrument(AGUIChatWorkflow)

    async def cited_inside():
        return cited_class(llm=scripted_llm(*TURNS), backend_tools=reader())

    stream = await run(moca_agui.instrument(cited_inside, include_text=False))
    [value] = citation_events(stream)
    assert "text" not in value["citations"][0]["record"]


class NotAGUI(Workflow):
    @step
    async def only(self, ev: StartEvent) -> StopEvent:
        return StopEvent(result="done")


async def test_a_factory_returning_another_workflow_passes_it_through_with_a_warning(caplog):
    plain = NotAGUI()

    async def other_factory():
        return plain

    cited = moca_agui.instrument(other_factory)
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        assert await cited() is plain
    assert "not an AGUIChatWorkflow: no citations" in caplog.text


@pytest.mark.parametrize(
    "target", [lambda input_data: None, {"a": 1}, 42], ids=lambda t: type(t).__name__
)
def test_the_plugin_leaves_other_targets_to_other_adapters(target):
    options = moca_agui.CitationOptions()
    assert llama_index_plugin.moca_instrument(target=target, options=options) is None


@pytest.mark.parametrize(
    "target",
    [
        get_ag_ui_workflow_router(workflow_factory=factory),
        AGUIWorkflowRouter(factory),
        NotAGUI,
        NotAGUI(),
    ],
    ids=["router", "AGUIWorkflowRouter", "workflow class", "workflow"],
)
def test_a_wrong_llama_index_target_gets_an_error_that_shows_the_one_line(target):
    one_line = "get_ag_ui_workflow_router(workflow_factory=moca_agui.instrument(workflow_factory))"
    with pytest.raises(TypeError) as raised:
        moca_agui.instrument(target)
    assert one_line in str(raised.value)


def test_the_plugin_never_imports_llama_index():
    result = python(
        "import sys, moca_agui\n"
        "from moca_agui.plugins import get_plugin_manager\n"
        "get_plugin_manager()\n"
        "from moca_agui.adapters.llama_index_plugin import ADAPTER as llama_index_plugin\n"
        "async def factory(): pass\n"
        "assert llama_index_plugin.moca_instrument("
        "target=factory, options=moca_agui.CitationOptions()) is None\n"
        "assert not any(m.startswith('llama_index') for m in sys.modules), 'imported'\n"
    )
    assert result.returncode == 0, result.stderr


def test_a_missing_extra_names_the_install_command():
    result = python(
        "import sys\n"
        "sys.modules['llama_index.protocols.ag_ui.agent'] = None\n"
        "try:\n"
        "    import moca_agui.adapters.llama_index\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'moca-agui[llama-index]'" in result.stdout
    assert "pip install -e '.[llama-index]' in a clone of moca-agui" in result.stdout
