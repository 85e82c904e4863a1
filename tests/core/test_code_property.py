"""The marker finder and a CommonMark parser (markdown-it-py) agree on what an answer
shows as text: over generated answers with fences of both kinds and any length, open or
closed, indented code, code spans, list items, block quotes and links, every marker the
parser renders as text (outside a link) is found, and no other: a tab after a quote's `>`,
a marker in a link's text or in an autolink included. The npm package's
`locateMarkers` places the same markers at the same offsets, and the look-ahead, fed the
answer in deltas, reads as text what the finder reads."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from moca_agui.records.code import hidden_ranges
from moca_agui.records.references import find_markers
from moca_agui.stream.prose import Prose
from support import ROOT

MARKERS = {f"[{n}]": f"ref-{n}" for n in range(1, 10)}
PARSER = MarkdownIt("commonmark")

marker = st.integers(1, 9).map(lambda n: f"[{n}]")
word = st.one_of(marker, st.sampled_from(["see", "xs", "a:", "- b", "1.", "#", "*"]))


def _words(draw: st.DrawFn, size: int = 5) -> str:
    parts = []
    for _ in range(draw(st.integers(1, size))):
        kind = draw(st.sampled_from(["word", "word", "span", "ticks", "link", "text", "tilde"]))
        if kind == "word":
            parts.append(draw(word))
        elif kind == "span":
            ticks = "`" * draw(st.integers(1, 3))
            inside = st.one_of(word, st.just("`"), st.just("``"))
            inner = " ".join(draw(st.lists(inside, max_size=3)))
            parts.append(f"{ticks}{inner}{ticks}")
        elif kind == "ticks":
            parts.append(("\\" if draw(st.booleans()) else "") + "`" * draw(st.integers(1, 3)))
        elif kind == "link":
            parts.append(draw(marker) + draw(st.sampled_from(["(https://x.org/a)", "[]", "[d]"])))
        elif kind == "text":  # a marker in a link's text or in an autolink
            inner = " ".join(draw(st.lists(st.one_of(marker, st.just("see")), min_size=1)))
            parts.append(
                draw(st.sampled_from([f"[{inner}](https://x.org/a)", f"<https://x.org/{inner}>"]))
            )
        else:
            parts.append("~" * draw(st.integers(1, 4)))
    return " ".join(parts)


@st.composite
def paragraph(draw: st.DrawFn) -> list[str]:
    return [_words(draw) for _ in range(draw(st.integers(1, 3)))]


@st.composite
def fence(draw: st.DrawFn) -> list[str]:
    char = draw(st.sampled_from("`~"))
    length = draw(st.integers(3, 5))
    indent = " " * draw(st.integers(0, 4))
    info = draw(st.sampled_from(["", "python", "[1]", "a`b", "x ~~~"]))
    lines = [f"{indent}{char * length}{info}"]
    lines += [" " * draw(st.integers(0, 5)) + _words(draw) for _ in range(draw(st.integers(0, 3)))]
    close = draw(st.sampled_from(["same", "longer", "shorter", "other", "none"]))
    closing = {
        "same": char * length,
        "longer": char * (length + 1),
        "shorter": char * (length - 1),
        "other": ("~" if char == "`" else "`") * length,
        "none": None,
    }[close]
    if closing is not None:
        lines.append(" " * draw(st.integers(0, 4)) + closing)
    return lines


@st.composite
def indented(draw: st.DrawFn) -> list[str]:
    lead = draw(st.sampled_from(["    ", "\t", "      ", "  \t"]))
    return [lead + _words(draw) for _ in range(draw(st.integers(1, 3)))]


@st.composite
def definition(draw: st.DrawFn) -> list[str]:
    title = draw(st.sampled_from(["", ' "T"', " 'T'", " (T)"]))
    return [f"{draw(marker)}: https://x.org/{draw(st.integers(1, 9))}{title}"]


@st.composite
def list_item(draw: st.DrawFn) -> list[str]:
    bullet = draw(st.sampled_from(["-", "*", "1.", "2)", "10."]))
    gap = " " * draw(st.integers(1, 5))
    body = draw(st.one_of(paragraph(), fence(), indented()))
    width = len(bullet) + len(gap) if len(gap) <= 4 else len(bullet) + 1
    pad = draw(st.sampled_from([width, width, 0, 2]))
    first = f"{bullet}{gap}{body[0]}" if len(gap) <= 4 else f"{bullet} {body[0]}"
    return [first, *(" " * pad + line for line in body[1:])]


#: A block quote's `>` and what follows it: a tab right after it gives one column to the
#: quote and the rest of its width to the content (`>\t\t` is four columns in: code).
QUOTE_MARKS = ["> ", ">", " > ", ">\t", ">\t\t", ">\t  ", "  >\t", "  >\t  ", ">>\t\t"]


@st.composite
def quote(draw: st.DrawFn) -> list[str]:
    body = draw(st.one_of(paragraph(), fence(), list_item(), indented()))
    marks = [draw(st.sampled_from([*QUOTE_MARKS, ""])) for _ in body]
    first = draw(st.sampled_from(QUOTE_MARKS))
    return [mark + line for mark, line in zip([first, *marks[1:]], body, strict=True)]


block = st.one_of(paragraph(), fence(), indented(), definition(), list_item(), quote())


@st.composite
def answer(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for chunk in draw(st.lists(block, min_size=1, max_size=5)):
        if lines and draw(st.booleans()):
            lines.append("")
        lines.extend(chunk)
    return "\n".join(lines)


def shown(text: str) -> Counter[str]:
    """The markers markdown-it-py renders as text, outside links and code."""
    found: Counter[str] = Counter()
    for token in PARSER.parse(text):
        if token.type != "inline":
            continue
        links, pieces = 0, []
        for child in token.children or []:
            if child.type in ("link_open", "link_close"):
                links += 1 if child.type == "link_open" else -1
                pieces.append("\n")
            elif child.type in ("text", "text_special") and not links:
                pieces.append(child.content)
            else:
                pieces.append("\n")
        found.update(re.findall(r"\[[1-9]\]", "".join(pieces)))
    return found


#: markdown-it-py lets a line that would begin a fence, a heading or a thematic break but
#: for its indentation (4 or more) end a list item's paragraph it lazily continues, where
#: CommonMark continues the paragraph: the finder follows CommonMark, and such answers are
#: skipped (`lazy_block`), an item indented up to 3 spaces and lines in block quotes
#: included.
LAZY_BLOCK = re.compile(
    r"^[ ]{0,3}(?:[-*]|[0-9]+[.)])[ \t].*\n(?:.*\n)*?[ ]{4,}(?:`{3}|~{3}|#|(?:[-*_][ \t]*){3})",
    re.MULTILINE,
)
QUOTES = re.compile(r"(?:[ ]{0,3}>[ ]?)*")


def lazy_block(text: str) -> bool:
    """Whether `LAZY_BLOCK` is in `text` read past its lines' block-quote marks, with the
    tabs among them taken as CommonMark does (to a multiple of 4 columns; the column after
    a `>` is the quote's, a tab's other columns are the content's)."""
    lines = []
    for line in text.split("\n"):
        prefix = line[: len(line) - len(line.lstrip(" >\t"))]
        lines.append(QUOTES.sub("", prefix.expandtabs(4), count=1) + line[len(prefix) :])
    return LAZY_BLOCK.search("\n".join(lines)) is not None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer())
@example("*\n\n  ```\n[1]\n```")  # an item begun empty ends at a blank line: a fence after
def test_the_finder_and_markdown_it_agree_on_what_is_code(text: str) -> None:
    assume(not lazy_block(text))
    found = Counter(mention.marker for mention in find_markers(text, MARKERS))
    assert found == shown(text)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("> -    ```a`b\n>   [1]\n>     ```", []),
        ("  1. ```a`b [1]\n    ```", []),
        (">\t-   ```a`b [1]\n>     ```", []),
        ("> -    [1]\n>     # [1]", ["[1]", "[1]"]),
    ],
    ids=["in-a-block-quote", "item-indented-2", "tab-after-the-quote-mark", "heading"],
)
def test_a_block_start_indented_past_its_list_item_continues_the_paragraph(
    text: str, found: list[str]
) -> None:
    """The cases Hypothesis found past the skip's earlier forms: the last line continues
    the item's paragraph (CommonMark's reference, commonmark.js 0.31.2, renders
    `<li><code>a`b [1] </code></li>`, and keeps `# [1]` in the item's paragraph);
    markdown-it-py ends the item there: it shows the code span's `[1]`, and reads the
    heading as indented code."""
    assert lazy_block(text)
    assert [mention.marker for mention in find_markers(text, MARKERS)] == found


def test_lazy_block_takes_one_space_after_a_quote_mark_as_the_quote_s() -> None:
    assert not lazy_block("> -    x\n>    ```")  # a fence: 3 spaces past the quote's
    assert not lazy_block(">\t-   x\n>\t ```")  # 2 columns of the tab and a space: a fence


NODE_LOCATE = """
import { readFileSync } from "node:fs";
import { locateMarkers } from "./index.js";
const record = (n) => ({ node: { ref: `https://example.org/kb@1.0.0#${n}.md` } });
const citations = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ({ marker: `[${n}]`, record: record(n) }));
const found = JSON.parse(readFileSync(0, "utf8")).map((text) =>
  locateMarkers(text, citations).map((m) => [m.citation.marker, m.start]));
process.stdout.write(JSON.stringify(found));
"""


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(answer(), min_size=30, max_size=30))
def test_the_npm_package_places_markers_where_the_finder_finds_them(texts: list[str]) -> None:
    """The same answers through `locateMarkers` (node) and `find_markers`: the same
    markers at the same offsets (the answers are ASCII: UTF-16 offsets are the same)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node; nox -s tests runs it with Node 20")
    placed = subprocess.run(
        [node, "--input-type=module", "-e", NODE_LOCATE],
        input=json.dumps(texts), capture_output=True, text=True, check=True, cwd=ROOT / "js",
        timeout=120,
    ).stdout  # fmt: skip
    for text, found in zip(texts, json.loads(placed), strict=True):
        assert found == [[m.marker, m.start] for m in find_markers(text, MARKERS)], text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer(), st.lists(st.integers(1, 9), min_size=1, max_size=20))
def test_the_look_ahead_reads_as_text_what_the_finder_does(text: str, sizes: list[int]) -> None:
    """`Prose`, fed the answer in deltas of any sizes, hands on as text exactly the markers
    outside code that the whole answer has: a fence or span split over deltas never leaks."""
    prose, handed, at = Prose("["), [], 0
    for size in itertools.cycle(sizes):
        if at >= len(text):
            break
        handed.append(prose.feed(text[at : at + size]))
        at += size
    handed.append(prose.close())
    hidden, _ = hidden_ranges(text)
    outside = [
        match.group()
        for match in re.finditer(r"\[[1-9]\]", text)
        if not any(start <= match.start() < end for start, end in hidden)
    ]
    assert Counter(re.findall(r"\[[1-9]\]", "".join(handed))) == Counter(outside)
