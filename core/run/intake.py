"""Taking in tool results: a Reader result's entries join the ledger, in the model's order."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic_core import from_json

from ..records.entry import Entry, entry_of
from ..records.extract import (
    MAX_RESULT_CHARS,
    CompactResult,
    ReaderItem,
    ReaderItems,
    numbered_view,
)
from ..records.history import EarlierResult
from ..records.schema import InvalidRecord
from .checks import Checks
from .hooks import Hooks
from .ledger import Item, Ledger

__all__ = ["Intake"]

logger = logging.getLogger("moca_agui")


class Intake:
    """Reads each tool result through the hooks into the run's ledger."""

    __slots__ = ("_checks", "_hooks", "_ledger", "compact_tools")

    def __init__(self, hooks: Hooks, checks: Checks, ledger: Ledger) -> None:
        self._hooks = hooks
        self._checks = checks
        self._ledger = ledger
        #: ref -> the tool whose compact result named it (for the warning that names it)
        self.compact_tools: dict[str, str] = {}

    def capture(self, tool_name: str, result: object, tool_call_id: str | None) -> None:
        """Take in one tool result; only a Reader tool's result can hold sources."""
        items = self._hooks.reader_items(tool_name, result)
        if (
            items is None
            and self._hooks.is_reader_tool(tool_name)
            and not _prose(_read_fast(result))
        ):
            logger.warning(
                "moca_agui: a result of %s could not be read: the sources the model counted "
                "in it are not known, so default markers are left out (versioned refs are "
                "cited; numbered tools, moca_agui.numbered, keep every marker)",
                tool_name,
            )
            self._ledger.result_unread()
        if items:
            now = datetime.now(UTC)
            entries = [item for item, _ in self._entries(tool_name, items) if item is not None]
            self._ledger.add(tool_call_id, tool_name, entries, now)

    def earlier(self, result: EarlierResult) -> None:
        """Take in one result of the thread's earlier turns: which entries the model read
        there, in order, with any marker it was shown. Its records are not kept: the
        client sent them. Raises ValueError for a Reader result that cannot be read (too
        long, malformed JSON): the entries the model read there are not known."""
        if not self._hooks.is_reader_tool(result.tool_name):
            return
        content = _read_fast(result.content)
        view = numbered_view(content)
        if view is None:
            view = [(None, content)]
        entries: list[tuple[Entry, str | None]] = []
        for marker, shown in view:
            try:
                items = self._hooks.read_items(result.tool_name, shown)
            except ValueError as exc:
                if not _prose(shown):  # the model may have counted sources in it
                    raise ValueError(f"a result of {result.tool_name}: {exc}") from exc
                logger.debug("moca_agui: an earlier result of %s is prose", result.tool_name)
                continue
            for item in items or ():
                entry = Entry(item.ref) if isinstance(item, CompactResult) else entry_of(item)
                if entry is not None:
                    entries.append((entry, marker))
        self._ledger.add_earlier(entries, result.turn, result.order)

    def numbered(self, tool_name: str, result: object) -> object:
        """What the model reads of a Reader result: each source beside its run-wide marker,
        as JSON text; the result itself if it holds no source or is not a Reader's."""
        items = self._hooks.reader_items(tool_name, result)
        if not items:
            return result
        pairs = self._entries(tool_name, items)
        kept = [item for item, _ in pairs if item is not None]
        if not self._ledger.thread_read:  # any number might be one the thread gave another
            view = [{"result": shown} for _, shown in pairs]
        else:
            markers = iter(self._ledger.show([entry for entry, _, _ in kept]))
            view = [
                {"marker": next(markers), "result": shown}
                if item is not None
                else {"result": shown}
                for item, shown in pairs
            ]
        text = json.dumps({"results": view}, ensure_ascii=False, default=str)
        # Only what the model can be shown joins the ledger: a marker given to an entry
        # the ledger does not hold names nothing (the marker table keeps held entries).
        self._ledger.add(None, tool_name, kept, datetime.now(UTC))
        return text

    def _entries(self, tool_name: str, items: list[ReaderItem]) -> list[tuple[Item | None, object]]:
        """Each item's ledger item (None: it names no node) and what the model reads of it.

        Records are kept unchecked (as private JSON): most are never cited, and each cited
        one is checked when an answer needs it. An invalid one keeps its number all the
        same, so [n] names no other.
        """
        pairs: list[tuple[Item | None, object]] = []
        read_from = items.read_from if isinstance(items, ReaderItems) else {}
        checks = self._checks
        for item in items:
            if isinstance(item, CompactResult):
                shown = item.result if item.result is not None else {"ref": item.ref}
                self.compact_tools.setdefault(item.ref, tool_name)
                pairs.append(((Entry(item.ref), None, True), shown))
                continue
            read = read_from.get(id(item))
            try:
                if read is not None and read[0] is item:  # plain JSON no one else holds
                    record: dict[str, Any] | None = item
                    checks.keep(item, read)
                else:
                    record = checks.copied(item)
            except InvalidRecord as invalid:
                record = None
                logger.warning(
                    "moca_agui: skipped an invalid record from %s: %s", tool_name, invalid
                )
            entry = entry_of(item if record is None else record)  # what is sent, if any
            if entry is None:  # no node to number
                if record is not None:
                    checks.accept(tool_name, record)  # says why it is not a record
                pairs.append((None, item))
                continue
            pairs.append(((entry, record, False), item))
        return pairs


def _prose(shown: object) -> bool:
    """Whether an earlier result no one could read is prose (a Reader's error text, which
    shows no source), not JSON the layer failed to read (too long, malformed)."""
    return (
        isinstance(shown, str)
        and len(shown) <= MAX_RESULT_CHARS
        and not shown.lstrip().startswith(("{", "["))
    )


def _read_fast(content: object) -> object:
    """An earlier result's JSON text as a value, read fast: its records are never sent,
    so the wire text needs none of the proofs a record sent on needs; anything else (not
    JSON, content parts) as it is, for the hooks to read. One text part is its text (a
    numbered view the model was shown as a content block, say)."""
    if isinstance(content, list | tuple) and len(content) == 1:
        part = content[0]
        if isinstance(part, Mapping) and part.get("type", "text") == "text":
            text = part.get("text")
            content = text if isinstance(text, str) else content
    if isinstance(content, str) and len(content) <= MAX_RESULT_CHARS:
        try:
            # Keys only in the parser's process-wide string cache: values would keep the
            # client's thread after the run.
            return from_json(content, cache_strings="keys")
        except ValueError:
            return content
    return content
