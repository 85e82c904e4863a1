"""The text of a run's assistant messages, and which of them are cited."""

from __future__ import annotations

__all__ = ["Messages"]


class Messages:
    """Each message's text as it streams in, in the order the messages began."""

    __slots__ = ("_cuts", "_muted", "_sent", "_texts")

    def __init__(self) -> None:
        self._texts: dict[str, list[str]] = {}  # message id -> text parts
        #: message id -> where each stretch of its text begins and how many Reader results
        #: had arrived when it (re)opened there
        self._cuts: dict[str, list[tuple[int, int]]] = {}
        self._muted: set[str] = set()  # messages not to cite: other roles, cited upstream
        self._sent: set[str] = set()  # messages whose event was made

    def parts(self, message_id: str) -> list[str]:
        """The list of a message's text parts: appending a str to it adds text."""
        parts = self._texts.get(message_id)
        if parts is None:
            parts = self._texts[message_id] = []
        return parts

    def began(self, message_id: str, cut: int) -> None:
        """The message (re)opened when `cut` Reader results had arrived: its text from here
        on was written with those shown (what arrives while it streams, it was not)."""
        stretches = self._cuts.get(message_id)
        if stretches is None:
            self._cuts[message_id] = [(0, cut)]
        elif stretches[-1][1] != cut:
            stretches.append((len(self.text(message_id)), cut))

    def cuts(self, message_id: str) -> list[tuple[int, int]]:
        """Where each stretch of the message's text begins and how many Reader results had
        arrived when it did, in order (empty: not known)."""
        return self._cuts.get(message_id, [])

    def text(self, message_id: str) -> str:
        """The whole text of a message so far (its parts are joined once, in place)."""
        parts = self._texts.get(message_id)
        if not parts:
            return ""
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0]

    def with_text(self) -> list[str]:
        """Ids of the messages that have text, in the order they began."""
        return [mid for mid in self._texts if self.text(mid).strip()]

    def mute(self, message_id: str) -> None:
        self._muted.add(message_id)

    def rename(self, old: str, new: str) -> None:
        """The message `old` is now `new` (a snapshot renamed it): its text, its place
        and whether it is muted or cited go with it. `new` must hold no text."""
        self._texts = {new if mid == old else mid: parts for mid, parts in self._texts.items()}
        if old in self._cuts:
            self._cuts[new] = self._cuts.pop(old)
        for ids in (self._muted, self._sent):
            if old in ids:
                ids.discard(old)
                ids.add(new)

    def citable(self) -> list[str]:
        """The messages with text that are cited (their event made or not), in order."""
        return [mid for mid in self.with_text() if mid not in self._muted]

    def to_cite(self) -> list[str]:
        """The messages with text to cite now, each once: not muted, not cited before."""
        due = [mid for mid in self.with_text() if mid not in self._muted and mid not in self._sent]
        self._sent.update(due)
        return due
