"""A thread the run cannot read whole, sent through `moca_agui.cite(input=...)`: an
earlier Reader result cut short (a client that trims long tool results), malformed, or
an item that is no message. The model counted sources there the run cannot see, so its
`[1]` may be the thread's: no marker is cited, a numbered tool shows none (any number
could name two sources), versioned refs are cited, and one warning says why."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput

import moca_agui
from streams import run_finished, run_started, source
from support import record, ref, run_input

from .streams import answer, citation_values, logged, reader_call

A, C = record("a.md"), record("c.md")


def earlier_turn(content: str) -> list[dict[str, Any]]:
    """Turn 1 as the client sends it back: A shown as [1] by a numbered `moca_get_node`,
    cited so."""
    call = {"id": "c1", "type": "function", "function": {"name": "moca_get_node"}}
    call["function"]["arguments"] = "{}"
    return [
        {"id": "u1", "role": "user", "content": "a question"},
        {"id": "a1", "role": "assistant", "toolCalls": [call]},
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": content},
        {"id": "m1", "role": "assistant", "content": "A [1]."},
    ]


WHOLE = json.dumps({"results": [{"marker": "[1]", "result": A}]})
THREADS = {
    "cut short": earlier_turn(WHOLE[: len(WHOLE) // 2]),
    "malformed": earlier_turn(WHOLE.replace(":", "=", 1)),
    "an item that is no message": [*earlier_turn(WHOLE), 7],
}


async def agent(shown: list[object]) -> AsyncIterator[BaseEvent]:
    """Turn 2: a numbered `moca_get_node` reads C; the answer cites A as turn 1 did, and C
    by the number it was shown (if any) and by its versioned ref."""

    def moca_get_node(node_id: str) -> dict[str, Any]:
        return C

    yield run_started("run-2")
    content = moca_agui.numbered(moca_get_node)(node_id=ref(C))
    view = json.loads(content)
    shown.extend(entry.get("marker") for entry in view["results"])
    for event in reader_call("c2", content):
        yield event
    for event in answer("m2", f"As said [1]; C [2], {ref(C)}."):
        yield event
    yield run_finished("run-2")


@pytest.mark.parametrize("thread", THREADS.values(), ids=THREADS.keys())
async def test_a_thread_not_read_whole_cites_no_marker_and_shows_none(
    thread: list[Any], caplog: pytest.LogCaptureFixture
):
    input = RunAgentInput.model_validate(run_input("q2", "run-2"))
    input.messages = [*thread, *input.messages]  # as a client forged it
    shown: list[object] = []
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        out = [event async for event in moca_agui.cite(agent(shown), input=input)]
    assert shown == [None]  # C shown with no number: [1] and [2] may be the thread's
    (value,) = citation_values(out)
    assert value["citations"] == [{"record": C}]
    assert len(logged(caplog, logging.WARNING, "the thread was not read")) == 1
    assert len(caplog.records) == 1


async def test_the_same_thread_read_whole_numbers_on_from_it():
    """The control: the whole result counts, so C is shown and cited as [2]."""
    input = RunAgentInput.model_validate(run_input("q2", "run-2", history=earlier_turn(WHOLE)))
    shown: list[object] = []
    out = [event async for event in moca_agui.cite(agent(shown), input=input)]
    assert shown == ["[2]"]
    (value,) = citation_values(out)
    assert value["citations"] == [{"marker": "[2]", "record": C}]


# -- a result of this run that cannot be read ----------------------------------------------

CUT_SEARCH = json.dumps({"query": "q", "results": [A]})[:-30]  # cut short: A unreadable


async def test_a_result_of_this_run_it_cannot_read_leaves_the_default_markers_out(
    caplog: pytest.LogCaptureFixture,
):
    """The model counted A in the cut result as [1] and C as [2]: numbering C [1] would
    cite C for A. The default markers are left out; C's versioned ref is cited."""
    events = [
        run_started(),
        *reader_call("c1", CUT_SEARCH, "moca_search"),
        *reader_call("c2", json.dumps(C)),
        *answer("m1", f"A [1]; C [2], {ref(C)}."),
        run_finished(),
    ]
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        out = [event async for event in moca_agui.cite(source(events))]
    (value,) = citation_values(out)
    assert value["citations"] == [{"record": C}]
    assert logged(caplog, logging.WARNING, "a result of moca_search could not be read")


async def test_a_result_of_this_run_it_cannot_read_costs_no_shown_marker():
    """Numbered tools showed the model each number: they stand, whatever it could not read."""

    def moca_get_node(node_id: str) -> dict[str, Any]:
        return C

    async def agent() -> AsyncIterator[BaseEvent]:
        yield run_started()
        for event in reader_call("c1", CUT_SEARCH, "moca_search"):
            yield event
        shown = moca_agui.numbered(moca_get_node)(node_id=ref(C))
        assert [entry["marker"] for entry in json.loads(shown)["results"]] == ["[1]"]
        for event in reader_call("c2", shown):
            yield event
        for event in answer("m1", "C [1]."):
            yield event
        yield run_finished()

    (value,) = citation_values([event async for event in moca_agui.cite(agent())])
    assert value["citations"] == [{"marker": "[1]", "record": C}]


async def test_a_plugin_table_leaves_its_markers_out_when_a_result_cannot_be_read(register):
    """A plugin numbers by the order the model read: it counted A in the cut result as
    [a] and C as [b]. The marker a numbered tool showed beside C does not make that order
    known, so no plugin marker is cited; C's versioned ref is."""

    class Letters:
        @moca_agui.adapter.hookimpl
        def moca_marker_table(self, entries):
            return {f"[{chr(ord('a') + i)}]": e for i, e in enumerate(entries)}

    def moca_get_node(node_id: str) -> dict[str, Any]:
        return C

    async def agent() -> AsyncIterator[BaseEvent]:
        yield run_started()
        for event in reader_call("c1", CUT_SEARCH, "moca_search"):
            yield event
        for event in reader_call("c2", moca_agui.numbered(moca_get_node)(node_id=ref(C))):
            yield event
        for event in answer("m1", f"A [a]; C [b], {ref(C)}."):
            yield event
        yield run_finished()

    register(Letters())
    (value,) = citation_values([event async for event in moca_agui.cite(agent())])
    assert value["citations"] == [{"record": C}]
