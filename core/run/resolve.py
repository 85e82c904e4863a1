"""Resolution: the entries an answer cites, in order of first mention, and their records."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from ..records.entry import Entry
from ..records.event import Citation
from ..records.references import find_markers
from .checks import Checks, Found
from .hooks import Hooks, as_marker
from .intake import Intake
from .ledger import Ledger, Seen
from .lookups import Lookups

__all__ = ["Resolver"]

logger = logging.getLogger("moca_agui")


class Resolver:
    """Resolves one answer's text against everything the run's model was shown."""

    __slots__ = ("_checks", "_hooks", "_intake", "_ledger", "_lookups")

    def __init__(
        self, hooks: Hooks, ledger: Ledger, checks: Checks, lookups: Lookups, intake: Intake
    ) -> None:
        self._hooks = hooks
        self._ledger = ledger
        self._checks = checks
        self._lookups = lookups
        self._intake = intake

    def prefetch(self, text: str) -> None:
        """Start the lookups `text` (a part of an answer still streaming) will need: for
        each source it names that only `lookup` can give a record. Returns at once."""
        first, by_entry, nodes = self._mentioned(text)
        self._lookups.start(self._to_look_up([by_entry[entry] for entry in first], nodes))

    async def citations(self, text: str) -> list[Citation]:
        """The citations of `text`: one per node and span it names, in order of first
        mention, each with the record the run holds for it (left out if it has none)."""
        first, by_entry, nodes = self._mentioned(text, report=True)
        await self._lookups.look_up(self._to_look_up([by_entry[entry] for entry in first], nodes))
        citations: list[Citation] = []
        by_key: dict[tuple[str, tuple[int, int] | None], Citation] = {}
        for entry, marker in first.items():
            found = self._record_of(by_entry[entry], nodes)
            if found is None:
                continue
            record, captured_at, span = found
            key = (entry.ref, span)  # one entry per node and span in the event
            citation = by_key.get(key)
            if citation is None:
                by_key[key] = citation = Citation(record, marker, captured_at)
                citations.append(citation)
            elif citation.marker is None and marker:
                citation.marker = marker
        return citations

    def _mentioned(
        self, text: str, *, report: bool = False
    ) -> tuple[dict[Entry, str | None], dict[Entry, Seen], _Nodes]:
        """The entries `text` names, in order of first mention, each with its marker (None:
        named by ref), and the run's entries by entry and by node. `report`: log each
        marker left out because its source depends on an order no one knows (a plugin
        finding references is given only the markers whose source is known)."""
        seen = self._ledger.entries()
        by_entry = {s.entry: s for s in seen}
        nodes = _Nodes(seen, self._checks.record)
        table, unsure = self._marker_table(seen, by_entry)
        markers = {marker: entry.ref for marker, entry in table.items()}
        first: dict[Entry, str | None] = {}  # entry -> marker, in order of first mention
        if report:
            for marker in dict.fromkeys(mention.marker for mention in find_markers(text, unsure)):
                logger.warning(
                    "moca_agui: left out the marker %s: the service sends parallel Reader "
                    "calls in an order of its own, so which source the model numbered so is "
                    "not known; numbered tools (moca_agui.numbered) show the model each "
                    "source's marker",
                    marker,
                )
        for mention in self._hooks.find_references(text, nodes.refs, markers):
            if mention.ref not in nodes.refs:
                logger.debug("moca_agui: left out %.200r: not returned in this run", mention.ref)
                continue
            marker = as_marker(mention.marker)
            entry = table.get(marker) if marker is not None else None
            if entry is None or entry.ref != mention.ref:
                entry = nodes.named(mention.ref).entry
            if entry not in first or (first[entry] is None and marker):
                first[entry] = marker
        return first, by_entry, nodes

    def _to_look_up(self, cited: list[Seen], nodes: _Nodes) -> list[str]:
        """The nodes of `cited` only `lookup` can give a record of: named by a compact
        result or in an earlier turn, with no record of this run."""
        return [
            s.entry.ref
            for s in cited
            if (s.compact or s.earlier)
            and self._checks.record(s) is None
            and nodes.whole(s.entry.ref) is None
        ]

    def _marker_table(
        self, seen: list[Seen], by_entry: Mapping[Entry, Seen]
    ) -> tuple[dict[str, Entry], dict[str, str]]:
        """marker -> entry: the shown numbers, the default numbering, or a plugin's table;
        a marker naming an entry the run does not hold names nothing. Apart (marker ->
        ref): the markers whose entry may have had another place in the model's order
        (`Ledger.unsure`), unless the model was shown that marker beside it. A thread not
        read whole: no marker names a known source (logged once, when it was found so)."""
        if not self._ledger.thread_read:
            return {}, {}
        shown = self._ledger.shown()
        if not shown and not self._ledger.counted:  # the default numbers are not known
            return {}, {}
        table = self._hooks.marker_table([s.entry for s in seen], shown)
        unsettled = self._ledger.unsure()
        known: dict[str, Entry] = {}
        unsure: dict[str, str] = {}
        for marker, entry in table.items():
            if not isinstance(entry, Entry) or entry not in by_entry:
                continue
            if entry in unsettled and shown.get(entry) != marker:
                unsure[marker] = entry.ref
            else:
                known[marker] = entry
        return known, unsure

    def _record_of(self, seen: Seen, nodes: _Nodes) -> Found | None:
        """The record an entry cites, when it was captured and its span, or None (left out).

        Its own record; else the node's whole-node record; for a compact result or an
        entry of an earlier turn, else what `lookup` found, else the node's first record
        in the model's order. Every record is one this run's Reader gave.
        """
        own = self._checks.record(seen)
        if own is not None:
            return own
        ref = seen.entry.ref
        whole = nodes.whole(ref)
        if whole is not None:
            return whole
        if not seen.compact and not seen.earlier:
            return None  # an invalid record: only the whole node can stand for it
        looked_up = self._lookups.found(ref)
        if looked_up is not None:
            return looked_up
        first = nodes.first_record(ref)
        if first is not None:
            return first
        if seen.earlier and ref not in self._intake.compact_tools:
            self._lookups.left_out_earlier(ref)
        else:
            self._lookups.left_out(ref, self._intake.compact_tools.get(ref, "the Reader tool"))
        return None


class _Nodes:
    """The entries of one run by node, for one answer: which entry a versioned ref cites
    and which record stands in for an entry without one, worked out (and the records
    checked) only for the nodes the answer names."""

    __slots__ = ("_by_ref", "_named", "_record", "refs")

    def __init__(self, seen: list[Seen], record: Callable[[Seen], Found | None]) -> None:
        self._by_ref: dict[str, list[Seen]] = {}
        for s in seen:
            self._by_ref.setdefault(s.entry.ref, []).append(s)
        #: Every node ref the run returned, in the model's order.
        self.refs = self._by_ref.keys()
        self._record = record
        self._named: dict[str, Seen] = {}

    def named(self, ref: str) -> Seen:
        """The entry a versioned ref cites: the node's first entry with a whole-node
        record (no span), else its first entry."""
        named = self._named.get(ref)
        if named is None:
            entries = self._by_ref[ref]
            named = next((s for s in entries if self._is_whole(s)), entries[0])
            self._named[ref] = named
        return named

    def whole(self, ref: str) -> Found | None:
        """The node's whole-node record, if the run has a valid one."""
        named = self.named(ref)
        return self._record(named) if self._is_whole(named) else None

    def first_record(self, ref: str) -> Found | None:
        """The node's first valid record, in the model's order, of any span."""
        return next(filter(None, map(self._record, self._by_ref[ref])), None)

    def _is_whole(self, seen: Seen) -> bool:
        return seen.entry.span is None and self._record(seen) is not None
