"""What CommonMark renders as code in an answer, and what it does not render at all.

Fenced code blocks (backticks or tildes, three or more, closed by a fence of the same
character at least as long, or running to the end of the answer or of their list item),
indented code blocks (four columns past their container, never interrupting a
paragraph), code spans of any backtick count (a run no run of the same length closes in
its paragraph is text), and link reference definitions (`[1]: https://...`, which are not
shown). Containers: list items and block quotes, as CommonMark nests them; HTML blocks are
read as paragraphs. One pass, linear in the text; `CodeScanner` reads an answer as it
streams, line by line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["CodeScanner", "Hidden", "hidden_ranges", "normal_label"]

_LIST_MARKER = re.compile(r"[-+*]|[0-9]{1,9}[.)]")
_THEMATIC_BREAK = re.compile(r"(?:([-*_])[ \t]*)(?:\1[ \t]*){2,}")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
_DEFINITION = re.compile(
    r"\[((?:[^\[\]\\]|\\.){1,999})\]:"
    r"(?:[ \t]*|[ \t]*(?:<[^<>\n]*>|[^\s<][^\s]*)"
    r"(?:[ \t]+(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?[ \t]*)"
)
#: A line's first word that what follows it decides: a list marker (an empty item cannot
#: interrupt a paragraph), a break's or a heading's, a definition's label.
_UNDECIDED = re.compile(r"(?:[-+*_=#>`~]+|[0-9]{1,9}[.)])[ \t]|\[[^\[\]]*\]:")
_BACKTICKS = re.compile(r"`+")
_QUOTE = -1  # a block quote among the open containers
#: How deep containers nest at most: each line is matched against every open one.
_MAX_DEPTH = 32
#: What code or a definition needs: a backtick or tilde, four columns of indentation, a
#: definition's `]:`. Without them nothing is hidden (not even a line nested too deep,
#: whose text is no code).
_MAY_HIDE = ("`", "~", "\t", "    ", "]:")


class Hidden(NamedTuple):
    """`text[start:end]`, code or a link reference definition: no marker is in it."""

    start: int
    end: int


def hidden_ranges(text: str) -> tuple[list[Hidden], set[str]]:
    """The ranges of `text` that are code or a link reference definition, in order, and
    the labels the definitions define (`normal_label`)."""
    if not any(sign in text for sign in _MAY_HIDE):
        return [], set()
    scanner = CodeScanner()
    at = 0
    for line in text.split("\n"):
        scanner.line(line, at)
        at += len(line) + 1
    scanner.end()
    return sorted(scanner.hidden), scanner.labels


def normal_label(label: str) -> str:
    """A link label as CommonMark matches it: case folded, inner white space collapsed."""
    return " ".join(label.split()).casefold()


class CodeScanner:
    """Reads an answer line by line and collects what of it is hidden (`hidden`, in
    order). Everything before `settled` is decided: text after it may still become code
    (a code span's closing backticks not yet read)."""

    __slots__ = (
        "_containers",
        "_empty_item",
        "_fence",
        "_paragraph",
        "_spans",
        "hidden",
        "labels",
        "settled",
    )

    def __init__(self) -> None:
        self.hidden: list[Hidden] = []
        self.labels: set[str] = set()
        self.settled = 0
        #: The open containers, outermost first: a list item's content indentation (past
        #: its container's), or `_QUOTE`.
        self._containers: list[int] = []
        self._fence: tuple[str, int, int] | None = None  # character, length, containers
        self._paragraph = False
        #: The innermost container is a list item begun on a line of its own, still empty:
        #: a blank line ends it (an item begins with at most one blank line).
        self._empty_item = False
        self._spans = _Spans(self.hidden)

    def line(self, line: str, start: int) -> None:
        """Read the answer's next whole line (without its line feed), at offset `start`."""
        found = self._classify(line, start)
        if found is not None:
            self._spans.feed(line[found:], start + found)
        self.line_read(start + len(line) + 1)

    def line_read(self, end: int) -> None:
        """The current line ended at `end` (after its line feed)."""
        self.settled = self._spans.pending_from(end)

    def end(self) -> None:
        """The answer ended: an open fence runs to its end, an open code span is text."""
        self._end_paragraph(0)
        self.settled = 2**63

    def begin_prose(self, line: str, start: int) -> int | None:
        """Begin reading `line`, the start of the answer's next line at offset `start`, if
        it is paragraph text whatever follows (its first word is whole): where that text
        begins in `line`, to be read with `inline`. None: not known yet, nothing read."""
        saved = self._containers[:], self._fence, self._paragraph, self._empty_item
        found = self._classify(line, None)
        self._containers, self._fence, self._paragraph, self._empty_item = saved
        if found is None:
            return None
        word = line[found:].lstrip(" \t")
        if not word or (" " not in word and "\t" not in word) or _UNDECIDED.match(word):
            return None
        return self._classify(line, start)

    def inline(self, text: str, start: int) -> None:
        """Read more paragraph text of the line begun with `begin_prose`, at offset `start`."""
        self._spans.feed(text, start)
        self.settled = self._spans.pending_from(start + len(text))

    # -- blocks --------------------------------------------------------------------------

    def _classify(self, line: str, start: int | None = None) -> int | None:
        """Read one line's block structure; the offset in `line` where its paragraph text
        begins, if it has some. Without `start`, only the block state changes."""
        line = line.rstrip("\r")
        containers = self._containers
        depth, pos, column, base = _match(line, containers)
        pos, column = _skip_space(line, pos, column)
        if self._fence is not None:
            char, length, fence_depth = self._fence
            if depth >= fence_depth:
                if column - base <= 3 and _closes(line, pos, char, length):
                    self._fence = None
                self._hide(start, line)
                return None
            self._fence = None  # its container ended, and the fence with it
        empty_item, self._empty_item = self._empty_item, False
        if pos == len(line):
            self._end_paragraph(start)
            del containers[min(depth, len(containers) - empty_item) :]
            return None
        if self._paragraph and depth < len(containers):
            if column - base >= 4 or not _starts_block(line, pos):
                return pos  # a lazy continuation line
            self._end_paragraph(start)  # it was in a container that ends here
        del containers[depth:]
        while True:
            if column - base >= 4:
                if self._paragraph:
                    return pos
                self._hide(start, line)  # an indented code block
                return None
            char = line[pos]
            if len(containers) == _MAX_DEPTH and (char == ">" or _list_item(line, pos, 0)):
                self._hide(start, line)  # too deep to follow in linear time: not text
                return None
            if char == ">":
                self._end_paragraph(start)
                containers.append(_QUOTE)
                pos, base = _after_quote(line, pos, column)
                pos, column = _skip_space(line, pos, base)
                if pos == len(line):
                    return None
                continue
            if char in "`~":
                length = _run(line, pos, char)
                if length >= 3 and (char == "~" or "`" not in line[pos + length :]):
                    self._end_paragraph(start)
                    self._fence = (char, length, len(containers))
                    self._hide(start, line)
                    return None
            if self._paragraph and _SETEXT.fullmatch(line, pos):
                self._end_paragraph(start)  # a heading's underline
                return None
            if _THEMATIC_BREAK.fullmatch(line, pos):
                self._end_paragraph(start)
                return None
            item = _list_item(line, pos, column)
            if item is not None and not (self._paragraph and not item.may_interrupt):
                self._end_paragraph(start)
                containers.append(item.content_column - base)
                if item.content is None:
                    self._empty_item = True
                    return None  # an empty item so far
                pos, column = item.content, item.content_column
                base = item.content_column
                if item.indented_code:
                    self._hide(start, line)
                    return None
                continue
            if _ATX.match(line, pos):
                self._end_paragraph(start)
                if start is not None:
                    self._spans.feed(line[pos:], start + pos)
                    self._spans.end()
                return None
            definition = None if self._paragraph else _DEFINITION.fullmatch(line, pos)
            if definition is not None:
                if start is not None:
                    self.labels.add(normal_label(definition.group(1)))
                self._hide(start, line)
                return None
            self._paragraph = True
            return pos

    def _hide(self, start: int | None, line: str) -> None:
        if start is not None:
            self._spans.end()
            self.hidden.append(Hidden(start, start + len(line)))

    def _end_paragraph(self, start: int | None) -> None:
        self._paragraph = False
        if start is not None:
            self._spans.end()


class _Item(NamedTuple):
    content_column: int
    content: int | None  # where its content starts in the line; None: the line ends
    indented_code: bool  # five or more spaces after the marker: the content is code
    may_interrupt: bool  # whether it may interrupt a paragraph


def _list_item(line: str, pos: int, column: int) -> _Item | None:
    marker = _LIST_MARKER.match(line, pos)
    if marker is None:
        return None
    end = marker.end()
    after = line[end : end + 1]
    if after not in ("", " ", "\t"):
        return None
    marker_column = column + end - pos
    content, content_column = _skip_space(line, end, marker_column)
    ordered = marker.group()[0].isdigit()
    empty = content == len(line)
    may_interrupt = not empty and (not ordered or marker.group()[:-1].lstrip("0") == "1")
    if empty:
        return _Item(marker_column + 1, None, False, may_interrupt)
    if content_column - marker_column > 4:
        return _Item(marker_column + 1, content, True, may_interrupt)
    return _Item(content_column, content, False, may_interrupt)


def _starts_block(line: str, pos: int) -> bool:
    """Whether `line` (its first non-space character at `pos`) starts a block that ends a
    paragraph it would otherwise lazily continue."""
    char = line[pos]
    if char in "`~" and _run(line, pos, char) >= 3:
        return char == "~" or "`" not in line[pos + _run(line, pos, char) :]
    return bool(
        char == ">"
        or _THEMATIC_BREAK.fullmatch(line, pos)
        or _ATX.match(line, pos)
        or _list_item(line, pos, 0) is not None
    )


def _closes(line: str, pos: int, char: str, length: int) -> bool:
    run = _run(line, pos, char)
    return run >= length and not line[pos + run :].strip(" \t\r")


def _run(line: str, pos: int, char: str) -> int:
    end = pos
    while end < len(line) and line[end] == char:
        end += 1
    return end - pos


def _skip_space(line: str, pos: int, column: int) -> tuple[int, int]:
    """The first position from `pos` that is not a space or tab, and its column (tabs stop
    every four columns)."""
    while pos < len(line) and line[pos] in " \t":
        column = column + 4 - column % 4 if line[pos] == "\t" else column + 1
        pos += 1
    return pos, column


def _match(line: str, containers: list[int]) -> tuple[int, int, int, int]:
    """How many of the open containers `line` stays in (a block quote needs its `>`, a
    list item its indentation, or a blank line), where the rest of the line starts and
    its column, and the column the innermost one's content is indented from."""
    pos = column = base = 0
    for depth, container in enumerate(containers):
        first, first_column = _skip_space(line, pos, column)
        if container == _QUOTE:
            if first_column - base > 3 or not line.startswith(">", first):
                return depth, pos, column, base
            pos, column = _after_quote(line, first, first_column)
            base = column
        elif first < len(line) and first_column - base < container:
            return depth, pos, column, base
        else:
            base += container
    return len(containers), pos, column, base


def _after_quote(line: str, pos: int, column: int) -> tuple[int, int]:
    """Where a block quote's content starts after its `>` at `pos`, and its column. The
    one space it takes may be the first column of a tab: the rest of that tab is still
    to read (`pos` stays on it)."""
    pos, column = pos + 1, column + 1
    if line.startswith(" ", pos) or (line.startswith("\t", pos) and column % 4 == 3):
        return pos + 1, column + 1
    if line.startswith("\t", pos):
        return pos, column + 1
    return pos, column


# -- code spans ---------------------------------------------------------------------------


class _Run(NamedTuple):
    start: int
    end: int
    escaped: bool  # a backslash before it makes its first backtick text

    @property
    def opens(self) -> int:
        """How long a code span it opens (0: none)."""
        return self.end - self.start - self.escaped


class _Spans:
    """The code spans of the current paragraph, read as it comes: the first backtick run
    that may open one waits for a run of its length, or for the paragraph's end."""

    __slots__ = ("_code", "_runs")

    def __init__(self, code: list[Hidden]) -> None:
        self._code = code
        self._runs: list[_Run] = []  # from the first run that may open a span, none closed

    def pending_from(self, default: int) -> int:
        """Where the undecided text begins: the first open run, else `default`."""
        return self._runs[0].start if self._runs else default

    def feed(self, text: str, start: int) -> None:
        for run in _runs(text, start):
            runs = self._runs
            if runs and run.end - run.start == runs[0].opens:
                self._code.append(Hidden(runs[0].end - runs[0].opens, run.end))
                runs.clear()
            elif runs or run.opens:
                runs.append(run)

    def end(self) -> None:
        """The paragraph ended: the first open run is text, and so is every run after it
        that none of its length follows."""
        runs, self._runs = self._runs[1:], []
        closing: list[int | None] = [None] * len(runs)  # the next run as long as it opens
        last: dict[int, int] = {}
        for at in range(len(runs) - 1, -1, -1):
            closing[at] = last.get(runs[at].opens)
            last[runs[at].end - runs[at].start] = at
        at = 0
        while at < len(runs):
            close = closing[at]
            if close is None or not runs[at].opens:
                at += 1
            else:
                self._code.append(Hidden(runs[at].end - runs[at].opens, runs[close].end))
                at = close + 1


def _runs(text: str, start: int) -> Iterator[_Run]:
    for match in _BACKTICKS.finditer(text):
        slashes = 0
        while match.start() - slashes > 0 and text[match.start() - slashes - 1] == "\\":
            slashes += 1
        yield _Run(start + match.start(), start + match.end(), slashes % 2 == 1)
