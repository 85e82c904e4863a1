"""Finding refs and markers in an answer: opaque refs, exact matches, linear time."""

from __future__ import annotations

import unicodedata

import pytest

from moca_agui.records.references import Mention, find_markers, find_refs
from support import record, ref

A = ref(record("a.md"))
TAG = "tag:kb@example.com,2026:faq#v2@3.1.0#answers/refunds.md"  # `@` and `#` in the id


@pytest.mark.parametrize(
    "text",
    [
        "see {r}",
        "see {r}.",
        "see ({r}), then",
        "[the policy]({r})",
        "[{r}]",
        "`{r}`",
        "<{r}>",
        "**{r}**",
        '"{r}"',
        "{r};",
        "{r}。",
        "| {r} |",
    ],
)
def test_a_known_ref_is_found_wherever_markdown_puts_it(text):
    for known in (A, TAG):
        body = text.format(r=known)
        [mention] = find_refs(body, {known})
        assert body[mention.start : mention.end] == known == mention.ref


def test_refs_are_matched_exactly_never_normalised_or_guessed():
    nfc = "https://example.com/kb@1.0.0#café.md"
    nfd = unicodedata.normalize("NFD", nfc)
    zero_width = nfc.replace("kb@", "kb\u200b@")
    rtl = nfc.replace("café", "\u202ecafé")
    text = f"{nfd} {zero_width} {rtl} https://example.com/kb@1.0.0#caf"
    assert list(find_refs(text, {nfc})) == []
    assert [m.ref for m in find_refs(f"{nfc} {nfd}", {nfc, nfd})] == [nfc, nfd]


def test_markers_map_through_the_table_and_unknown_markers_are_left_out():
    text = "A [1], B [2], link [label](x), footnote [^1], [3], [2, 3]"
    found = list(find_markers(text, {"[1]": "r1", "[2]": "r2"}))
    assert found == [
        Mention(2, 5, "r1", "[1]"),
        Mention(9, 12, "r2", "[2]"),
        Mention(40, 44, "r1", "[^1]", "[1]"),  # a footnote names the number's entry
        Mention(51, 57, "r2", "[2, 3]", "[2]"),  # a group each of its known numbers'
    ]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("In Python, `xs[2]` is the third item [1].", ["[1]"]),
        ("```py\nprint(xs[1])\n```\nSo says [2].", ["[2]"]),
        ("``a`[1]`` is code, one backtick inside; [2] is not.", ["[2]"]),
        ("An unclosed ` is text: [1], and so is [2].", ["[1]", "[2]"]),
        ("[1]`[2]`[3]`", ["[1]", "[3]"]),
    ],
)
def test_markers_in_code_are_not_markers(text, found):
    markers = {"[1]": "r1", "[2]": "r2", "[3]": "r3"}
    assert [mention.marker for mention in find_markers(text, markers)] == found


def test_finding_code_is_linear_on_unclosed_backticks():
    # A regular expression for code backtracks quadratically here, for minutes.
    runs = "".join("`" * k + "a" for k in range(1, 1400))  # no run closes another
    # (A line that starts with three backticks opens a fence: these are paragraphs.)
    for text in ("a" + "`" * 1_000_000 + " [1]", "a" + runs + " [1]"):
        assert [m.marker for m in find_markers(text, {"[1]": "r1"})] == ["[1]"]


def test_finding_code_is_linear_in_deeply_nested_containers():
    # Each line is matched against the open containers: unbounded, 5,000 nested list items
    # and 50,000 blank lines would cost 250 million steps (minutes); bounded, well under one.
    for nest in ("- " * 5_000, "> " * 5_000):
        text = f"{nest}```\n" + "\n" * 50_000 + "[1]"
        assert [m.marker for m in find_markers(text, {"[1]": "r1"})] == ["[1]"]


def test_ref_finding_is_linear_on_long_tokens_without_delimiters():
    # A quadratic scan would take minutes here; a linear one well under a second.
    text = "a" * 2_000_000 + "#" + "b" * 2_000_000
    assert list(find_refs(text, {A})) == []


def test_finding_link_texts_is_linear_in_markers():
    # Each marker reads on to the next bracket that is no marker: read from every marker
    # anew, 50,000 markers and no link text's `](` after them cost 10^10 steps (minutes).
    text = "[a](https://x.org) " + "[1] " * 50_000
    assert len(list(find_markers(text, {"[1]": "r1"}))) == 50_000
