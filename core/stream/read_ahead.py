"""`ReadAhead`: a run's answers read as they stream, so the sources they name can be
looked up while the model writes the rest (`CitationRun.ahead`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..markers.style import LONGEST
from ..run import CitationRun
from .prose import Prose

__all__ = ["AnswerReader", "ReadAhead"]

#: How much of an answer's last word is kept to read with its next delta: longer than
#: any marker or ref (a longer word cannot be one).
_CARRY = 1024

#: What says whether a delta must be read ahead now: a compiled pattern's `search`, one
#: call in C for each delta appended on the fast path.
Watch = Callable[[str], object]


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
        "cold",
        "hot",
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
        #: The watch of an answer whose text read so far ends in no open word: a delta
        #: that may name a source; and of one whose last word may be a marker or a ref
        #: still being written: that, or a delta that may end the word.
        self.cold: Watch = re.compile(f"[{re.escape(''.join(self._starts))}]").search
        self.hot: Watch = re.compile(f"[{re.escape(''.join(self._starts))} \n]").search
        self._carry: dict[str, str] = {}  # message id -> its text since its last space
        self._prose: dict[str, Prose] = {}  # message id -> its text read as it streams
        self._readers: dict[str, AnswerReader] = {}  # message id -> its deltas not read yet

    def reader(self, message_id: str, parts: list[str]) -> AnswerReader:
        """The reader of `message_id`'s deltas, those appended to `parts` included."""
        reader = self._readers.get(message_id)
        if reader is None:
            reader = self._readers[message_id] = AnswerReader(self, message_id, parts)
        return reader

    def may_name(self, text: str) -> bool:
        """Whether `text` may hold (the start of) a marker or a versioned ref."""
        return self.cold(text) is not None

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

    def in_word(self, text: str) -> bool:
        """Whether the last word of `text` (from its last space outside a marker) may name
        a source: the space that ends it must be read as soon as it comes."""
        space = max(text.rfind(" "), text.rfind("\n"))
        return self.may_name(text[self._open_marker(text, space) :] if space >= 0 else text)

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
    """An answer's deltas while it is read as it streams. The stream engine appends most
    of them to `parts` (its list of the message's deltas not yet the run's), unread, and
    calls `read` only for one its `watch` matches: one that may name a source (it holds a
    marker's opener or `#`), or, while the last word read may be a marker still being
    written, one that may end that word (a space). `read` hands the look-ahead
    (`ReadAhead.read`) every delta not read yet, in order. Most deltas cost an append and
    one call in C; the answer is still read once, in order."""

    __slots__ = ("_ahead", "_message_id", "_parts", "_read_to", "_tail", "_unread", "watch")

    def __init__(self, ahead: ReadAhead, message_id: str, parts: list[str]) -> None:
        self._ahead = ahead
        self._message_id = message_id
        self._parts = parts
        self._read_to = 0  # how many of `parts` were read (or moved to `_unread`)
        self._unread: list[str] = []  # deltas not read yet, no longer in `parts`
        self._tail = ""  # the end of the text read, as long as a marker may be
        #: Which delta appended to `parts` must be read now (`read`).
        self.watch = ahead.cold

    def take(self, delta: str) -> None:
        """A delta added to the message's text by the run, not appended to `parts`."""
        self._unread.append(delta)
        if self.watch(delta) is not None:
            self.read()

    def settled(self) -> None:
        """`parts` is about to be emptied (handed to the run): keep what was not read."""
        parts = self._parts
        if self._read_to < len(parts):
            self._unread += parts[self._read_to :]
        self._read_to = 0

    def read(self) -> None:
        """Hand the look-ahead every delta not read yet."""
        parts = self._parts
        unread = self._unread
        if self._read_to < len(parts):
            unread += parts[self._read_to :]
            self._read_to = len(parts)  # before reading: the read may settle `parts`
        if unread:
            text = "".join(unread)
            unread.clear()
            self._tail = (self._tail + text)[-LONGEST:]
            ahead = self._ahead
            ahead.read(self._message_id, text)
            self.watch = ahead.hot if ahead.in_word(self._tail) else ahead.cold
