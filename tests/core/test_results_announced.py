"""Results announced by their tool and text: an emitter that sends each call under an id
of its own, as it finishes, while the adapter learns in process the order the model read
the results in (`CitationRun.results_announced`, `result_read`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import moca_agui
from moca_agui.adapter import CitationRun
from moca_agui.check import check_events
from moca_agui.records.order import NOT_ANNOUNCED
from streams import message, run, source, tool_call
from support import citation_events, collect, record, ref

A, B = record("a.md"), record("b.md")
ANSWER = f"A [1]; B [2], see {ref(B)}."


def finished(*results: tuple[str, dict[str, Any]]) -> list[Any]:
    """Each Reader call as the emitter sends it when it finishes, under an id it makes."""
    return [
        event
        for n, (name, result) in enumerate(results)
        for event in tool_call(f"minted-{n}", name, result=json.dumps(result))
    ]


async def cited(
    events: list[Any], citing: CitationRun, before: dict[int, Callable[[], None]]
) -> list[dict[str, Any]]:
    """The citations of the stream's one answer; `before[n]` runs before its n-th event
    (the adapter announcing, in the agent's thread, while the stream flows)."""

    async def stream() -> AsyncIterator[Any]:
        for n, event in enumerate(events):
            if n in before:
                before[n]()
            yield event

    out = await collect(moca_agui.cite(stream(), run=citing))
    assert check_events(out) == []
    [value] = citation_events(out)
    citations: list[dict[str, Any]] = value["citations"]
    return citations


def read_in_order(citing: CitationRun, *results: dict[str, Any]) -> Callable[[], None]:
    """What announces that the model read `results`, in this order."""

    def announce() -> None:
        for result in results:
            citing.result_read("moca_get_node", json.dumps(result))

    return announce


@pytest.mark.parametrize("emitter_first", [True, False], ids=["emitter-first", "announced-first"])
@pytest.mark.parametrize("read_at", [0, 9], ids=["read-before-results", "read-after-results"])
async def test_results_sent_as_they_finish_are_numbered_in_the_order_the_model_read_them(
    emitter_first: bool, read_at: int
) -> None:
    """B's call finished first, under an id the emitter made; the model read A's result
    first. Told in either order, the emitter's order does not hide the model's."""
    events = run(finished(("moca_get_node", B), ("moca_get_node", A)), message("m1", ANSWER))
    citing = CitationRun()
    steps = [citing.calls_out_of_order, citing.results_announced]
    for step in steps if emitter_first else reversed(steps):
        step()
    citations = await cited(events, citing, {read_at: read_in_order(citing, A, B)})
    assert [(c.get("marker"), c["record"]) for c in citations] == [("[1]", A), ("[2]", B)]


async def test_a_reader_result_never_announced_leaves_the_markers_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The model's order of A's result is not known (its text was never announced): no
    default marker is guessed, the versioned ref is still cited."""
    events = run(finished(("moca_get_node", B), ("moca_get_node", A)), message("m1", ANSWER))
    citing = CitationRun()
    citing.results_announced()
    citations = await cited(events, citing, {0: read_in_order(citing, B)})
    assert citations == [{"record": B}]
    left_out = [r.getMessage() for r in caplog.records if "left out the marker" in r.getMessage()]
    assert len(left_out) == 2 and all(NOT_ANNOUNCED in line for line in left_out)


async def test_an_order_the_adapter_says_is_not_known_leaves_the_markers_out() -> None:
    events = run(finished(("moca_get_node", B), ("moca_get_node", A)), message("m1", ANSWER))
    citing = CitationRun()
    citing.results_announced()
    citing.order_not_known("two agents read sources")
    citations = await cited(events, citing, {0: read_in_order(citing, A, B)})
    assert citations == [{"record": B}]


async def test_a_second_run_in_the_stream_is_announced_by_no_one() -> None:
    """The adapter announced the first run's results; a second run in the same stream,
    from the same emitter, has none announced: its markers are left out."""
    first = run(message("m1", "No sources yet."), run_id="r1")
    second = run(
        finished(("moca_get_node", B), ("moca_get_node", A)),
        message("m2", ANSWER),
        run_id="r2",
    )
    citing = CitationRun()
    citing.results_announced()
    out = await collect(moca_agui.cite(source([*first, *second]), run=citing))
    assert [value["citations"] for value in citation_events(out)] == [[], [{"record": B}]]
