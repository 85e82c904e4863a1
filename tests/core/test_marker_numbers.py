"""One rule says which markers are numbers of the default numbering: `[n]`, n from 1, as
the numbering writes it. The marker table and the numbers numbered tools show read it
alike."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput

import moca_agui
from moca_agui.markers.numbered import marker_number
from moca_agui.markers.style import canonical
from streams import message, run_finished, run_started, tool_call
from support import citation_events, collect, record, ref, run_input

A, C = record("a.md"), record("c.md")


@pytest.mark.parametrize(
    ("marker", "number"),
    [("[1]", 1), ("[42]", 42), ("[999999999]", 999999999), ("[01]", None), ("[0]", None),
     ("[1000000000]", None), ("[a]", None), ("[ 1]", None), ("[\u0661]", None), ("1", None)],
)  # fmt: skip
def test_a_marker_is_a_number_only_as_the_numbering_writes_it(marker: str, number: int | None):
    assert marker_number(marker) == number
    if number is not None:
        assert canonical(number) == marker


def earlier_turn(marker: str) -> list[dict[str, Any]]:
    """Turn 1 as the client sends it back: a numbered `moca_get_node` showed A as `marker`."""
    call = {"id": "c1", "type": "function", "function": {"name": "moca_get_node"}}
    call["function"]["arguments"] = "{}"
    shown = json.dumps({"results": [{"marker": marker, "result": A}]})
    return [
        {"id": "u1", "role": "user", "content": "a question"},
        {"id": "a1", "role": "assistant", "toolCalls": [call]},
        {"id": "t1", "role": "tool", "toolCallId": "c1", "content": shown},
        {"id": "m1", "role": "assistant", "content": f"A {marker}."},
    ]


async def test_a_shown_marker_the_numbering_never_writes_takes_no_number_from_it():
    """A thread showed A as `[01]`, which the numbering never writes: it is a marker of its
    own, not number 1, so this run's first source shown by number is `[1]`, and both are
    cited as the model read them."""

    def moca_get_node(node_id: str) -> dict[str, Any]:
        return C

    shown: list[object] = []

    async def agent() -> AsyncIterator[BaseEvent]:
        yield run_started("run-2")
        content = moca_agui.numbered(moca_get_node)(node_id=ref(C))
        shown.extend(entry.get("marker") for entry in json.loads(content)["results"])
        for event in [*tool_call("c2", "moca_get_node", content), *message("m2", "A [01]; C [1].")]:
            yield event
        yield run_finished("run-2")

    input = RunAgentInput.model_validate(run_input("q2", "run-2", history=earlier_turn("[01]")))
    stream = await collect(
        moca_agui.cite(
            agent(), input=input, lookup=lambda node_ref: A if node_ref == ref(A) else None
        )
    )
    assert shown == ["[1]"]
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[01]", "record": A}, {"marker": "[1]", "record": C}]
