"""The adapter kit's machinery: thread messages as a run reads them, the failed-tool rule,
and the registries where a framework's hooks find their run by the framework's run id or
per-run object."""

from __future__ import annotations

import gc
import logging
import weakref

import moca_agui
from moca_agui.adapter import (
    CitationRun,
    RunObjectRegistry,
    RunRegistry,
    calls_message,
    result_message,
    turn_message,
)
from streams import message, run, source
from support import citation_events, collect, record

A, B = record("a.md"), record("b.md")


def kept_turn(call_id: str, result: object, *, failed: bool = False) -> list[object]:
    """One earlier turn of a kept thread, made with the kit's constructors."""
    return [
        turn_message("user", "u-" + call_id),
        calls_message([(call_id, "moca_get_node")], "a-" + call_id),
        result_message(call_id, result, failed=failed),
    ]


async def cited(citation_run: CitationRun, answer: str) -> list[dict[str, object]]:
    stream = await collect(moca_agui.cite(source(run(message("m1", answer))), run=citation_run))
    return [item for value in citation_events(stream) for item in value["citations"]]


async def test_a_kept_thread_made_with_the_kit_counts_its_results_before_this_runs():
    citation_run = CitationRun()
    citation_run.read_history([], kept=kept_turn("c1", A), only_answers=True)
    citation_run.capture("moca_get_node", B, tool_call_id="c2")
    # [1] is the earlier turn's source, whose record this run does not hold: left out.
    assert await cited(citation_run, "[2].") == [{"marker": "[2]", "record": B}]


async def test_a_failed_call_in_a_kept_thread_is_shown_but_holds_no_source():
    citation_run = CitationRun()
    citation_run.read_history([], kept=kept_turn("c1", A, failed=True), only_answers=True)
    citation_run.capture("moca_get_node", B, tool_call_id="c2")
    assert await cited(citation_run, "[1].") == [{"marker": "[1]", "record": B}]


async def test_a_failed_calls_result_is_not_captured(caplog):
    citation_run = CitationRun()
    with caplog.at_level(logging.INFO, logger="moca_agui"):
        citation_run.capture("moca_get_node", A, tool_call_id="c1", failed=True)
    citation_run.capture("moca_get_node", B, tool_call_id="c2")
    assert await cited(citation_run, "[1].") == [{"marker": "[1]", "record": B}]
    assert "moca_get_node failed; nothing to capture" in caplog.text


def test_a_registered_run_is_found_by_its_id_while_something_holds_it():
    runs: RunRegistry[CitationRun] = RunRegistry()
    held = CitationRun()
    runs.add("run-1", held)
    runs.add("run-1", held)  # the same run again
    assert runs.get("run-1") is held
    assert runs.get("run-2") is None
    del held
    gc.collect()
    assert runs.get("run-1") is None  # the registry keeps no run alive


def test_two_runs_in_flight_under_one_id_are_neither_found(caplog):
    runs: RunRegistry[CitationRun] = RunRegistry()
    first, second = CitationRun(), CitationRun()
    runs.add("run-1", first)
    runs.add("run-1", second)
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        assert runs.get("run-1") is None
    assert "2 runs of run id run-1 are in flight at once" in caplog.text
    runs.remove("run-1", second)  # ended: the other is the sole run in flight again
    assert runs.get("run-1") is first


def test_a_removed_run_is_found_no_more_and_its_id_is_dropped():
    runs: RunRegistry[CitationRun] = RunRegistry("thread")
    run = CitationRun()
    runs.add(("/", "thread-1"), run)
    runs.remove(("/", "thread-1"), run)
    runs.remove(("/", "thread-1"), run)  # removing twice is harmless
    assert runs.get(("/", "thread-1")) is None
    assert runs._runs == {}  # nothing kept of an ended run's id


def test_the_id_of_a_collected_run_is_dropped_once_the_registry_looks_again():
    runs: RunRegistry[CitationRun] = RunRegistry()
    held = CitationRun()
    runs.add("run-1", held)
    del held
    gc.collect()
    runs.get("run-2")  # any later look drops the ids of runs collected since
    assert runs._runs == {}


class _Store:
    """A framework's per-run object (a run's state store, say)."""


def test_a_run_registered_under_a_per_run_object_goes_with_that_object():
    runs: RunObjectRegistry[CitationRun] = RunObjectRegistry()
    store, other_store, run = _Store(), _Store(), CitationRun()
    runs.add(store, run)
    held = weakref.ref(run)
    del run
    gc.collect()
    assert runs.get(store) is held()  # held as long as its object lives
    assert runs.get(other_store) is None  # another run's object finds nothing
    del store  # the framework dropped the run between its hooks (cancelled, say)
    gc.collect()
    assert len(runs) == 0
    assert held() is None  # the registry kept nothing of it


def test_a_removed_run_is_found_no_more_under_its_live_object():
    runs: RunObjectRegistry[CitationRun] = RunObjectRegistry()
    store = _Store()
    runs.add(store, CitationRun())
    runs.remove(store)
    runs.remove(store)  # removing twice is harmless (a step that ends and one that breaks)
    assert runs.get(store) is None
