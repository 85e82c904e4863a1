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
from collections.abc import Collection, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from .code import Hidden, hidden_ranges, normal_label

__all__ = ["KnownRefs", "Mention", "find_markers", "find_refs"]

logger = logging.getLogger("moca_agui")

#: White space, brackets and quotes (ASCII, typographic, full-width), backticks and `|`.
_DELIMITERS = r"\s<>()\[\]{}\"'`|" + (
    "\u201c\u201d\u201e\u201f\u2018\u2019\u201a\u201b"  # typographic double and single quotes
    "\u00ab\u00bb\u2039\u203a"  # guillemets
    "\uff08\uff09\uff3b\uff3d\uff5b\uff5d"  # full-width brackets
    "\u300c\u300d\u300e\u300f\u3010\u3011\u3008\u3009\u300a\u300b\u3014\u3015"  # CJK brackets
)
_RUN = re.compile(rf"[^{_DELIMITERS}]*")  # the run of non-delimiters at a position
_MARKER = re.compile(r"\[[^\[\]\s]{1,32}\]")
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


def find_markers(text: str, markers: Mapping[str, str]) -> Iterator[Mention]:
    """Mentions of the markers in `markers` (marker text -> ref), e.g. `[1]`, where
    CommonMark shows them as text. None in code (`xs[2]` is an index, not a pointer to a
    source) nor in a link: `[1](https://...)`, `[see [1]](https://...)`, `[1][docs]`, `[1]`
    where the answer defines the link label `[1]: https://...` (`code.hidden_ranges`), and
    an autolink `<https://...>`; nor in an HTML comment."""
    if not markers:
        return
    hidden, labels = hidden_ranges(text)
    autolinks = [Hidden(*link.span()) for link in _AUTOLINK.finditer(text)] if "<" in text else []
    link_texts = _link_texts(text, labels) if "](" in text else []
    comments = _comments(text) if "<!--" in text else []
    for match in _MARKER.finditer(text):
        if hidden and _in_code(match.start(), hidden):
            continue
        if (autolinks and _in_code(match.start(), autolinks)) or (
            link_texts and _in_code(match.start(), link_texts)
        ):
            logger.debug("moca_agui: left out %s: in a link", match.group())
            continue
        if comments and _in_code(match.start(), comments):
            logger.debug("moca_agui: left out %s: in an HTML comment", match.group())
            continue
        marker = match.group()
        if _is_link(text, match.end(), marker, labels):
            logger.debug("moca_agui: left out %s: a markdown link, not a marker", marker)
            continue
        ref = markers.get(marker)
        if ref is not None:
            yield Mention(*match.span(), ref, marker)
        elif marker[1:-1].isdigit():
            logger.debug("moca_agui: left out marker %s: it names no node of this run", marker)


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


def _link_texts(text: str, labels: set[str]) -> list[Hidden]:
    """The runs of markers that are in a link's text, `[see [1] and [2]](https://...)`: from
    a marker on, over text and bracketed words, up to a `](`, unless a link is among them
    (a link's text holds no link: the outer brackets are text then). Each run is read once."""
    runs: list[Hidden] = []
    end = 0
    for match in _MARKER.finditer(text):
        if match.start() < end:
            continue  # in the run read last
        end = _LINK_TEXT.match(text, match.end()).end()  # type: ignore[union-attr]
        if text.startswith("](", end) and not _holds_link(text[match.start() : end], labels):
            runs.append(Hidden(match.start(), end))
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
