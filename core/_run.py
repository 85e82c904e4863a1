"""The state of one agent run: what its Reader returned and what its assistant wrote."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import json
import logging
import operator
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import pluggy
from ag_ui.core import CustomEvent

from ._active import ACTIVE_RUN
from ._citations import Citation, citations_event
from ._extract import CompactResult, ReaderItem, ReaderItems
from ._ledger import Entry, Item, Ledger, Seen
from ._options import CitationOptions, Lookup
from ._records import InvalidRecord, WireText, check, private_record
from ._references import Mention
from .plugins import get_plugin_manager

__all__ = ["CitationRun"]

logger = logging.getLogger("moca_agui")

#: A record found for an entry: the record, when it was captured, its span.
Found = tuple[dict[str, Any], datetime, tuple[int, int] | None]
_START = operator.attrgetter("start")


def _as_marker(marker: object) -> str | None:
    """A plugin's marker if it is text; else None, logged (a marker is a non-empty string)."""
    if marker is None or (isinstance(marker, str) and marker):
        return marker
    logger.warning("moca_agui: dropped a marker that is not text: %.80r", marker)
    return None


def _entry_of(item: object) -> Entry | None:
    """The entry a record-shaped value names: its `node.ref` (if a non-empty string) and
    its span (if of two integers: JSON's 7.0 is 7, as the record schema reads it); None
    if it names no node."""
    if not isinstance(item, dict):
        return None
    node = item.get("node")
    ref = node.get("ref") if isinstance(node, dict) else None
    if not isinstance(ref, str) or not ref:
        return None
    span = item.get("span")
    if isinstance(span, dict):
        start, end = span.get("start"), span.get("end")
        if type(start) is int and type(end) is int:
            return Entry(ref, (start, end))
        start, end = _whole(start), _whole(end)
        if start is not None and end is not None:
            return Entry(ref, (start, end))
    return Entry(ref)


def _whole(offset: object) -> int | None:
    """A span offset as an int, if it is an integer (7 or 7.0); else None."""
    if type(offset) is int:
        return offset
    if type(offset) is float and offset.is_integer():
        return int(offset)
    return None


class CitationRun:
    """What one run's Reader returned, the text of its assistant messages, and its events.

    Create one per run (never share one between runs): adapters feed it Reader results
    (`capture`) and message text (`add_text`), then ask for each message's event
    (`event_for`). Nothing here raises into the agent's run: failures are logged and
    the citation is left out.
    """

    def __init__(
        self, options: CitationOptions | None = None, plugins: pluggy.PluginManager | None = None
    ) -> None:
        self.options = options or CitationOptions()
        self._hook = (plugins or get_plugin_manager()).hook
        self._ledger = Ledger()  # every entry the model was shown, in the order it saw them
        self._texts: dict[str, list[str]] = {}  # message id -> text parts
        self._reader_tools: dict[str, bool] = {}
        self._compact_tools: dict[str, str] = {}  # ref -> the tool whose compact result named it
        self._warned_compact: set[str] = set()  # refs left out as compact results, said once
        #: Whether `cite` reads TOOL_CALL_RESULT content into this run. An adapter that
        #: captures each tool's raw return value sets it to False: the content on the
        #: wire is the same result, serialised or cut down (and may be prose).
        self.reads_tool_call_results = True
        self._looked_up: dict[str, Found | None] = {}  # ref -> answer
        self._muted: set[str] = set()  # messages not to cite: other roles, cited upstream
        self._sent: set[str] = set()  # messages whose event was made
        self._checked: dict[int, dict[str, Any] | None] = {}  # id(candidate) -> its record
        #: id(record) -> the record and the text it was read from, for every record kept:
        #: what bounds its size.
        self._read_from: dict[int, tuple[dict[str, Any], WireText]] = {}

    # -- what the run read -------------------------------------------------------------

    def is_reader_tool(self, tool_name: str) -> bool:
        """Whether results of `tool_name` are Reader results (asked once per name)."""
        known = self._reader_tools.get(tool_name)
        if known is None:
            try:
                answer = self._hook.moca_is_reader_tool(tool_name=tool_name, options=self.options)
            except Exception:
                logger.exception("moca_agui: a plugin failed in moca_is_reader_tool")
                answer = False
            known = self._reader_tools[tool_name] = bool(answer)
        return known

    @staticmethod
    def current() -> CitationRun | None:
        """The run active in this context (`active`), if any: numbered tools number into it."""
        return ACTIVE_RUN.get()

    @contextlib.contextmanager
    def active(self) -> Iterator[CitationRun]:
        """Make this the run numbered tools number into, in this context and the tasks and
        threads started from it, while the block runs. `cite` does it while the stream
        it wraps makes each event; an adapter that runs tools elsewhere does it there."""
        token = ACTIVE_RUN.set(self)
        try:
            yield self
        finally:
            ACTIVE_RUN.reset(token)

    def call_made(self, tool_call_id: str, tool_name: str) -> None:
        """The model issued a call: calls announced in the order it issued them number
        their results in that order, whenever the results arrive."""
        if self.is_reader_tool(tool_name):
            self._ledger.call_made(tool_call_id)

    def capture(self, tool_name: str, result: object, *, tool_call_id: str | None = None) -> None:
        """Take in one tool result; only a Reader tool's result can hold sources.

        `tool_call_id` is the id of the call that returned it, when the framework gives
        it: the result takes that call's place in the order the model issued its calls.
        """
        items = self._items(tool_name, result)
        if items:
            now = datetime.now(UTC)
            entries = [item for item, _ in self._entries(tool_name, items) if item is not None]
            self._ledger.add(tool_call_id, tool_name, entries, now)

    def numbered(self, tool_name: str, result: object) -> object:
        """What the model reads of a Reader result: each source beside its run-wide
        marker, as JSON text (`{"results": [{"marker": "[1]", "result": ...}, ...]}`).

        The result is captured as it is, its entries numbered now, in the order results
        are produced, and those numbers are the run's marker table. A result with no
        source (an error, concepts) or of a tool that is not a Reader comes back as is.
        """
        items = self._items(tool_name, result)
        if not items:
            return result
        pairs = self._entries(tool_name, items)
        kept = [item for item, _ in pairs if item is not None]
        markers = iter(self._ledger.show([entry for entry, _, _ in kept]))
        view = [
            {"marker": next(markers), "result": shown} if item is not None else {"result": shown}
            for item, shown in pairs
        ]
        text = json.dumps({"results": view}, ensure_ascii=False, default=str)
        # Only what the model can be shown joins the ledger: a marker given to an entry
        # the ledger does not hold names nothing (the marker table keeps held entries).
        self._ledger.add(None, tool_name, kept, datetime.now(UTC))
        return text

    def _items(self, tool_name: str, result: object) -> list[ReaderItem] | None:
        """What a Reader tool's result holds, or None (not a Reader, or unreadable)."""
        if not self.is_reader_tool(tool_name):
            return None
        try:
            items = self._hook.moca_reader_items(
                tool_name=tool_name, result=result, options=self.options
            )
        except ValueError as exc:
            logger.warning("moca_agui: skipped a result of %s: %s", tool_name, exc)
            return None
        except Exception:
            logger.exception("moca_agui: skipped a result of %s: a plugin failed", tool_name)
            return None
        if not items:  # e.g. concepts, an error, or a shape no plugin knows
            logger.debug("moca_agui: no citation record in a result of %s", tool_name)
        return items or []

    def _entries(self, tool_name: str, items: list[ReaderItem]) -> list[tuple[Item | None, object]]:
        """Each item's ledger item (None: it names no node) and what the model reads of it.

        Records are kept unchecked (as private JSON): most are never cited, and each cited
        one is checked when an answer needs it (`_record`). An invalid one keeps its
        number all the same, so [n] names no other.
        """
        pairs: list[tuple[Item | None, object]] = []
        read_from = items.read_from if isinstance(items, ReaderItems) else {}
        for item in items:
            if isinstance(item, CompactResult):
                shown = item.result if item.result is not None else {"ref": item.ref}
                self._compact_tools.setdefault(item.ref, tool_name)
                pairs.append(((Entry(item.ref), None, True), shown))
                continue
            read = read_from.get(id(item))
            try:
                if read is not None and read[0] is item:  # plain JSON no one else holds
                    record: dict[str, Any] | None = item
                    self._read_from[id(item)] = read
                else:
                    record = self._copied(item)
            except InvalidRecord as invalid:
                record = None
                logger.warning(
                    "moca_agui: skipped an invalid record from %s: %s", tool_name, invalid
                )
            entry = _entry_of(item if record is None else record)  # what is sent, if any
            if entry is None:  # no node to number
                if record is not None:
                    self._accept(tool_name, record)  # says why it is not a record
                pairs.append((None, item))
                continue
            pairs.append(((entry, record, False), item))
        return pairs

    def _copied(self, item: dict[str, Any]) -> dict[str, Any]:
        """A private copy of `item`, kept by the run (`InvalidRecord` if it has none)."""
        record, text = private_record(item)
        self._read_from[id(record)] = (record, text)
        return record

    def _record(self, seen: Seen) -> Found | None:
        """An entry's first record, in the model's order, that is valid and of a loaded
        package, when it was captured, and its span (the entry's); None if it has none.
        Each record is checked once a run, and only when an answer needs it."""
        for candidate, captured_at, source in seen.records:
            key = id(candidate)  # the ledger holds every candidate: its id stays its own
            if key not in self._checked:
                self._checked[key] = self._accept(source, candidate)
            record = self._checked[key]
            if record is not None:
                return record, captured_at, seen.entry.span
        return None

    def _accept(self, source: str, record: dict[str, Any]) -> dict[str, Any] | None:
        """`record` (kept by the run) if it is valid and of a loaded package, else
        None (logged)."""
        try:
            check(record)
        except InvalidRecord as exc:
            logger.warning("moca_agui: skipped an invalid record from %s: %s", source, exc)
            return None
        packages = self.options.packages
        if packages is not None and record["package"]["digest"] not in packages:
            logger.warning(
                "moca_agui: skipped a record of package %.200s: its digest %s is not in `packages`",
                record["package"]["id"],
                record["package"]["digest"],
            )
            return None
        return record

    def add_text(self, message_id: str, delta: str) -> None:
        """Append streamed text to an assistant message."""
        if delta.__class__ is not str:
            raise TypeError(f"a text delta must be a str, not {type(delta).__name__}")
        self.text_parts(message_id).append(delta)

    def text_parts(self, message_id: str) -> list[str]:
        """The list of a message's text parts: appending a str to it adds text (`cite`
        keeps it at hand while deltas of one message stream in)."""
        parts = self._texts.get(message_id)
        if parts is None:
            parts = self._texts[message_id] = []
        return parts

    def message_ids(self) -> list[str]:
        """Ids of the assistant messages that have text, in the order they began."""
        return [mid for mid in self._texts if self.text_of(mid).strip()]

    def text_of(self, message_id: str) -> str:
        """The whole text of a message so far (its parts are joined once, in place)."""
        parts = self._texts.get(message_id)
        if not parts:
            return ""
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0]

    def mute(self, message_id: str) -> None:
        """Never cite this message (another role's, or one cited upstream)."""
        self._muted.add(message_id)

    # -- what the answer cites ---------------------------------------------------------

    async def citation_events(self) -> list[CustomEvent]:
        """One `moca.citations` event per assistant message with text, in the order the
        messages began, for each message not muted and not given one before.

        Never raises: a failure is logged and no event is made for the run.
        """
        events: list[CustomEvent] = []
        try:
            for message_id in self.message_ids():
                if message_id in self._muted or message_id in self._sent:
                    continue
                self._sent.add(message_id)
                event = await self.event_for(message_id)
                if event is not None:
                    events.append(event)
        except Exception:
            logger.exception("moca_agui: no citations sent for this run; the answer is unchanged")
            return []
        return events

    async def event_for(self, message_id: str) -> CustomEvent | None:
        """The `moca.citations` event for one message, or None if it has no text or failed."""
        text = self.text_of(message_id)
        if not text.strip():
            return None
        try:
            citations = await self._resolve(message_id, text)
            return citations_event(
                message_id,
                citations,
                include_text=self.options.include_text,
                max_event_bytes=self.options.max_event_bytes,
                records_bytes=self._records_bytes(citations),
            )
        except Exception:
            logger.exception("moca_agui: no citations sent for message %s", message_id)
            return None

    def _records_bytes(self, citations: list[Citation]) -> int | None:
        """At most how many bytes the citations' records take as compact JSON: the sizes of
        the texts they were read from, each once (None: one was not measured)."""
        texts: dict[WireText, int] = {}
        for citation in citations:
            found = self._read_from.get(id(citation.record))
            if found is None or found[0] is not citation.record or found[1].size is None:
                return None
            texts[found[1]] = found[1].size
        return sum(texts.values())

    async def _resolve(self, message_id: str, text: str) -> list[Citation]:
        seen = self._ledger.entries()
        by_entry = {s.entry: s for s in seen}
        nodes = _Nodes(seen, self._record)
        table = self._marker_table(seen, nodes, by_entry)
        markers = {marker: entry.ref for marker, entry in table.items()}
        found: list[Mention] = [
            mention
            for mentions in self._hook.moca_find_references(
                text=text, refs=nodes.refs, markers=markers
            )
            if mentions
            for mention in mentions
        ]
        found.sort(key=_START)
        first: dict[Entry, str | None] = {}  # entry -> marker, in order of first mention
        for mention in found:
            if mention.ref not in nodes.refs:
                logger.debug("moca_agui: left out %.200r: not returned in this run", mention.ref)
                continue
            marker = _as_marker(mention.marker)
            entry = table.get(marker) if marker is not None else None
            if entry is None or entry.ref != mention.ref:
                entry = nodes.named(mention.ref).entry
            if entry not in first or (first[entry] is None and marker):
                first[entry] = marker
        await self._look_up_compacts([by_entry[entry] for entry in first], nodes)
        citations: list[Citation] = []
        by_key: dict[tuple[str, tuple[int, int] | None], Citation] = {}
        for entry, marker in first.items():
            found_record = self._record_of(by_entry[entry], nodes)
            if found_record is None:
                continue
            record, captured_at, span = found_record
            key = (entry.ref, span)  # one entry per node and span in the event
            citation = by_key.get(key)
            if citation is None:
                by_key[key] = citation = Citation(record, marker, captured_at)
                citations.append(citation)
            elif citation.marker is None and marker:
                citation.marker = marker
        return self._modified(message_id, text, citations)

    def _marker_table(
        self, seen: list[Seen], nodes: _Nodes, by_entry: Mapping[Entry, Seen]
    ) -> dict[str, Entry]:
        """marker -> entry: the shown numbers, the default numbering, or a plugin's table
        (whose values may be refs: a ref names the entry a versioned ref cites)."""
        table = self._hook.moca_marker_table(
            refs=list(nodes.refs), entries=[s.entry for s in seen], shown=self._ledger.shown()
        )
        markers: dict[str, Entry] = {}
        for marker, target in (table or {}).items():
            if isinstance(target, Entry) and target in by_entry:
                markers[marker] = target
            elif isinstance(target, str) and target in nodes.refs:
                markers[marker] = nodes.named(target).entry
        return markers

    async def _look_up_compacts(self, cited: list[Seen], nodes: _Nodes) -> None:
        """Look up the nodes cited only through compact results, together: a dead Reader
        costs one timeout, not one per node."""
        pending = {
            s.entry.ref: None
            for s in cited
            if s.compact
            and s.entry.ref not in self._looked_up
            and self._record(s) is None
            and nodes.whole(s.entry.ref) is None
        }
        lookup = self.options.lookup
        if pending and lookup is not None:
            await asyncio.gather(*(self._look_up(lookup, ref) for ref in pending))

    def _record_of(self, seen: Seen, nodes: _Nodes) -> Found | None:
        """The record an entry cites, when it was captured and its span, or None (left out).

        Its own record; else the node's whole-node record; for a compact result, else
        what `lookup` found, else the node's first record in the model's order.
        """
        own = self._record(seen)
        if own is not None:
            return own
        ref = seen.entry.ref
        whole = nodes.whole(ref)
        if whole is not None:
            return whole
        if not seen.compact:
            return None  # an invalid record: only the whole node can stand for it
        looked_up = self._looked_up.get(ref)
        if looked_up is not None:
            return looked_up
        first = nodes.first_record(ref)
        if first is not None:
            return first
        if self.options.lookup is None and ref not in self._warned_compact:
            self._warned_compact.add(ref)
            tool = self._compact_tools.get(ref, "the Reader tool")
            logger.warning(
                "moca_agui: left out %s: %s returned a compact result, not a citation "
                'record; call %s with detail: "full", or pass lookup=<ref -> record> '
                "to moca_agui",
                ref, tool, tool,
            )  # fmt: skip
        return None

    def _modified(self, message_id: str, text: str, citations: list[Citation]) -> list[Citation]:
        """The citations `moca_modify_citations` plugins keep, with their markers.

        Plugins see copies: the records sent are this run's own, whatever a plugin does
        to what it was shown; entries it adds are dropped, and the order stays.
        """
        if not self._hook.moca_modify_citations.get_hookimpls():
            return citations
        shown = [
            Citation(copy.deepcopy(dict(c.record)), c.marker, c.computed_at) for c in citations
        ]
        originals = {id(view): citation for view, citation in zip(shown, citations, strict=True)}
        proposed = list(shown)
        self._hook.moca_modify_citations(message_id=message_id, text=text, citations=proposed)
        kept = {id(view): view.marker for view in proposed if id(view) in originals}
        result = []
        for view in shown:
            if id(view) not in kept:
                continue
            citation = originals[id(view)]
            citation.marker = _as_marker(kept[id(view)])
            result.append(citation)
        return result

    async def _look_up(self, lookup: Lookup, ref: str) -> None:
        """Ask `lookup` once per run for the record of a node a compact result named."""
        self._looked_up[ref] = None
        try:
            async with asyncio.timeout(self.options.lookup_timeout):
                if inspect.iscoroutinefunction(lookup):
                    answer = await lookup(ref)
                else:  # a blocking lookup must not stall the event loop
                    answer = await asyncio.to_thread(lookup, ref)
                if inspect.isawaitable(answer):
                    answer = await answer
        except Exception:  # TimeoutError included
            logger.warning("moca_agui: left out %s: lookup failed", ref, exc_info=True)
            return
        if answer is None:
            logger.info("moca_agui: left out %s: lookup found no record", ref)
            return
        try:
            record = self._copied(answer)
        except InvalidRecord as exc:
            logger.warning("moca_agui: skipped an invalid record from lookup: %s", exc)
            return
        if self._accept("lookup", record) is None:
            return
        entry = _entry_of(record)
        if entry is None or entry.ref != ref:
            logger.warning("moca_agui: left out %s: lookup returned another node", ref)
            return
        self._looked_up[ref] = (record, datetime.now(UTC), entry.span)


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
