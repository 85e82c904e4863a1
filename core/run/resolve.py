"""Resolution: the entries an answer cites, in order of first mention, and their records.

An answer's markers name only what its model had been shown when it began: the thread's
entries and the results that had arrived by then (its `cut`, `MarkerTable`); text of a
message reopened later, what had arrived when it reopened. A versioned ref names its node
by itself: it is cited if the Reader returned the node in this run."""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from ..records.entry import Entry
from ..records.event import Citation
from ..records.references import Mention, find_markers
from .checks import Checks, Found
from .hooks import Hooks, as_marker
from .intake import Intake
from .ledger import Ledger, Seen
from .lookups import Lookups
from .markers import MarkerTable

__all__ = ["Resolver"]

logger = logging.getLogger("moca_agui")


class Resolver:
    """Resolves one answer's text against everything the run's model was shown."""

    __slots__ = ("_checks", "_hooks", "_intake", "_ledger", "_lookups", "_tables_at")

    def __init__(
        self, hooks: Hooks, ledger: Ledger, checks: Checks, lookups: Lookups, intake: Intake
    ) -> None:
        self._hooks = hooks
        self._ledger = ledger
        self._checks = checks
        self._lookups = lookups
        self._intake = intake
        #: the ledger version the tables are of, its entries by node, its marker table
        #: by the answers' cut (what the answers had been shown)
        self._tables_at: tuple[int, _Nodes, dict[int | None, MarkerTable]] | None = None

    def prefetch(self, text: str) -> None:
        """Start the lookups `text` (a part of an answer still streaming) will need: for
        each source it names that only `lookup` can give a record. Returns at once."""
        first, nodes = self._mentioned(text)
        self._lookups.start(self._to_look_up((seen for seen, _ in first.values()), nodes))

    async def citations(
        self, text: str, stretches: Sequence[tuple[int, int]] = ()
    ) -> list[Citation]:
        """The citations of `text`, an answer whose `stretches` each began (at its offset)
        when so many results had arrived (none: after all of them): one per node and span
        it names, in order of first mention, each with the record the run holds for it
        (left out if it has none)."""
        first, nodes = self._mentioned(text, stretches, report=True)
        await self._lookups.look_up(self._to_look_up((s for s, _ in first.values()), nodes))
        citations: list[Citation] = []
        by_key: dict[tuple[str, tuple[int, int] | None], Citation] = {}
        for seen, marker in first.values():
            found = self._record_of(seen, nodes)
            if found is None:
                continue
            record, captured_at, span = found
            key = (seen.entry.ref, span)  # one entry per node and span in the event
            citation = by_key.get(key)
            if citation is None:
                by_key[key] = citation = Citation(record, marker, captured_at)
                citations.append(citation)
            elif citation.marker is None and marker:
                citation.marker = marker
        return citations

    def _mentioned(
        self, text: str, stretches: Sequence[tuple[int, int]] = (), *, report: bool = False
    ) -> tuple[dict[Entry, tuple[Seen, str | None]], _Nodes]:
        """The entries `text` names, in order of first mention, each with what the run
        holds of it and its marker (None: named by ref), and the run's entries by node; a
        marker in a stretch of `stretches` names an entry only if its table holds it.
        `report`: log each marker left out because its source depends on an order no one
        knows (a plugin finding references is given only the markers whose source is
        known)."""
        table, nodes = self._tables(stretches[-1][1] if stretches else None)
        #: where each stretch but the first begins, and the tables of all but the last
        starts = [start for start, _ in stretches[1:]]
        earlier = [self._tables(cut)[0] for _, cut in stretches[:-1]]
        first: dict[Entry, tuple[Seen, str | None]] = {}  # in order of first mention
        if report and table.order_unknown:
            logger.warning(
                "moca_agui: left out the default markers of an answer that began while a "
                "Reader call issued before it had no result: which sources its model had "
                "counted is not known"
            )
        if report:
            for marker in dict.fromkeys(
                m.marker for m in find_markers(text, table.unsure, self._hooks.marker_styles)
            ):
                logger.warning(
                    "moca_agui: left out the marker %s: %s, so which source the model "
                    "numbered so is not known; numbered tools (moca_agui.numbered) show the "
                    "model each source's marker",
                    marker,
                    self._ledger.unknown_order(),
                )
        for mention in self._hooks.find_references(text, nodes.refs, table.known):
            if mention.ref not in nodes.refs:
                logger.debug("moca_agui: left out %.200r: not returned in this run", mention.ref)
                continue
            marker, key, entry = _marked(mention, table)
            stretch = bisect_right(starts, mention.start)
            if (
                entry is not None
                and stretch < len(earlier)
                and earlier[stretch].entry(key or "") != entry
            ):
                continue  # written before its source arrived: it names none
            seen = self._seen(mention.ref, entry, nodes)
            entry = seen.entry
            had = first.get(entry)
            if had is None or (had[1] is None and marker):
                first[entry] = (seen, marker)
        return first, nodes

    def _tables(self, cut: int | None) -> tuple[MarkerTable, _Nodes]:
        """The marker table of an answer begun when `cut` results had arrived and the
        entries by node, made once for each state of the ledger (a result arriving changes
        it) and cut, not once for each part of an answer."""
        ledger = self._ledger
        version = ledger.version  # read first: a later change makes them anew
        if cut is not None and cut >= ledger.arrived:
            cut = None  # every result had arrived: the whole run's table
        tables = self._tables_at
        if tables is None or tables[0] != version:
            tables = self._tables_at = (version, _Nodes(ledger, self._checks.record), {})
        table = tables[2].get(cut)
        if table is None:
            table = tables[2][cut] = MarkerTable(ledger, self._hooks, cut)
        return table, tables[1]

    def _seen(self, ref: str, entry: Entry | None, nodes: _Nodes) -> Seen:
        """What the run holds of the entry a mention of node `ref` names: `entry` (its
        marker's) if the run holds it and it is of that node, else the entry `ref` names."""
        seen = self._ledger.seen(entry) if entry is not None else None
        if seen is None or entry is None or entry.ref != ref:
            return nodes.named(ref)
        return seen

    def _to_look_up(self, named: Iterable[Seen], nodes: _Nodes) -> list[str]:
        """The nodes of the `named` entries only `lookup` can give a record of: named by a
        compact result or in an earlier turn, with no record of this run."""
        return [
            s.entry.ref
            for s in named
            if (s.compact or s.earlier)
            and self._checks.record(s) is None
            and nodes.whole(s.entry.ref) is None
        ]

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


def _marked(mention: Mention, table: MarkerTable) -> tuple[str | None, str | None, Entry | None]:
    """A mention's marker as written (None: named by ref), the marker of the table it
    names (`[1]` for `[1, 2]`) and that marker's entry in `table`."""
    marker = as_marker(mention.marker)
    key = marker if mention.key is None else as_marker(mention.key) or marker
    return marker, key, table.entry(key) if key is not None else None


class _Nodes:
    """The entries of one run by node, for one state of its ledger: which entry a
    versioned ref cites and which record stands in for an entry without one, worked out
    (and the records checked) only for the nodes the answer names, once each."""

    __slots__ = ("_first", "_ledger", "_named", "_record", "refs")

    def __init__(self, ledger: Ledger, record: Callable[[Seen], Found | None]) -> None:
        self._ledger = ledger
        #: Every node ref the run returned, in the model's order.
        self.refs = ledger.refs
        self._record = record
        self._named: dict[str, Seen] = {}
        self._first: dict[str, Found | None] = {}

    def named(self, ref: str) -> Seen:
        """The entry a versioned ref cites: the node's first entry with a whole-node
        record (no span), else its first entry."""
        named = self._named.get(ref)
        if named is None:
            entries = self._ledger.of_node(ref) or []
            named = next((s for s in entries if self._is_whole(s)), entries[0])
            self._named[ref] = named
        return named

    def whole(self, ref: str) -> Found | None:
        """The node's whole-node record, if the run has a valid one."""
        named = self.named(ref)
        return self._record(named) if self._is_whole(named) else None

    def first_record(self, ref: str) -> Found | None:
        """The node's first valid record, in the model's order, of any span."""
        if ref not in self._first:
            entries = self._ledger.of_node(ref) or []
            self._first[ref] = next(filter(None, map(self._record, entries)), None)
        return self._first[ref]

    def _is_whole(self, seen: Seen) -> bool:
        return seen.entry.span is None and self._record(seen) is not None
