"""`moca_agui.instrument` on ag-ui-strands' `StrandsAgent`: what it returns, what it
leaves alone, and the errors that name the fix."""

from __future__ import annotations

import importlib
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui_strands import StrandsAgent
from strands import Agent
from strands_support import A, Call, ScriptedModel, app_for, post, reader_tools, strands_agent

import moca_agui
from moca_agui.adapters.strands import CitingStrandsAgent
from support import citation_events, ref

SCRIPT = [[Call("moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]]


def test_the_instrumented_agent_is_a_copy_of_the_agents_own_class() -> None:
    original = strands_agent(ScriptedModel(SCRIPT), reader_tools(A))
    hooks = list(original._hooks)
    cited = moca_agui.instrument(original, include_text=False)
    assert isinstance(cited, CitingStrandsAgent) and isinstance(cited, StrandsAgent)
    assert type(original) is StrandsAgent and original._hooks == hooks  # left alone
    assert cited.name == original.name and cited.config is original.config
    assert moca_agui.uninstrument(cited) is original
    assert moca_agui.adapter.options_of(cited).include_text is False


def test_instrumenting_again_starts_from_the_original_with_the_new_options() -> None:
    original = strands_agent(ScriptedModel(SCRIPT), reader_tools(A))
    once = moca_agui.instrument(original, include_text=False)
    twice = moca_agui.instrument(once)
    assert moca_agui.uninstrument(twice) is original
    assert moca_agui.adapter.options_of(twice).include_text is True
    assert len(twice._hooks) == len(original._hooks) + 1  # one Reader hook, not two


async def test_a_subclass_keeps_its_own_run_and_the_plain_agent_keeps_working() -> None:
    ran: list[str] = []

    class Tagged(StrandsAgent):  # type: ignore[misc]
        async def run(self, input_data: Any, **kwargs: Any) -> AsyncIterator[Any]:
            ran.append(input_data.thread_id)
            async for event in super().run(input_data, **kwargs):
                yield event

    original = Tagged(agent=Agent(model=ScriptedModel(SCRIPT), tools=reader_tools(A)), name="x")
    cited = moca_agui.instrument(original)
    assert isinstance(cited, Tagged) and type(cited).__mro__[1] is CitingStrandsAgent
    [value] = citation_events(await post(app_for(cited), "q", thread_id="t-cited"))
    assert value["citations"] == [{"record": A}]
    plain = await post(app_for(original), "q", thread_id="t-plain")
    assert citation_events(plain) == []
    assert ran == ["t-cited", "t-plain"]


def test_a_class_or_a_strands_agent_is_refused_with_the_one_line() -> None:
    one_line = 'moca_agui.instrument(StrandsAgent(agent=strands_agent, name="..."))'
    with pytest.raises(TypeError, match="instance, not its class") as refused:
        moca_agui.instrument(StrandsAgent)
    assert one_line in str(refused.value)
    with pytest.raises(TypeError, match="not the Agent") as refused:
        moca_agui.instrument(Agent(model=ScriptedModel(SCRIPT)))
    assert one_line in str(refused.value)


def test_an_unknown_target_names_the_strands_install() -> None:
    with pytest.raises(TypeError) as refused:
        moca_agui.instrument(object())
    hint = "`StrandsAgent` (ag-ui-strands): pip install -e '.[strands]' in a clone of moca-agui"
    assert hint in str(refused.value)


def test_without_ag_ui_strands_the_adapter_names_the_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ag_ui_strands", None)
    monkeypatch.delitem(sys.modules, "moca_agui.adapters.strands")
    with pytest.raises(ImportError) as missing:
        importlib.import_module("moca_agui.adapters.strands")
    assert "pip install -e '.[strands]' in a clone of moca-agui" in str(missing.value)
    assert "(once released: pip install 'moca-agui[strands]')" in str(missing.value)
