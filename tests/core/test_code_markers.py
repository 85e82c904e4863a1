"""Code is code the way CommonMark says: no marker in a fence of backticks or tildes (open
to the end, too), an indented block or a code span, nor in a link; in the final answer
(the case table the npm package shares) and in the look-ahead, where a fence split over
deltas is never looked up."""

from __future__ import annotations

import json
from typing import Any

import pytest

import moca_agui
from moca_agui.records.references import find_markers
from streams import message, recording_lookup, run, slowly, source, tool_call
from support import ROOT, citation_events, collect, compact, record, ref

CASES = json.loads((ROOT / "tests/markers/marker-cases.json").read_text(encoding="utf-8"))
A, B, C = record("a.md"), record("b.md"), record("c.md")


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda case: case["name"])
def test_the_shared_case_table(case: dict[str, Any]) -> None:
    markers = {marker: f"ref-{marker}" for marker in case["markers"]}
    found: dict[tuple[str | None, int], list[str]] = {}  # each marker found -> what it opens
    for mention in find_markers(case["text"], markers):
        found.setdefault((mention.marker, mention.start), []).append(mention.ref)
    assert [[marker, start] for marker, start in found] == case["found"]
    opens = case.get("opens", [[marker] for marker, _ in case["found"]])
    assert list(found.values()) == [[markers[key] for key in keys] for keys in opens]


ANSWER = "\n".join(
    [
        "Marking the queen [1]:",
        "",
        "~~~python",
        "queens[2] = 'marked'",
        "~~~",
        "",
        "    rows[2] = 1",
        "",
        "``xs[2]`` is an index; see [3](https://example.org/c) and [docs][2].",
        "",
        "[2]: https://example.org/b",
        "",
        "```sh",
        "grep rows[3] hive.log",
    ]
)


async def test_the_bare_sdk_cites_no_marker_in_any_form_of_code_or_link():
    search = tool_call("c1", "moca_search", {"query": "q", "results": [A, B, C]})
    events = run(search, message("m1", *_deltas(ANSWER, 7)))
    [value] = citation_events(await collect(moca_agui.cite(source(events))))
    assert value["citations"] == [{"marker": "[1]", "record": A}]


# -- the look-ahead -------------------------------------------------------------------------

SEARCH = tool_call("c1", "moca_search", {"query": "q", "results": [compact(A), compact(B)]})


async def _looked_up(*deltas: str) -> tuple[list[tuple[str, bool]], list[dict[str, Any]]]:
    """The lookups the answer made (each with whether the answer had ended), its citations."""
    calls: list[tuple[str, bool]] = []
    ended: list[bool] = []

    lookup = recording_lookup([A, B], calls, ended)

    events = run(SEARCH, message("m1", *deltas))
    stream = moca_agui.cite(slowly(events, ended), lookup=lookup)
    [value] = citation_events(await collect(stream))
    return calls, value["citations"]


@pytest.mark.parametrize(
    "deltas",
    [
        ["Per [2]:\n``", "`py\nrows", "[1] = 2 ", "and more\n``", "`\nDone."],
        ["Per [2]:\n~~", "~\nrows[1] = 2 ", "and more\n~~~\nDone."],
        ["Per [2]:\n\n    rows", "[1] = 2 and ", "more\n\nDone."],
        ["Per [2]: ``rows", " [1] = 2 and ", "more`` done."],
        ["Per [2]:\n```py\nrows[1] = 2 ", "and more, cut off ", "by the token limit"],
    ],
    ids=["backtick fence", "tilde fence", "indented", "code span", "open fence"],
)
async def test_a_marker_in_code_split_over_deltas_is_never_looked_up(deltas):
    calls, citations = await _looked_up(*deltas)
    assert calls == [(ref(B), False)]
    assert citations == [{"marker": "[2]", "record": B}]


async def test_the_look_ahead_still_starts_a_lookup_before_the_answer_ends():
    calls, citations = await _looked_up("```\nx\n```\nPer [1] ", "and more ", "words.")
    assert calls == [(ref(A), False)]
    assert citations == [{"marker": "[1]", "record": A}]


async def test_a_ref_in_code_is_still_looked_up_as_the_answer_streams():
    """A versioned ref counts wherever it stands, in code too: its lookup starts early."""
    calls, citations = await _looked_up(
        "Run:\n```sh\nmoca get ", f"{ref(A)} --id [2]\n", "```\nand ", "more ", "words."
    )
    assert calls == [(ref(A), False)]
    assert citations == [{"record": A}]


def _deltas(text: str, size: int) -> list[str]:
    return [text[at : at + size] for at in range(0, len(text), size)]


@pytest.mark.parametrize(
    ("stretch", "cited"), [(" ", []), ("\n", [{"marker": "[1]", "record": A}])]
)
async def test_indentation_piles_up_over_the_stretches_of_a_reopened_answer(stretch, cited):
    """Four reopened stretches of one space each put the marker four columns in: an indented
    code block, as the whole text reads; on lines of their own it is a marker."""
    search = tool_call("c1", "moca_search", {"query": "q", "results": [A]})
    stretches = [message("m1", stretch) for _ in range(3)]
    events = run(search, *stretches, message("m1", stretch, "[1]"))
    [value] = citation_events(await collect(moca_agui.cite(source(events))))
    assert value["citations"] == cited
