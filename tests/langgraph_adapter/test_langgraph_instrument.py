"""`moca_agui.instrument` on a LangGraphAgent: the clone it returns, `clone()`, undoing it,
subclasses, and the errors that name the fix."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from ag_ui_langgraph import LangGraphAgent
from lg_chat import Say, StreamingChatModel
from lg_reader import SEARCH, A, moca_search
from lg_service import app_for, plain_agent, post

import moca_agui
from moca_agui.adapters.langgraph import CitingAgent
from support import assert_valid_stream, citation_events, run_input

SCRIPT = [[SEARCH], [Say("Water [1].")]]


def original() -> LangGraphAgent:
    return plain_agent(StreamingChatModel(script=SCRIPT), [moca_search])


def test_instrument_returns_a_citing_clone_and_uninstrument_the_original() -> None:
    plain = original()
    agent = moca_agui.instrument(plain, include_text=False)

    assert isinstance(agent, CitingAgent)
    assert isinstance(agent, LangGraphAgent)
    assert agent is not plain
    assert type(plain) is LangGraphAgent
    assert (agent.name, agent.graph, agent.config) == ("kb", plain.graph, plain.config)
    assert agent.moca_agui_options == moca_agui.CitationOptions(include_text=False)
    assert moca_agui.uninstrument(agent) is plain


def test_instrument_is_idempotent() -> None:
    plain = original()
    agent = moca_agui.instrument(moca_agui.instrument(plain), reader_tools=["kb_search"])

    assert type(agent).__mro__.count(CitingAgent) == 1
    assert agent.moca_agui_options.reader_tools == {"kb_search"}
    assert moca_agui.uninstrument(agent) is plain


def test_clone_keeps_the_options_the_class_and_the_original() -> None:
    plain = original()
    agent = moca_agui.instrument(plain, include_text=False)
    clone = agent.clone()

    assert clone is not agent
    assert type(clone) is type(agent)
    assert clone.moca_agui_options == agent.moca_agui_options
    assert getattr(clone, "emit_raw_events", False) is False  # ag-ui-langgraph >= 0.0.43
    assert moca_agui.uninstrument(clone) is plain
    assert clone.active_run is None


async def test_a_subclass_keeps_its_overrides() -> None:
    class TaggedAgent(LangGraphAgent):  # type: ignore[misc]
        def get_state_snapshot(self, state: Any) -> Any:
            return {"tagged": True}

    graph = original().graph
    agent = moca_agui.instrument(TaggedAgent(name="kb", graph=graph))
    stream = await post(app_for(agent), run_input())
    assert_valid_stream(stream)

    assert type(agent).__name__ == "CitingTaggedAgent"
    assert isinstance(agent, TaggedAgent)
    assert type(agent.clone()) is type(agent)
    snapshots = [e["snapshot"] for e in stream if e["type"] == "STATE_SNAPSHOT"]
    assert snapshots and all(s == {"tagged": True} for s in snapshots)
    assert [c["record"] for v in citation_events(stream) for c in v["citations"]] == [A]


def test_instrumenting_the_class_or_the_graph_names_the_fix() -> None:
    fix = r"moca_agui\.instrument\(LangGraphAgent\(name=\.\.\., graph=graph\)\)"
    with pytest.raises(TypeError, match=fix):
        moca_agui.instrument(LangGraphAgent)
    with pytest.raises(TypeError, match=fix):
        moca_agui.instrument(original().graph)


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_plugin_imports_no_framework() -> None:
    done = _python(
        "import sys\n"
        "from moca_agui import CitationOptions\n"
        "from moca_agui.adapters.langgraph_plugin import ADAPTER as langgraph_plugin\n"
        "answer = langgraph_plugin.moca_instrument(target=object(), options=CitationOptions())\n"
        "print(answer, sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "    {'ag_ui_langgraph', 'langgraph', 'langchain', 'langchain_core'}))\n"
    )
    assert (done.returncode, done.stdout.strip()) == (0, "None []"), done.stderr


def test_the_adapter_without_its_extra_names_the_install() -> None:
    done = _python(
        "import sys\nsys.modules['ag_ui_langgraph'] = None\nimport moca_agui.adapters.langgraph\n"
    )
    assert done.returncode != 0
    assert "ImportError: moca_agui's LangGraph adapter needs" in done.stderr
    assert "pip install 'moca-agui[langgraph]'" in done.stderr
    assert "pip install -e '.[langgraph]' in a clone of moca-agui" in done.stderr
