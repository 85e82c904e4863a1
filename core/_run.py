"""The state of one agent run: what its Reader returned and what its assistant wrote."""

from __future__ import annotations

import asyncio
import copy
import inspect
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pluggy
from ag_ui.core import CustomEvent

from ._citations import Citation, citations_event
from ._extract import CompactResult
from ._options import CitationOptions
from ._records import InvalidRecord, as_record
from ._references import Mention
from .plugins import get_plugin_manager

__all__ = ["CitationRun"]

logger = logging.getLogger("moca_agui")


@dataclass(slots=True)
class _Node:
    record: dict[str, Any] | None  # None: only a compact result named it so far
    captured_at: datetime


def _ref_of(item: object) -> str | None:
    """`node.ref` of a record-shaped value, if it is a string."""
    node = item.get("node") if isinstance(item, dict) else None
    ref = node.get("ref") if isinstance(node, dict) else None
    return ref if isinstance(ref, str) and ref else None


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
        self._nodes: dict[str, _Node] = {}  # ref -> first record, in first-capture order
        self._texts: dict[str, list[str]] = {}  # message id -> text parts
        self._reader_tools: dict[str, bool] = {}
        self._warned_compact = False
        #: Whether `cite` reads TOOL_CALL_RESULT content into this run. An adapter that
        #: captures each tool's raw return value sets it to False: the content on the
        #: wire is the same result, serialised or cut down (and may be prose).
        self.reads_tool_call_results = True
        self._unresolved: set[str] = set()  # refs with no usable record: never looked up
        self._muted: set[str] = set()  # messages not to cite: other roles, cited upstream
        self._sent: set[str] = set()  # messages whose event was made

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

    def capture(self, tool_name: str, result: object, *, tool_call_id: str | None = None) -> None:
        """Take in one tool result; only a Reader tool's result can hold sources.

        `tool_call_id` is the id of the call that returned it, when the framework gives it.
        """
        if not self.is_reader_tool(tool_name):
            return
        now = datetime.now(UTC)
        try:
            items = (
                self._hook.moca_reader_items(
                    tool_name=tool_name, result=result, options=self.options
                )
                or []
            )
        except ValueError as exc:
            logger.warning("moca_agui: skipped a result of %s: %s", tool_name, exc)
            return
        except Exception:
            logger.exception("moca_agui: skipped a result of %s: a plugin failed", tool_name)
            return
        if not items:  # e.g. concepts, an error, or a shape no plugin knows
            logger.debug("moca_agui: no citation record in a result of %s", tool_name)
        for item in items:
            if isinstance(item, CompactResult):
                self._nodes.setdefault(item.ref, _Node(None, now))
            else:
                self._add_record(tool_name, item, now)

    def _add_record(self, tool_name: str, item: object, now: datetime) -> None:
        record = self._accept(tool_name, item)
        if record is None:
            # The model saw it all the same: it keeps its number, so [n] names no other node.
            ref = _ref_of(item)
            if ref is not None and ref not in self._nodes:
                self._nodes[ref] = _Node(None, now)
                self._unresolved.add(ref)
            return
        node = self._nodes.get(record["node"]["ref"])
        if node is None:
            self._nodes[record["node"]["ref"]] = _Node(record, now)
        elif node.record is None:  # a compact result named it first: it keeps its place
            node.record, node.captured_at = record, now

    def _accept(self, source: str, item: object) -> dict[str, Any] | None:
        """The record as a private copy if it is valid and of a loaded package, else None."""
        try:
            record = as_record(item)
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
        parts = self._texts.get(message_id)
        if parts is None:
            self._texts[message_id] = [delta]
        else:
            parts.append(delta)

    def message_ids(self) -> list[str]:
        """Ids of the assistant messages that have text, in the order they began."""
        return [mid for mid, parts in self._texts.items() if "".join(parts).strip()]

    def text_of(self, message_id: str) -> str:
        """The whole text of a message so far."""
        return "".join(self._texts.get(message_id, ()))

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
            )
        except Exception:
            logger.exception("moca_agui: no citations sent for message %s", message_id)
            return None

    async def _resolve(self, message_id: str, text: str) -> list[Citation]:
        refs = self._nodes.keys()
        markers = self._hook.moca_marker_table(refs=list(refs)) or {}
        found: list[Mention] = [
            mention
            for mentions in self._hook.moca_find_references(text=text, refs=refs, markers=markers)
            if mentions
            for mention in mentions
        ]
        found.sort(key=lambda mention: mention.start)
        first: dict[str, str | None] = {}  # ref -> marker, in order of first mention
        for mention in found:
            if mention.ref not in self._nodes:
                logger.debug("moca_agui: left out %.200r: not returned in this run", mention.ref)
            elif mention.ref not in first or (first[mention.ref] is None and mention.marker):
                first[mention.ref] = mention.marker
        pending = [r for r in first if self._nodes[r].record is None and r not in self._unresolved]
        if pending:  # looked up together: a dead Reader costs one timeout, not one per ref
            await asyncio.gather(*(self._look_up(ref) for ref in pending))
            self._unresolved.update(r for r in pending if self._nodes[r].record is None)
        citations = [
            Citation(node.record, marker, node.captured_at)
            for ref, marker in first.items()
            if (node := self._nodes[ref]).record is not None
        ]
        return self._modified(message_id, text, citations)

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
            citation, marker = originals[id(view)], kept[id(view)]
            if marker is not None and not (isinstance(marker, str) and marker):
                logger.warning("moca_agui: dropped a marker that is not text: %.80r", marker)
                marker = None
            citation.marker = marker
            result.append(citation)
        return result

    async def _look_up(self, ref: str) -> None:
        """Give a node only a compact result named its whole record, if `lookup` finds it."""
        lookup = self.options.lookup
        if lookup is None:
            if not self._warned_compact:
                self._warned_compact = True
                logger.warning(
                    "moca_agui: left out %s: the Reader returned a compact result, not a "
                    'citation record; call moca_search with detail: "full", or pass '
                    "lookup=<ref -> record> to moca_agui",
                    ref,
                )
            return
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
        record = self._accept("lookup", answer)
        if record is None:
            return
        if record["node"]["ref"] != ref:
            logger.warning("moca_agui: left out %s: lookup returned another node", ref)
            return
        node = self._nodes[ref]
        node.record, node.captured_at = record, datetime.now(UTC)
