"""Hostile answer text: a model can be steered into writing anything around a ref.

Finding refs must stay linear in the text whatever surrounds them. Work is counted, not
timed: every candidate token is compared against the run's refs through a collection
that adds up the characters it is asked about.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Mapping, Set
from typing import Any

import pytest
from ag_ui.core import EventType, TextMessageContentEvent, TextMessageStartEvent

from moca_agui.records.references import find_markers, find_refs
from support import record, ref

from .streams import (
    answer,
    assert_passed_through,
    cite_measured,
    cited_records,
    logged,
    reader_call,
    run,
)

MB = 1024 * 1024
REC = record("refund-window.md")
REF = ref(REC)


class CountingRefs(Set[str]):
    """The run's refs, counting the characters of every token looked up in them."""

    def __init__(self, refs: Iterable[str]) -> None:
        self._refs = frozenset(refs)
        self.compared = 0

    def __contains__(self, token: object) -> bool:
        self.compared += len(token) if isinstance(token, str) else 0
        return token in self._refs

    def __iter__(self) -> Iterator[str]:
        return iter(self._refs)

    def __len__(self) -> int:
        return len(self._refs)


def hostile(name: str, n: int) -> tuple[str, list[str]]:
    """A text of about `n` characters shaped as `name` says, and the refs it cites."""
    shapes = {
        "trailing-dots": ("x@y#" + "." * n, []),
        "trailing-stars": ("x@y#" + "*" * n, []),
        "leading-stars": ("*" * n + "x@y#", []),
        "ref-then-dots": (REF + "." * n, [REF]),
        "ref-in-stars": ("*" * (n // 2) + REF + "*" * (n // 2), [REF]),
        "ref-in-mixed": ("_~*" * (n // 6) + REF + "!?.,;:" * (n // 12), [REF]),
        "many-tokens": ("see a@b#c.md.... " * (n // 17) + REF + ".", [REF]),
    }
    return shapes[name]


NAMES = [
    "trailing-dots",
    "trailing-stars",
    "leading-stars",
    "ref-then-dots",
    "ref-in-stars",
    "ref-in-mixed",
    "many-tokens",
]


@pytest.mark.parametrize("name", NAMES)
def test_finding_refs_stays_linear_in_the_text(name: str) -> None:
    text, expected = hostile(name, 64 * 1024)
    known = CountingRefs([REF, "https://example.com/other@1.0.0#x.md"])
    found = [mention.ref for mention in find_refs(text, known)]
    assert found == expected
    assert known.compared <= 4 * len(text) + 10_000


@pytest.mark.parametrize("name", ["trailing-dots", "ref-in-mixed", "many-tokens"])
async def test_hostile_text_goes_through_cite(caplog: pytest.LogCaptureFixture, name: str) -> None:
    caplog.set_level(logging.INFO, logger="moca_agui")  # a debug line per token would pile up
    text, expected = hostile(name, MB // 8)
    events = run(
        reader_call("call-1", json.dumps(REC)),
        answer("answer-1", *(text[i : i + 4096] for i in range(0, len(text), 4096))),
    )
    out, peak = await cite_measured(events)
    assert_passed_through(events, out)
    assert cited_records(out) == [REC for _ in expected]
    assert peak < 8 * len(text) + 4 * MB


BROKEN_DELTAS = {
    "no fields": {},
    "no message id": {"message_id": None, "delta": "2"},
}


@pytest.mark.parametrize("fields", BROKEN_DELTAS.values(), ids=BROKEN_DELTAS.keys())
@pytest.mark.parametrize("where", ["after a delta", "after the message's start"])
async def test_a_malformed_text_delta_turns_citations_off_and_loses_nothing(
    caplog: pytest.LogCaptureFixture, fields: dict[str, Any], where: str
) -> None:
    """A delta built without validation (`model_construct`): missing its fields, or with
    no message id, wherever it comes (its text belongs to no message the run knows)."""
    broken = TextMessageContentEvent.model_construct(type=EventType.TEXT_MESSAGE_CONTENT, **fields)
    events = run(
        reader_call("call-1", json.dumps(REC)),
        answer("answer-1", f"See {REF}"),
    )
    start = next(i for i, e in enumerate(events) if isinstance(e, TextMessageStartEvent))
    events.insert(-2 if where == "after a delta" else start + 1, broken)
    out, _ = await cite_measured(events)
    assert_passed_through(events, out)
    assert cited_records(out) == []
    assert logged(caplog, logging.ERROR, "citations off for this run")


class CountingMarkers(Mapping[str, str]):
    """A marker table, counting the characters of every marker text looked up in it."""

    def __init__(self, markers: dict[str, str]) -> None:
        self._markers = markers
        self.compared = 0

    def __getitem__(self, marker: str) -> str:
        self.compared += len(marker)
        return self._markers[marker]

    def __iter__(self) -> Iterator[str]:
        return iter(self._markers)

    def __len__(self) -> int:
        return len(self._markers)


MARKER_SHAPES = {
    "open-group": "[1," + "1," * 32_768,
    "open-groups": "[1,1" * 16_384,
    "groups": "[1,1]" * 13_107,
    "open-ranges": "[1-" * 21_845,
    "full-width-openers": "\u3010" * 65_536,
    "full-width-open": "\u30101\u2020" + "x" * 65_536,
    "footnote-openers": "[^" * 32_768,
    "brackets-then-link": "[1, 2]" * 10_922 + "](https://example.org)",
}


@pytest.mark.parametrize("name", MARKER_SHAPES)
def test_finding_markers_stays_linear_in_the_text(name: str) -> None:
    text = MARKER_SHAPES[name]
    markers = CountingMarkers({"[1]": REF, "[2]": REF})
    found = list(find_markers(text, markers))
    assert len(found) <= len(text) // 5
    assert markers.compared <= 4 * len(text) + 10_000


@pytest.mark.parametrize("name", ["open-group", "full-width-openers", "footnote-openers"])
async def test_hostile_markers_go_through_cite(caplog: pytest.LogCaptureFixture, name: str) -> None:
    caplog.set_level(logging.INFO, logger="moca_agui")
    text = MARKER_SHAPES[name] + " [1]."
    events = run(
        reader_call("call-1", json.dumps(REC)),
        answer("answer-1", *(text[i : i + 4096] for i in range(0, len(text), 4096))),
    )
    out, peak = await cite_measured(events)
    assert_passed_through(events, out)
    assert cited_records(out) == [REC]
    assert peak < 8 * len(text) + 4 * MB
