"""Every marker style on the bare AG-UI SDK (`cite` over a scripted stream): grouped,
ranged, footnote and full-width markers cite each number's entry, in the final answer and
across any split into deltas; what names nothing is left out and logged."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

import moca_agui
import moca_agui.adapter
from moca_agui.plugins import get_plugin_manager
from streams import message, recording_lookup, run, slowly, source, tool_call
from support import citation_events, collect, compact, record, ref

RECORDS = [record(f"n{number}.md") for number in range(1, 12)]  # [1] .. [11]
A, B, C, D = RECORDS[:4]


def cited(marker: str, *records: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"marker": marker, "record": rec} for rec in records]


async def citations(*deltas: str, sources: int = 4) -> list[dict[str, Any]]:
    search = tool_call("c1", "moca_search", {"query": "q", "results": RECORDS[:sources]})
    [value] = citation_events(
        await collect(moca_agui.cite(source(run(search, message("m1", *deltas)))))
    )
    return list(value["citations"])


STYLES = [
    ("Both agree [1, 2].", cited("[1, 2]", A, B)),
    ("Both agree [2,1].", cited("[2,1]", B, A)),
    ("All [1 ,\t2 , 3].", cited("[1 ,\t2 , 3]", A, B, C)),
    ("All [1-3].", cited("[1-3]", A, B, C)),
    ("All [2\u20134].", cited("[2\u20134]", B, C, D)),
    ("These [4, 1\u20132].", cited("[4, 1\u20132]", D, A, B)),
    ("Yes[^2].\n\n[^2]: The hive notes.", cited("[^2]", B)),
    ("A note.\n\n   [^3]: The hive notes.", cited("[^3]", C)),
    ("See \u30101\u3011 and \u30102\u2020hive notes\u3011.", [*cited("\u30101\u3011", A),
     *cited("\u30102\u2020hive notes\u3011", B)]),
    ("First [1, 2], then [2] and [^1].", cited("[1, 2]", A, B)),
    ("First [2], then [1, 2].", [*cited("[2]", B), *cited("[1, 2]", A)]),
]  # fmt: skip


@pytest.mark.parametrize(("answer", "expected"), STYLES, ids=[a for a, _ in STYLES])
async def test_each_style_cites_each_number_at_the_markers_first_mention(answer, expected):
    assert await citations(answer) == expected


@pytest.mark.parametrize(("answer", "expected"), STYLES, ids=[a for a, _ in STYLES])
async def test_each_style_split_anywhere_over_deltas_cites_the_same(answer, expected):
    for at in range(1, len(answer)):
        assert await citations(answer[:at], answer[at:]) == expected, at
    assert await citations(*answer) == expected  # one character a delta


LEFT_OUT = [
    ("All [1-10].", 10, cited("[1-10]", *RECORDS[:10]), None),
    ("All [1-11].", 11, [], "a range is 2 to 10 numbers"),
    ("All [2, 1-11].", 11, cited("[2, 1-11]", B), "a range is 2 to 10 numbers"),
    ("All [3-1].", 4, [], "a range is 2 to 10 numbers"),
    ("All [1-5].", 4, [], "an end names no node"),
    ("All [1, 9].", 4, cited("[1, 9]", A), "9 of [1, 9]: it names no node"),
    ("All [8, 9].", 4, [], "it names no node"),
    ("See [1 - 2].", 4, [], None),
    ("See [01, 2].", 4, [], None),
    ("See [" + ", ".join(["1"] * 22) + "].", 4, [], None),
    ("See \u30103:0\u2020source\u3011.", 4, [], "\u30103:0\u2020source\u3011: it names no node"),
    ("Yes[^1].\n\n[^1]: https://example.org/a", 4, [], "a markdown link"),
    ("See \u30101,2\u3011 and \u30101-2\u3011.", 4, [], "it names no node"),
    ("See \u30101, 2\u3011.", 4, [], "\u30101, 2\u3011: it names no node"),
    ("[see \u30101\u3011](https://example.org)", 4, [], "in a link"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "sources", "expected", "logged"), LEFT_OUT, ids=[a for a, *_ in LEFT_OUT]
)
async def test_what_names_no_known_source_is_left_out_and_logged(
    answer, sources, expected, logged, caplog
):
    with caplog.at_level(logging.DEBUG, logger="moca_agui"):
        assert await citations(answer, sources=sources) == expected
    if logged is not None:
        assert any(logged in r.getMessage() for r in caplog.records), caplog.text


CODE_AND_LINKS = "\n".join(
    [
        "`[1, 2]` and `[^1]` and `\u30101\u3011` are code.",
        "",
        "    [1-2]",
        "",
        "```",
        "\u30102\u2020x\u3011 [^2] [1,2]",
        "```",
        "[see [1, 2]](https://example.org) <https://x.org/[1-2]> <!-- [^1] \u30101\u3011 -->",
        "and [1,2], a link by its definition:",
        "",
        "[1,2]: https://example.org/b",
        "Only [3-4] counts.",
    ]
)


async def test_no_style_is_read_in_code_links_or_comments():
    assert await citations(CODE_AND_LINKS) == cited("[3-4]", C, D)
    assert await citations(*CODE_AND_LINKS) == cited("[3-4]", C, D)


async def test_an_entry_first_mentioned_alone_keeps_its_own_marker():
    """One entry per node and span: a group after `[2]` adds only the entry it names anew."""
    assert await citations("[2] then [2, 3] then [^3].") == [*cited("[2]", B), *cited("[2, 3]", C)]


# -- the look-ahead -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "deltas",
    [
        ["Both [1,", " 2] agree ", "and more ", "words."],
        ["Both [1", ", 2", "] agree ", "and more ", "words."],
        ["Both \u30101\u2020the ", "hive\u3011 and \u30102\u3011 agree ", "and more ", "words."],
        ["Both [1\u2013", "2] agree ", "and more ", "words."],
    ],
    ids=["group", "group in three", "full-width with a space", "range"],
)
async def test_a_marker_split_over_deltas_is_looked_up_before_the_answer_ends(deltas):
    calls: list[tuple[str, bool]] = []
    ended: list[bool] = []

    lookup = recording_lookup([A, B], calls, ended)

    search = tool_call("c1", "moca_search", {"query": "q", "results": [compact(A), compact(B)]})
    events = run(search, message("m1", *deltas))
    stream = moca_agui.cite(slowly(events, ended), lookup=lookup)
    [value] = citation_events(await collect(stream))
    assert sorted(calls) == sorted([(ref(A), False), (ref(B), False)])
    assert [c["record"] for c in value["citations"]] == [A, B]


async def test_a_full_width_marker_in_code_split_over_deltas_is_never_looked_up():
    calls: list[tuple[str, bool]] = []
    ended: list[bool] = []

    lookup = recording_lookup([A, B], calls, ended)

    search = tool_call("c1", "moca_search", {"query": "q", "results": [compact(A), compact(B)]})
    deltas = ["Per \u30101\u3011:\n```\nrows", "\u30102\u3011 = 2 ", "and more\n```\nDone."]
    stream = moca_agui.cite(slowly(run(search, message("m1", *deltas)), ended), lookup=lookup)
    [value] = citation_events(await collect(stream))
    assert calls == [(ref(A), False)]
    assert value["citations"] == cited("\u30101\u3011", A)


class _Braced:
    """A third-party style: `{2}`."""

    opener, closer = "{", "}"
    pattern = re.compile(r"\{[0-9]{1,9}\}")

    def items(self, marker: str) -> tuple[int, ...] | None:
        return (int(marker[1:-1]),) if marker[1:-1].isdigit() else None


class _BracedPlugin:
    @moca_agui.adapter.hookimpl
    def moca_marker_styles(self) -> list[_Braced]:
        return [_Braced()]


async def test_a_plugins_style_is_read_in_the_answer_and_ahead():
    manager = get_plugin_manager()
    plugin = _BracedPlugin()
    manager.register(plugin, name="braced-style")
    try:
        assert await citations("See {2} and `{1}`, then [1].") == [
            *cited("{2}", B),
            *cited("[1]", A),
        ]
        calls: list[tuple[str, bool]] = []
        ended: list[bool] = []

        lookup = recording_lookup([A, B], calls, ended)

        search = tool_call("c1", "moca_search", {"query": "q", "results": [compact(B)]})
        deltas = ["Per {", "1} ", "and more ", "words."]
        stream = moca_agui.cite(slowly(run(search, message("m1", *deltas)), ended), lookup=lookup)
        [value] = citation_events(await collect(stream))
    finally:
        manager.unregister(plugin)
    assert value["citations"] == cited("{1}", B)
    assert calls == [(ref(B), False)]  # looked up while the answer streamed
