"""`ReadAhead`: a run's answers read as they stream, so the sources they name can be
looked up while the model writes the rest (`CitationRun.ahead`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..markers.style import LONGEST
from ..run import CitationRun
from .prose import Prose

__all__ = ["AnswerReader", "Parts", "ReadAhead"]

#: How much of an answer's last word is kept to read with its next delta: longer than
#: any marker or ref (a longer word cannot be one).
_CARRY = 1024


class Parts(Protocol):
    """Where an answer's text deltas are appended on the fast path (`Citing.delta_path`)."""

    def append(self, delta: str, /) -> None: ...


class ReadAhead:
    """One run's answers read as they stream: each stretch that ends at a space outside a
    marker (`[1, 2]` holds one), less its code (`Prose`), goes to the run's look-ahead if
    it may name a source. `settle` hands the run the deltas appended on the fast path (an
    answer that began before the look-ahead is read from its start)."""

    __slots__ = (
        "_carry",
        "_openers",
        "_pairs",
        "_prose",
        "_readers",
        "_run",
        "_settle",
        "_starts",
    )

    def __init__(self, run: CitationRun, settle: Callable[[], None]) -> None:
        self._run = run
        self._settle = settle
        styles = run.marker_styles
        #: What may start a source's mention (a marker of any style, or a ref's `#`), and
        #: the opener and closer of each style's markers.
        self._openers = "".join(dict.fromkeys(style.opener for style in styles))
        self._starts = (*self._openers, "#")
        self._pairs = tuple(dict.fromkeys((style.opener, style.closer) for style in styles))
        self._carry: dict[str, str] = {}  # message id -> its text since its last space
        self._prose: dict[str, Prose] = {}  # message id -> its text read as it streams
        self._readers: dict[str, AnswerReader] = {}  # message id -> its deltas not read yet

    def reader(self, message_id: str, parts: list[str]) -> AnswerReader:
        """The reader of `message_id`'s deltas, which appends them to `parts`."""
        reader = self._readers.get(message_id)
        if reader is None:
            reader = self._readers[message_id] = AnswerReader(self, message_id, parts)
        return reader

    def may_name(self, text: str) -> bool:
        """Whether `text` may hold (the start of) a marker or a versioned ref."""
        return any(start in text for start in self._starts)

    def read(self, message_id: str, delta: str) -> None:
        """Hand the run each stretch of an answer that ends at a space outside a marker."""
        prose = self._prose.get(message_id)
        if prose is None:  # read from the answer's start, if it began before the look-ahead
            prose = self._prose[message_id] = Prose(self._openers)
            self._settle()
            delta = self._run.messages.text(message_id)
        delta = prose.feed(delta)
        window = self._carry.get(message_id, "") + delta
        space = max(window.rfind(" "), window.rfind("\n"))
        if space < 0:
            self._carry[message_id] = window[-_CARRY:]
            return
        cut = self._open_marker(window, space)
        self._carry[message_id] = window[cut:][-_CARRY:]
        head = window[:cut]
        if self.may_name(head):  # a marker, or a versioned ref
            self._run.ahead.mentioned(head)

    def ends_in_marker(self, text: str) -> bool:
        """Whether `text` ends in a marker not closed yet (opened in its last `LONGEST`
        characters)."""
        start = max(0, len(text) - LONGEST)
        for opener, closer in self._pairs:
            at = text.rfind(opener, start)
            if at != -1 and text.find(closer, at) == -1:
                return True
        return False

    def _open_marker(self, window: str, space: int) -> int:
        """Where the marker open at `space` starts (at most `LONGEST` characters before
        it, not closed before it), else `space`."""
        cut = space
        for opener, closer in self._pairs:
            at = window.rfind(opener, max(0, space - LONGEST), space)
            if at != -1 and window.find(closer, at, space) == -1:
                cut = min(cut, at)
        return cut

    def closed(self, message_id: str, *, ahead: bool) -> None:
        """The message ended: what is left of it is read (handed on if `ahead`)."""
        reader = self._readers.pop(message_id, None)
        if reader is not None:
            reader.read()
        carry = self._carry.pop(message_id, "")
        prose = self._prose.pop(message_id, None)
        if prose is not None:
            carry += prose.close()
        if ahead and self.may_name(carry):
            self._run.ahead.mentioned(carry)


class AnswerReader:
    """An answer's text parts while it is read as it streams: each delta is appended to
    the message, and handed to the look-ahead (`ReadAhead.read`) with those before it
    only once it may name a source (it holds a marker's opener or `#`), then with each
    next one until one holds a space outside a marker (the look-ahead hands on text up to
    such a space). Most deltas cost an append; the answer is still read once, in order."""

    __slots__ = ("_ahead", "_hot", "_message_id", "_parts", "_pending", "_tail")

    def __init__(self, ahead: ReadAhead, message_id: str, parts: list[str]) -> None:
        self._ahead = ahead
        self._message_id = message_id
        self._parts = parts
        self._pending: list[str] = []  # deltas appended and not yet read ahead
        self._hot = False  # a delta that may name a source is read; its word is not ended
        self._tail = ""  # the end of the text read, as long as a marker may be

    def append(self, delta: str, /) -> None:
        self._parts.append(delta)
        self.take(delta)

    def take(self, delta: str) -> None:
        """A delta appended to the message's text (by `append`, or by the run)."""
        self._pending.append(delta)
        if self._hot or self._ahead.may_name(delta):
            self.read()
            ended = " " in delta or "\n" in delta
            self._hot = not ended or self._ahead.ends_in_marker(self._tail)

    def read(self) -> None:
        """Hand the look-ahead every delta not read yet."""
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._tail = (self._tail + text)[-LONGEST:]
            self._ahead.read(self._message_id, text)
