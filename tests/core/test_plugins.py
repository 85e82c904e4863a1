"""The hook layer: inline plugins, a third-party plugin from an entry point, instrument()."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import AsyncIterator

import pytest
from pluggy import PluginValidationError
from pydantic_core import to_json

import moca_agui
from moca_agui.adapter import Mention
from moca_agui.plugins import get_plugin_manager
from streams import message, run, source, tool_call
from support import citation_events, collect, record, ref, wire, without_citations

A, B = record("a.md"), record("b.md")


async def test_a_plugin_can_say_which_tools_are_readers(register):
    class KbTools:
        @moca_agui.adapter.hookimpl
        def moca_is_reader_tool(self, tool_name, options):
            return True if tool_name.startswith("kb_") else None

    register(KbTools())
    events = run(tool_call("c1", "kb_get", A), tool_call("c2", "moca_get_node", B),
                 message("m1", f"{ref(A)} {ref(B)}"))  # fmt: skip
    [value] = citation_events(await collect(moca_agui.cite(source(events))))
    assert value["citations"] == [{"record": A}, {"record": B}]


async def test_a_plugin_can_replace_the_marker_table_and_find_other_markers(register):
    class Letters:
        @moca_agui.adapter.hookimpl
        def moca_marker_table(self, entries):
            return {f"[{chr(ord('a') + i)}]": e for i, e in enumerate(entries)}

        @moca_agui.adapter.hookimpl
        def moca_find_references(self, text, refs, markers):
            at = text.find("(see the second)")
            return [Mention(at, at + 16, list(refs)[1])] if at >= 0 else []

    register(Letters())
    events = run(tool_call("c1", "moca_search", {"query": "q", "results": [A, B]}),
                 message("m1", "Per [b], [1] (see the second), and [a]."))  # fmt: skip
    [value] = citation_events(await collect(moca_agui.cite(source(events))))
    assert value["citations"] == [{"marker": "[b]", "record": B}, {"marker": "[a]", "record": A}]


async def test_a_plugin_failing_in_resolution_sends_no_event_and_changes_nothing(register, caplog):
    class Broken:
        @moca_agui.adapter.hookimpl
        def moca_find_references(self, text, refs, markers):
            raise RuntimeError("plugin bug")

    register(Broken())
    events = run(tool_call("c1", "moca_get_node", A), message("m1", ref(A)))
    stream = await collect(moca_agui.cite(source(events)))
    assert stream == [wire(e) for e in events]
    assert "no citations sent for message m1" in caplog.text


# -- instrument() ---------------------------------------------------------------------


async def agent_run(events) -> AsyncIterator:
    for event in events:
        yield event


async def test_instrument_wraps_a_function_returning_events_idempotently_and_reversibly():
    events = run(tool_call("c1", "moca_get_node", A), message("m1", ref(A)))
    cited = moca_agui.instrument(agent_run, include_text=False)
    again = moca_agui.instrument(cited)
    assert moca_agui.uninstrument(cited) is agent_run
    assert moca_agui.uninstrument(again) is agent_run
    stream = await collect(again(events))
    assert without_citations(stream) == [wire(e) for e in events]
    assert len(citation_events(stream)) == 1
    assert "text" in citation_events(stream)[0]["citations"][0]["record"]  # new options won
    [value] = citation_events(await collect(cited(events)))
    assert "text" not in value["citations"][0]["record"]


async def test_instrument_wraps_an_async_iterable_of_events():
    events = run(tool_call("c1", "moca_get_node", A), message("m1", ref(A)))
    stream = await collect(moca_agui.instrument(source(events)))
    assert citation_events(stream)[0]["citations"] == [{"record": A}]


def test_instrument_names_the_installed_adapters_and_the_extras_for_unknown_targets():
    with pytest.raises(TypeError) as raised:
        moca_agui.instrument(object())
    message_text = str(raised.value)
    assert "builtins.object" in message_text
    assert "ag-ui" in message_text
    for extra in ("langgraph", "pydantic-ai", "llama-index"):
        assert f"pip install 'moca-agui[{extra}]'" in message_text
        assert f"pip install -e '.[{extra}]' in a clone of moca-agui" in message_text


ROBOT_PLUGIN = """
import moca_agui

class Robot:
    pass

class CitingRobot:
    def __init__(self, robot, options):
        self.robot, self.options = robot, options

@moca_agui.adapter.hookimpl
def moca_instrument(target, options):
    if isinstance(target, Robot):
        return CitingRobot(target, options)
    return None

@moca_agui.adapter.hookimpl
def moca_install_hint():
    return "a Robot: pip install robot-plugin"
"""


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    """Install a distribution `robot-plugin` declaring one `moca_agui` entry point."""

    def install(source: str) -> None:
        (tmp_path / "robot_plugin.py").write_text(textwrap.dedent(source))
        dist = tmp_path / "robot_plugin-1.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: robot-plugin\nVersion: 1.0\n")
        (dist / "entry_points.txt").write_text("[moca_agui]\nrobot = robot_plugin\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        get_plugin_manager.cache_clear()

    yield install
    get_plugin_manager.cache_clear()
    sys.modules.pop("robot_plugin", None)


def test_a_third_party_plugin_from_an_entry_point_instruments_a_new_type(third_party):
    third_party(ROBOT_PLUGIN)
    import robot_plugin

    robot = robot_plugin.Robot()
    instrumented = moca_agui.instrument(robot, reader_tools=["ask_robot"])
    assert isinstance(instrumented, robot_plugin.CitingRobot)
    assert instrumented.robot is robot
    assert instrumented.options.reader_tools == frozenset({"ask_robot"})
    assert moca_agui.uninstrument(instrumented) is robot
    assert "robot" in dict(get_plugin_manager().list_name_plugin())
    with pytest.raises(TypeError, match=r"\n- a Robot: pip install robot-plugin"):
        moca_agui.instrument(object())


def test_a_misspelled_hook_fails_loudly_when_citations_are_set_up(third_party):
    third_party("""
        import moca_agui

        @moca_agui.adapter.hookimpl
        def moca_instrumnet(target, options):
            return None
    """)
    with pytest.raises(PluginValidationError, match="moca_instrumnet"):
        moca_agui.instrument(agent_run)


def test_plugin_autoload_can_be_turned_off_for_other_distributions(third_party, monkeypatch):
    monkeypatch.setenv("MOCA_AGUI_DISABLE_PLUGIN_AUTOLOAD", "1")
    third_party(ROBOT_PLUGIN)
    names = dict(get_plugin_manager().list_name_plugin())
    assert "robot" not in names
    assert {"ag-ui", "langgraph", "pydantic-ai", "llama-index"} <= names.keys()  # our own


async def test_reader_items_plugins_get_the_runs_options(register):
    seen = []

    class Items:
        @moca_agui.adapter.hookimpl
        def moca_reader_items(self, tool_name, result, options):
            seen.append(options.reader_tools)

    register(Items())
    events = run(tool_call("c1", "kb_get", A), message("m1", ref(A)))
    [value] = citation_events(
        await collect(moca_agui.cite(source(events), reader_tools=["kb_get"]))
    )
    assert seen == [frozenset({"kb_get"})]
    assert value["citations"] == [{"record": A}]  # None: the built-in plugin answered


async def test_an_instrumented_function_that_returns_no_stream_passes_it_through(caplog):
    def not_an_agent(x):
        return {"answer": x}

    cited = moca_agui.instrument(not_an_agent)
    assert cited(1) == {"answer": 1}
    assert "returned dict, not an async iterable of AG-UI events" in caplog.text


async def test_instrument_takes_methods_and_partials_too():
    import functools

    class Agent:
        def run(self, events):
            return source(events)

    events = run(tool_call("c1", "moca_get_node", A), message("m1", ref(A)))
    for target in (Agent().run, functools.partial(agent_run)):
        stream = await collect(moca_agui.instrument(target)(events))
        assert citation_events(stream)[0]["citations"] == [{"record": A}]


async def test_records_a_plugin_puts_in_place_of_the_readers_are_copied_and_measured(register):
    """A wrapper that replaces the built-in's records in place: the dicts it puts there
    (which may reuse a freed record's address) are its own, so the run copies them, and
    the event is measured against the budget from what they hold, not the text's size."""
    shared = ["the plugin's own list"]

    class Enrich:
        @moca_agui.adapter.hookimpl(wrapper=True)
        def moca_reader_items(self, tool_name, result, options):
            items = yield
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    items[i] = {**item, "profiles": shared, "text": item["text"] + "p" * 2000}
            return items

    register(Enrich())
    found = [record(f"{i}.md", text="t" * 50) for i in range(3)]
    result = json.dumps({"results": found})
    citation_run = moca_agui.adapter.CitationRun(
        moca_agui.CitationOptions(max_event_bytes=len(result))
    )
    citation_run.capture("moca_search", result)
    kept = [seen.records[0][0] for seen in citation_run._ledger.entries()]
    assert [r["profiles"] is shared for r in kept] == [False, False, False]
    assert [r["profiles"] for r in kept] == [shared] * 3
    citation_run.add_text("m1", f"See {ref(found[1])} and {ref(found[2])}.")
    event = await citation_run.events.event_for("m1")
    assert event is not None
    assert ["text" in c["record"] for c in event.value["citations"]] == [False, False]
    assert len(to_json(event.value)) <= len(result)  # measured, and cut to fit


async def test_a_found_marker_that_is_not_text_is_dropped_and_its_source_still_cited(
    register, caplog
):
    class Numbers:
        @moca_agui.adapter.hookimpl
        def moca_marker_table(self, entries):
            return {7: entries[0]}

        @moca_agui.adapter.hookimpl
        def moca_find_references(self, text, refs, markers):
            return [Mention(0, 3, next(iter(refs)), 7)] if text.startswith("see") else []

    register(Numbers())
    events = run(tool_call("c1", "moca_get_node", A), message("m1", "see it"))
    [value] = citation_events(await collect(moca_agui.cite(source(events))))
    assert value["citations"] == [{"record": A}]
    assert "dropped a marker that is not text: 7" in caplog.text
