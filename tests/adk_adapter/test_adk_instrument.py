"""`moca_agui.instrument` on ag-ui-adk's `ADKAgent`: an instance, the class, the user's
own subclasses, and what happens with the wrong object or without the framework."""

from __future__ import annotations

from typing import Any

import pytest
from adk_support import A, Call, Reader, adk_agent, answer_ids, endpoint, kinds, llm_agent, post
from ag_ui.core import CustomEvent, EventType, RunAgentInput
from ag_ui_adk import ADKAgent
from google.adk.apps import App

import moca_agui
from moca_agui.adapters.adk import CitingADKAgent
from support import citation_events, import_error, python, ref

pytestmark = pytest.mark.filterwarnings("ignore:\\[EXPERIMENTAL\\]:UserWarning")


def reader_agent(**kw: Any) -> ADKAgent:
    script = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], [f"See {ref(A)}."]]
    return adk_agent(llm_agent(script, *Reader(A).tools), **kw)


def assert_one_citation_of_a(stream: list[dict[str, Any]], record: dict[str, Any] = A) -> None:
    assert kinds(stream)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"record": record}]


async def test_an_instance_is_copied_citing_and_the_original_is_left_as_it_was():
    plain = reader_agent()
    cited = moca_agui.instrument(plain, include_text=False)
    assert isinstance(cited, CitingADKAgent) and type(plain) is ADKAgent
    assert vars(plain).keys() <= vars(cited).keys()
    assert moca_agui.uninstrument(cited) is plain
    assert_one_citation_of_a(
        await post(endpoint(cited), "q"), {k: v for k, v in A.items() if k != "text"}
    )
    assert citation_events(await post(endpoint(plain), "q")) == []  # the original: unchanged
    again = moca_agui.instrument(cited)
    assert moca_agui.uninstrument(again) is plain
    assert moca_agui.adapter.options_of(again).include_text is True


async def test_the_class_is_instrumented_idempotently_and_reversibly():
    cited = moca_agui.instrument(ADKAgent)
    assert issubclass(cited, ADKAgent) and issubclass(cited, CitingADKAgent)
    assert moca_agui.uninstrument(cited) is ADKAgent
    again = moca_agui.instrument(cited, include_text=False)
    assert moca_agui.uninstrument(again) is ADKAgent
    assert [base for base in again.__mro__ if base is CitingADKAgent] == [CitingADKAgent]
    assert not issubclass(ADKAgent, CitingADKAgent)
    script = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], [f"See {ref(A)}."]]
    agent = again(adk_agent=llm_agent(script, *Reader(A).tools), app_name="t", user_id="u")
    stream = await post(endpoint(agent), "q")
    assert_one_citation_of_a(stream, {k: v for k, v in A.items() if k != "text"})


class GreetingAgent(ADKAgent):
    """A user's ADKAgent that sends its own event first."""

    async def run(self, input: RunAgentInput) -> Any:
        async for event in super().run(input):
            yield event
            if event.type == EventType.RUN_STARTED:
                yield CustomEvent(type=EventType.CUSTOM, name="app.greeting", value="hello")


async def test_a_users_subclass_keeps_its_own_events():
    script = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], [f"See {ref(A)}."]]
    plain = GreetingAgent(adk_agent=llm_agent(script, *Reader(A).tools), app_name="t", user_id="u")
    cited = moca_agui.instrument(plain)
    assert isinstance(cited, GreetingAgent)
    before = await post(endpoint(plain), "q")
    stream = await post(endpoint(cited), "q")
    assert kinds(stream) == [*kinds(before)[:-1], "CUSTOM:moca.citations", "RUN_FINISHED"]
    assert kinds(stream)[1] == "CUSTOM:app.greeting"
    assert_one_citation_of_a(stream)


def test_the_adk_agent_or_app_itself_is_refused_with_the_line_to_write():
    root = llm_agent([["hi"]])
    for target in (root, App(name="tests", root_agent=root)):
        with pytest.raises(
            TypeError, match=r"moca_agui.instrument\(ADKAgent\(adk_agent=root_agent"
        ):
            moca_agui.instrument(target)


def test_what_no_adapter_handles_names_the_adk_install():
    with pytest.raises(TypeError, match=r"ADKAgent.*pip install 'moca-agui\[adk\]'"):
        moca_agui.instrument(object())


def test_the_plugin_imports_without_adk_and_claims_nothing():
    done = python(
        """
        import sys
        import moca_agui
        from moca_agui.adapters.adk_plugin import ADAPTER as adk_plugin
        def adk_loaded():
            return any(name.startswith(("ag_ui_adk", "google.adk")) for name in sys.modules)
        assert not adk_loaded()
        options = moca_agui.CitationOptions()
        assert adk_plugin.moca_instrument(target=object(), options=options) is None
        assert adk_plugin.moca_instrument(target=type, options=options) is None
        assert not adk_loaded()
        print("ok")
        """
    )
    assert done.stdout.strip() == "ok", done.stderr


def test_without_adk_the_adapter_names_the_install():
    done = import_error("moca_agui.adapters.adk", missing="ag_ui_adk")
    assert "pip install -e '.[adk]'" in done.stdout, done.stderr
    assert "pip install 'moca-agui[adk]'" in done.stdout
