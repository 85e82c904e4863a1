"""An endpoint that sends a model's parallel calls as they finish, behind the middleware.

A plugin says which requests such an endpoint answers (`moca_calls_in_model_order`), as
the CrewAI plugin does for ag-ui-crewai's. The order the model read those results in is
then unknown: a marker whose source depends on it is left out and logged, never guessed;
a versioned ref is cited, and numbered tools keep their markers. The scripted agent
sends the calls of one model response last first, each whole (START to RESULT).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from starlette.applications import Starlette
from thread_turns import (
    READ_A_AND_B,
    Lookup,
    Steps,
    after_run,
    cited,
    new_thread_id,
    next_turn,
    post,
)

from moca_agui.adapter import Mention, hookimpl
from moca_agui.asgi import CitationMiddleware
from support import Call, markers_left_out, record, ref, run_input

from .apps import scripted

A, B, C = record("a.md"), record("b.md"), record("c.md")
A_NOW = record("a.md", stale=True)
AS_FINISHED = "/as-finished"
READ_A_B_AT_ONCE: list[Call | list[Call] | str] = [
    [Call("moca_get_node", {"node_id": ref(A)}, "ca"),
     Call("moca_get_node", {"node_id": ref(B)}, "cb")],
    f"A [1]; B [2], see {ref(B)}.",
]  # fmt: skip


class AsFinished:
    """A plugin of the service's own: its endpoint at AS_FINISHED sends calls as they finish."""

    @hookimpl
    def moca_calls_in_model_order(self, scope: Mapping[str, Any], endpoint: object) -> bool | None:
        assert getattr(endpoint, "__name__", None) == "endpoint"  # the one the router chose
        return False if scope["path"] == AS_FINISHED else None


class Broken:
    @hookimpl
    def moca_calls_in_model_order(self, scope: Mapping[str, Any], endpoint: object) -> bool | None:
        raise RuntimeError("broken plugin")


def app_of(steps: Steps, *, numbered: bool = False, **options: Any) -> Starlette:
    app = scripted(steps, numbered=numbered, paths=("/", AS_FINISHED))
    app.add_middleware(CitationMiddleware, **options)
    return app


async def test_markers_depending_on_the_order_calls_finished_in_are_left_out_and_logged(
    register: Callable[[object], None], caplog: pytest.LogCaptureFixture
) -> None:
    register(AsFinished())
    app = app_of({"q1": READ_A_B_AT_ONCE})
    # Taken in the order they were announced, [1] would name B: the wrong source.
    assert cited(await post(app, run_input("q1"))) == [
        {"marker": "[1]", "record": B},
        {"marker": "[2]", "record": A},
    ]
    assert markers_left_out(caplog) == []
    assert cited(await post(app, run_input("q1"), AS_FINISHED)) == [{"record": B}]
    assert markers_left_out(caplog) == ["[1]", "[2]"]


async def test_a_search_then_a_read_of_a_hit_keeps_its_markers_whatever_the_order(
    register: Callable[[object], None], caplog: pytest.LogCaptureFixture
) -> None:
    """Read in either order, A and B come first and second: nothing is left out."""
    register(AsFinished())
    steps: Steps = {
        "q1": [
            Call("moca_search", {"query": "a.md b.md"}, "c1"),
            Call("moca_get_node", {"node_id": ref(A)}, "c2"),
            "A [1]; B [2].",
        ]
    }
    stream = await post(app_of(steps), run_input("q1"), AS_FINISHED)
    assert cited(stream) == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    assert markers_left_out(caplog) == []


async def test_numbered_tools_keep_the_markers_the_model_was_shown(
    register: Callable[[object], None], caplog: pytest.LogCaptureFixture
) -> None:
    register(AsFinished())
    app = app_of({"q1": READ_A_B_AT_ONCE}, numbered=True)
    stream = await post(app, run_input("q1"), AS_FINISHED)
    assert cited(stream) == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    assert markers_left_out(caplog) == []


@pytest.mark.parametrize(
    ("first_turn", "turn_2_cites"),
    [
        # one result in turn 1: A and B keep [1] and [2], and C is [3]
        (READ_A_AND_B, [{"marker": "[3]", "record": C}, {"marker": "[1]", "record": A_NOW}]),
        # two results at once in turn 1: theirs are not known; C is [3] in either order
        (READ_A_B_AT_ONCE, [{"marker": "[3]", "record": C}]),
    ],
    ids=["one-result-in-turn-1", "parallel-in-turn-1"],
)
async def test_a_follow_up_counts_on_from_what_the_earlier_turns_read(
    register: Callable[[object], None],
    caplog: pytest.LogCaptureFixture,
    first_turn: list[Call | list[Call] | str],
    turn_2_cites: list[dict[str, Any]],
) -> None:
    register(AsFinished())
    steps: Steps = {
        "q1": first_turn,
        "q2": [Call("moca_get_node", {"node_id": ref(C)}, "c3"), "Now [3]; as said [1]."],
    }
    app, thread_id = app_of(steps, lookup=Lookup(A_NOW)), new_thread_id()
    first = run_input("q1", "run-1", thread_id=thread_id)
    thread = after_run(first["messages"], await post(app, first, AS_FINISHED))
    caplog.clear()
    stream = await post(app, next_turn(thread, "q2", "run-2", thread_id=thread_id), AS_FINISHED)
    assert cited(stream) == turn_2_cites
    assert markers_left_out(caplog) == ([] if len(turn_2_cites) == 2 else ["[1]"])


async def test_a_failing_plugin_leaves_the_markers_out_never_guesses(
    register: Callable[[object], None], caplog: pytest.LogCaptureFixture
) -> None:
    register(Broken())
    stream = await post(app_of({"q1": READ_A_B_AT_ONCE}), run_input("q1"))
    assert cited(stream) == [{"record": B}]
    assert "a plugin failed in moca_calls_in_model_order" in caplog.text


async def test_the_turns_of_a_thread_keep_their_order(
    register: Callable[[object], None], caplog: pytest.LogCaptureFixture
) -> None:
    """Results of one turn may have been read in any order, those of later turns after:
    one result a turn, every number is known."""
    register(AsFinished())
    steps: Steps = {
        "q1": READ_A_AND_B,
        "q2": [Call("moca_get_node", {"node_id": ref(C)}, "c3"), "C [3]."],
        "q3": [Call("moca_get_node", {"node_id": ref(B)}, "c4"), "B [2]; C [3]."],
    }
    app, thread_id, thread = app_of(steps, lookup=Lookup(C)), new_thread_id(), []
    for n, question in enumerate(steps, start=1):
        body = next_turn(thread, question, f"run-{n}", thread_id=thread_id)
        stream = await post(app, body, AS_FINISHED)
        thread = after_run(body["messages"], stream)
    assert cited(stream) == [{"marker": "[2]", "record": B}, {"marker": "[3]", "record": C}]
    assert markers_left_out(caplog) == []


async def test_a_plugin_finding_references_is_given_only_the_markers_whose_source_is_known(
    register: Callable[[object], None],
) -> None:
    """A plugin reading its own footnotes (`^1`) through the marker table never reads a
    marker whose source depends on the order."""
    given: list[dict[str, str]] = []

    class Footnotes:
        @hookimpl
        def moca_find_references(
            self, text: str, refs: Any, markers: Mapping[str, str]
        ) -> list[Mention]:
            given.append(dict(markers))
            at = text.find("^1")
            ref_1 = markers.get("[1]")
            return [Mention(at, at + 2, ref_1, "^1")] if at >= 0 and ref_1 else []

    register(AsFinished())
    register(Footnotes())
    steps: Steps = {"q1": [READ_A_B_AT_ONCE[0], "Dusk ^1."]}
    app = app_of(steps)
    assert cited(await post(app, run_input("q1"), AS_FINISHED)) == []
    assert given and all(markers == {} for markers in given)
    assert cited(await post(app, run_input("q1"))) == [{"marker": "^1", "record": B}]
