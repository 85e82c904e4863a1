"""Find where an answer refers to its sources: versioned node refs and markers.

Refs are opaque: a package id is any absolute URI and may itself hold `@` or `#`, so a
ref is never split. A ref is found when it stands between delimiters (white space,
brackets and quotes, typographic and full-width ones too, backticks, `|`), with
sentence punctuation around it trimmed, and it counts only when it equals, code point
for code point, a ref the Reader returned.
"""

from __future__ import annotations

import bisect
import logging
import re
import unicodedata
from collections.abc import Collection, Container, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from ..markers import MarkerStyle, builtin_styles
from ..markers.style import MAX_RANGE, Item, canonical
from .code import Hidden, hidden_ranges, normal_label

__all__ = [
    "KnownRefs",
    "Mention",
    "find_markers",
    "find_refs",
    "named_markers",
    "visible_markers",
]

logger = logging.getLogger("moca_agui")

#: White space, brackets and quotes (ASCII, typographic, full-width), backticks and `|`.
_DELIMITERS = r"\s<>()\[\]{}\"'`|" + (
    "\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b"  # typographic double and single quotes
    "\u00ab\u00bb\u2039\u203a"  # guillemets
    "\uff08\uff09\uff3b\uff3d\uff5b\uff5d"  # full-width brackets
    "\u300c\u300d\u300e\u300f\u3010\u3011\u3008\u3009\u300a\u300b\u3014\u3015"  # CJK brackets
)
_RUN = re.compile(rf"[^{_DELIMITERS}]*")  # the run of non-delimiters at a position
_LABEL = re.compile(r"\[([^\[\]]{0,999})\]")
#: A URI autolink, `<https://...>`: no marker is in it.
_AUTOLINK = re.compile(r"<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*>")
#: What may follow a marker in a link's text up to its closing `](`: text and bracketed
#: words (more markers), no bracket else.
_LINK_TEXT = re.compile(r"(?:[^\[\]]|\[[^\[\]]*\])*")
_EDGE_MARKUP = "*_~"


class Mention(NamedTuple):
    """One place in the answer that refers to a node: `text[start:end]`.

    A named tuple, as `Entry` is: an answer has one per marker, and a frozen dataclass
    costs twice as much to make.
    """

    start: int
    end: int
    ref: str
    marker: str | None = None
    #: The marker of the marker table the mention names, where `marker` (as written, e.g.
    #: `[1, 2]`) is not it (`[1]`); None: `marker` itself.
    key: str | None = None


class KnownRefs(AbstractSet[str]):
    """A run's refs, knowing the length of the longest: `find_refs` reads none to learn it."""

    __slots__ = ()

    @property
    def longest(self) -> int:
        raise NotImplementedError


def find_refs(text: str, known: Collection[str]) -> Iterator[Mention]:
    """Mentions of the refs in `known`; ref-like tokens that match none are logged (debug)."""
    longest = known.longest if isinstance(known, KnownRefs) else max(map(len, known), default=0)
    for start, end in _ref_tokens(text):
        if text.find("@", start, end) == -1:
            continue
        # Longer than any known ref, a token cannot match yet: trim by index, in linear time.
        while end - start > longest and _trimmable(text[end - 1]):
            end -= 1
        while end - start > longest and text[start] in _EDGE_MARKUP:
            start += 1
        token = text[start:end]
        while token and token not in known and _trimmable(token[-1]):
            token, end = token[:-1], end - 1
        while token and token not in known and token[0] in _EDGE_MARKUP:
            token, start = token[1:], start + 1
        if token in known:
            yield Mention(start, end, token)
        else:
            logger.debug("moca_agui: left out %.200r: no Reader result of this run has it", token)


def _ref_tokens(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each whole run of non-delimiters holding a `#`, found from its `#`:
    text without one costs a single scan, and no character is looked at twice."""
    backwards = ""
    end = 0
    while (hash_at := text.find("#", end)) != -1:
        backwards = backwards or text[::-1]
        before = len(text) - hash_at  # where text[hash_at - 1] is in `backwards`
        start = hash_at - (_RUN.match(backwards, before).end() - before)  # type: ignore[union-attr]
        end = _RUN.match(text, hash_at).end()  # type: ignore[union-attr]
        yield start, end


def find_markers(
    text: str, markers: Mapping[str, str], styles: Sequence[MarkerStyle] | None = None
) -> Iterator[Mention]:
    """Mentions of the markers in `markers` (marker text -> ref), e.g. `[1]`, where
    CommonMark shows them as text, written in any of the marker `styles` (the built-in
    ones by default). A marker whose whole text `markers` holds names its ref; else each
    number its style reads in it names the ref of `[n]` (`[1, 2]`, `[1-3]`, `[^1]`,
    `【1】`), the mention's `key`. None in code (`xs[2]` is an index, not a pointer to a
    source) nor in a link: `[1](https://...)`, `[see [1]](https://...)`, `[1][docs]`, `[1]`
    where the answer defines the link label `[1]: https://...` (`code.hidden_ranges`), and
    an autolink `<https://...>`; nor in an HTML comment."""
    if not markers:
        return
    styles = builtin_styles() if styles is None else styles
    after = 0  # the end of the last marker that named an entry: none is inside it
    for start, end in visible_markers(text, styles):
        if start < after:
            continue
        marker = text[start:end]
        ref = markers.get(marker)
        if ref is not None:
            after = end
            yield Mention(start, end, ref, marker)
            continue
        for key in named_markers(marker, markers, styles):
            after = end
            yield Mention(start, end, markers[key], marker, key)


def visible_markers(text: str, styles: Sequence[MarkerStyle]) -> Iterator[tuple[int, int]]:
    """(start, end) of each text of `text` that may be a marker of one of `styles`, in
    order (at one start, the longest first; one may hold another: `【see [1]】`), where
    CommonMark shows it as text (not in code, a link or a comment)."""
    candidates = _candidates(text, styles)
    if not candidates:
        return
    hidden, labels = hidden_ranges(text)
    autolinks = [Hidden(*link.span()) for link in _AUTOLINK.finditer(text)] if "<" in text else []
    link_texts = _link_texts(text, labels, candidates) if "](" in text else []
    comments = _comments(text) if "<!--" in text else []
    for start, end in candidates:
        marker = text[start:end]
        if hidden and _in_code(start, hidden):
            continue
        if (autolinks and _in_code(start, autolinks)) or (
            link_texts and _in_code(start, link_texts)
        ):
            logger.debug("moca_agui: left out %s: in a link", marker)
            continue
        if comments and _in_code(start, comments):
            logger.debug("moca_agui: left out %s: in an HTML comment", marker)
            continue
        if marker.startswith("[") and _is_link(text, end, marker, labels):
            logger.debug("moca_agui: left out %s: a markdown link, not a marker", marker)
            continue
        yield start, end


def named_markers(marker: str, markers: Container[str], styles: Sequence[MarkerStyle]) -> list[str]:
    """The markers of `markers` (`[n]`) the numbers in `marker` name, in the order written
    (a range's ascending), each once; what names nothing is logged (debug)."""
    items = marker_items(marker, styles)
    if items is None:
        if any(char.isdigit() for char in marker):
            logger.debug("moca_agui: left out marker %.80s: it names no node of this run", marker)
        return []
    named: dict[str, None] = {}
    for item in items:
        if isinstance(item, int):
            numbers: range | tuple[int] = (item,)
        else:
            numbers = _expanded(marker, *item, markers)
        for number in numbers:
            key = canonical(number)
            if key in markers:
                named[key] = None
            else:
                logger.debug("moca_agui: left out %s of %s: it names no node of this run",
                             number, marker)  # fmt: skip
    return list(named)


def marker_items(marker: str, styles: Sequence[MarkerStyle]) -> tuple[Item, ...] | None:
    """What the first style that reads `marker` says it names; a style that fails or
    answers what is no number nor range is logged and skipped."""
    for style in styles:
        try:
            items = style.items(marker)
        except Exception:
            logger.exception("moca_agui: a marker style failed to read %.80r", marker)
            continue
        if items is None:
            continue
        if isinstance(items, tuple) and all(map(_is_item, items)):
            return items
        logger.warning("moca_agui: a marker style read %.80r as %.80r: skipped", marker, items)
    return None


def _is_item(item: object) -> bool:
    if isinstance(item, tuple):
        return len(item) == 2 and all(type(end) is int for end in item)
    return type(item) is int


def _expanded(marker: str, low: int, high: int, markers: Container[str]) -> range:
    """The numbers of the range `low`-`high` in `marker`: none unless it goes up, holds at
    most `MAX_RANGE` numbers and both its ends name a node of this run (logged)."""
    if low >= high or high - low + 1 > MAX_RANGE:
        logger.debug("moca_agui: left out %s-%s of %s: a range is %s to %s numbers upwards",
                     low, high, marker, 2, MAX_RANGE)  # fmt: skip
        return range(0)
    if canonical(low) not in markers or canonical(high) not in markers:
        logger.debug("moca_agui: left out %s-%s of %s: an end names no node of this run",
                     low, high, marker)  # fmt: skip
        return range(0)
    return range(low, high + 1)


def _candidates(text: str, styles: Sequence[MarkerStyle]) -> list[tuple[int, int]]:
    """(start, end) of what any style's pattern matches, each once, in order (at one
    start, the longest first). Only the styles whose opener is in `text` scan it, and
    one style's matches, in order already, are not sorted (most answers use one)."""
    found = [
        spans
        for style in styles
        if style.opener in text
        if (spans := [match.span() for match in style.pattern.finditer(text)])
    ]
    if len(found) == 1:
        return found[0]
    return sorted({span for spans in found for span in spans}, key=_earliest_longest)


def _earliest_longest(span: tuple[int, int]) -> tuple[int, int]:
    return span[0], -span[1]


def _comments(text: str) -> list[Hidden]:
    """The HTML comments `<!-- ... -->` in `text`, which are not shown, in order."""
    comments: list[Hidden] = []
    start = text.find("<!--")
    while start != -1:
        end = text.find("-->", start + 4)
        if end == -1:
            break
        comments.append(Hidden(start, end + 3))
        start = text.find("<!--", end + 3)
    return comments


def _link_texts(text: str, labels: set[str], candidates: list[tuple[int, int]]) -> list[Hidden]:
    """The runs of markers that are in a link's text, `[see [1] and 【2】](https://...)`:
    from a marker on, over text and bracketed words, up to a `](`, unless a link is among
    them (a link's text holds no link: the outer brackets are text then). Each run is read
    once."""
    runs: list[Hidden] = []
    end = 0
    for start, after in candidates:
        if start < end:
            continue  # in the run read last
        end = _LINK_TEXT.match(text, after).end()  # type: ignore[union-attr]
        if text.startswith("](", end) and not _holds_link(text[start:end], labels):
            runs.append(Hidden(start, end))
    return runs


def _holds_link(text: str, labels: set[str]) -> bool:
    """Whether `text`, in a link's text, holds a link: `[x](...)` or a defined label."""
    return "](" in text or any(
        normal_label(word.group(1)) in labels for word in _LABEL.finditer(text)
    )


def _is_link(text: str, end: int, marker: str, labels: set[str]) -> bool:
    """Whether the bracketed `marker` ending at `end` is a link's text: followed by `(`,
    by a defined label (`[]`: its own), or itself a defined label and followed by none."""
    if text.startswith("(", end):
        return True
    if not labels:
        return False
    label = _LABEL.match(text, end)
    name = marker[1:-1] if label is None or not label.group(1) else label.group(1)
    return normal_label(name) in labels


def _in_code(position: int, code: list[Hidden]) -> bool:
    """Whether `position` is in one of the `code` ranges (in order, not overlapping)."""
    at = bisect.bisect(code, position, key=_span_start) - 1
    return at >= 0 and position < code[at][1]


def _span_start(span: Hidden) -> int:
    return span[0]


def _trimmable(char: str) -> bool:
    return char in _EDGE_MARKUP or unicodedata.category(char).startswith("P")
