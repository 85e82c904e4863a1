"""One message's citations, and the `moca.citations` event that carries them."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ag_ui.core import CustomEvent, EventType
from pydantic_core import to_json

__all__ = ["EVENT_NAME", "EVENT_VERSION", "METADATA_KEY", "Citation", "citations_event"]

logger = logging.getLogger("moca_agui")

#: The name of the AG-UI CUSTOM event this library sends.
EVENT_NAME = "moca.citations"
#: `value.version` of the events this library sends and reads.
EVENT_VERSION = 1
#: The key of an assistant message's `metadata` (AG-UI 1.0) that carries the same value
#: as its event, on the message in a MESSAGES_SNAPSHOT.
METADATA_KEY = "moca.citations"


@dataclass(slots=True)
class Citation:
    """One entry of the event: a record the Reader returned in this run, and its marker."""

    record: Mapping[str, Any]
    marker: str | None = None
    #: When the Reader's result that held the record was captured.
    computed_at: datetime | None = None

    @property
    def ref(self) -> str:
        """The record's `node.ref`, the key a client records it by."""
        return str(self.record["node"]["ref"])


def citations_event(
    message_id: str,
    citations: Sequence[Citation],
    *,
    include_text: bool,
    max_event_bytes: int,
    records_bytes: int | None = None,
) -> CustomEvent:
    """Build the event for one message; `text` is dropped as the options and budget say.

    `records_bytes`, if known, is at most what the records take as compact JSON: an event
    it shows to be within the budget is not measured.
    """
    entries: list[dict[str, Any]] = []
    for citation in citations:
        record = dict(citation.record) if include_text else _without_text(citation.record)
        entry: dict[str, Any] = {"marker": citation.marker} if citation.marker else {}
        entry["record"] = record
        entries.append(entry)
    value: dict[str, Any] = {"version": EVENT_VERSION, "messageId": message_id}
    times = [c.computed_at for c in citations if c.computed_at is not None]
    if times:
        value["computedAt"] = min(times).isoformat(timespec="milliseconds")
    value["citations"] = entries
    if records_bytes is None or not _within(value, entries, records_bytes, max_event_bytes):
        _fit(value, entries, max_event_bytes)
    return CustomEvent(type=EventType.CUSTOM, name=EVENT_NAME, value=value)


def _without_text(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record as the event's own plain dict (a run may cite it again), less its `text`."""
    if "text" not in record:
        return dict(record)
    return {key: field for key, field in record.items() if key != "text"}


def _size(value: object) -> int:
    """Bytes of `value` as compact UTF-8 JSON (what the wire carries, less the envelope)."""
    return len(to_json(value))


#: At most what an event's JSON takes besides its strings' characters and its records:
#: `{"version":1,"messageId":"","computedAt":"<29>","citations":[]}` is 88 bytes.
_ENVELOPE_BYTES = 96
#: At most what an entry takes besides its marker's characters and record:
#: `{"marker":"","record":},` is 24 bytes.
_ENTRY_BYTES = 24


def _within(
    value: dict[str, Any], entries: list[dict[str, Any]], records_bytes: int, budget: int
) -> bool:
    """Whether the event's JSON is surely within `budget`, from at most what its records
    take (`records_bytes`, with their text) and at most what the rest takes: a string's
    character is at most 6 bytes (`\\u0000`), so the rest is counted, not written."""
    message_id = value["messageId"]
    if type(message_id) is not str:
        return False  # measured: `_fit` writes whatever it is
    rest = _ENVELOPE_BYTES + 6 * len(message_id)
    for entry in entries:
        marker = entry.get("marker", "")
        if type(marker) is not str:
            return False
        rest += _ENTRY_BYTES + 6 * len(marker)
    return rest + records_bytes <= budget


def _fit(value: dict[str, Any], entries: list[dict[str, Any]], budget: int) -> None:
    """Drop `text` from the largest records first until the event's JSON fits `budget`."""
    total = _size(value)
    if total <= budget:
        return
    sized = sorted(
        ((_size(entry["record"]), entry) for entry in entries if "text" in entry["record"]),
        key=lambda pair: pair[0],
        reverse=True,
    )
    for size, entry in sized:
        entry["record"] = _without_text(entry["record"])
        total -= size - _size(entry["record"])
        if total <= budget:
            return
    logger.warning(
        "moca_agui: the event for %s is %d bytes with every text dropped, over "
        "max_event_bytes=%d; it is sent whole, as records may not be cut",
        value["messageId"], total, budget,
    )  # fmt: skip
