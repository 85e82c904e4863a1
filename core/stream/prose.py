"""`Prose`: an answer's text as it streams, less its code, as soon as that is known."""

from __future__ import annotations

from ..records.code import CodeScanner

__all__ = ["Prose"]

#: How long a line may grow before it is known whether it is paragraph text (its first
#: word whole): longer, it is read when it ends.
_UNDECIDED = 128


class Prose:
    """Feed it an answer's deltas in order; each call returns the text now known to be
    shown as text; code (and link reference definitions) only as far as it may hold refs,
    which count wherever they stand.
    A fence split over deltas, or a code span whose closing backticks are still to come,
    is held back until it is decided. Linear in the answer."""

    __slots__ = (
        "_held",
        "_held_from",
        "_held_to",
        "_hidden",
        "_line",
        "_line_length",
        "_line_start",
        "_not_markup",
        "_read",
        "_scanner",
    )

    def __init__(self, openers: str) -> None:
        """`openers`: the characters a marker may start with (none is handed on in code)."""
        #: Markers' openers, backticks and tildes: code handed on holds no marker and opens
        #: no code.
        self._not_markup = str.maketrans(dict.fromkeys(f"{openers}`~", " "))
        self._scanner = CodeScanner()
        self._hidden = 0  # how many of the scanner's hidden ranges were handed past
        self._held: list[str] = []  # the answer from `_held_from` to `_held_to`, not returned
        self._held_from = self._held_to = 0
        self._line: list[str] = []  # the current line from `_read` on (from its start: None)
        self._line_start = self._line_length = 0
        self._read: int | None = None  # where reading the current line as text got to

    def feed(self, delta: str) -> str:
        """The text `delta` decides, from what the last call returned on."""
        self._held.append(delta)
        self._held_to += len(delta)
        *whole, rest = delta.split("\n")
        for part in whole:
            self._line.append(part)
            self._line_ended()
        if rest:
            self._line.append(rest)
            self._line_length += len(rest)
            if " " in rest or "\t" in rest:
                self._partial(rest)
        return self._decided()

    def close(self) -> str:
        """The answer ended: the rest of its text."""
        self._line_ended()
        self._scanner.end()
        return self._decided()

    def _line_ended(self) -> None:
        unread = "".join(self._line)
        if self._read is None:
            self._scanner.line(unread, self._line_start)
            self._line_start += len(unread) + 1
        else:
            self._scanner.inline(unread, self._read)
            self._line_start = self._read + len(unread) + 1
            self._scanner.line_read(self._line_start)
        self._line, self._line_length, self._read = [], 0, None

    def _partial(self, rest: str) -> None:
        """Read the current line up to its last space (with it), once it is known to be text."""
        if self._read is None:
            if self._line_length > _UNDECIDED:
                return
            line = "".join(self._line)
            begins = self._scanner.begin_prose(line, self._line_start)
            if begins is None:
                self._line = [line]
                return
            self._read = self._line_start + begins
            self._line = [line[begins:]]
        unread = "".join(self._line)
        cut = max(unread.rfind(" "), unread.rfind("\t")) + 1  # after the space
        if cut:
            self._scanner.inline(unread[:cut], self._read)
            self._read += cut
            unread = unread[cut:]
        self._line = [unread]

    def _decided(self) -> str:
        settled = min(self._scanner.settled, self._held_to)
        if settled <= self._held_from:
            return ""
        held, base = "".join(self._held), self._held_from
        hidden = self._scanner.hidden
        pieces, at = [], base
        while self._hidden < len(hidden) and hidden[self._hidden].start < settled:
            start, end = hidden[self._hidden]
            if start > at:
                pieces.append(held[at - base : start - base])
            code = held[max(at, start) - base : end - base]
            pieces.append(_as_refs(code, self._not_markup))
            at = max(at, end)
            self._hidden += 1
        if settled > at:
            pieces.append(held[at - base : settled - base])
        self._held_from = max(at, settled)
        self._held = [held[self._held_from - base :]]
        return "".join(pieces)


def _as_refs(code: str, not_markup: dict[int, str]) -> str:
    """`code` on a line of its own, as far as a ref in it can be found: no marker, no
    indentation, nothing that opens code (`not_markup` blanks them: a ref has no bracket
    or backtick)."""
    return "\n" + " ".join(code.translate(not_markup).split()) + "\n"
