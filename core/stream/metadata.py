"""A MESSAGES_SNAPSHOT whose answers carry their citations on their own `metadata`.

AG-UI 1.0 messages carry `metadata`, kept by clients and history stores that keep
messages and not CUSTOM events. Each cited answer gets the value its `moca.citations`
event has, under `METADATA_KEY`; every other key of its metadata, and every other
message, is left as it came. An answer whose metadata holds the key already was cited
upstream: it is left as it came too.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from ..records.event import METADATA_KEY

__all__ = ["with_citations"]

logger = logging.getLogger("moca_agui")

E = TypeVar("E", bound=BaseModel)


def with_citations(snapshot: E, values: Mapping[str, dict[str, Any]]) -> E:
    """A copy of `snapshot` whose messages named in `values` (message id -> citation
    value) carry their value on `metadata`; `snapshot` itself if no message can (AG-UI
    0.1 messages have no `metadata`)."""
    messages = getattr(snapshot, "messages", None)
    if not isinstance(messages, list):
        return snapshot
    carried = [_carrying(message, values) for message in messages]
    if all(new is old for new, old in zip(carried, messages, strict=True)):
        logger.debug("moca_agui: the snapshot's messages have no metadata to carry citations")
        return snapshot
    return snapshot.model_copy(update={"messages": carried})


def _carrying(message: object, values: Mapping[str, dict[str, Any]]) -> object:
    if not isinstance(message, BaseModel) or "metadata" not in type(message).model_fields:
        return message
    message_id, metadata = getattr(message, "id", None), getattr(message, "metadata", None)
    value = values.get(message_id) if isinstance(message_id, str) else None
    if value is None or getattr(message, "role", None) != "assistant":
        return message
    if metadata is not None and not isinstance(metadata, Mapping):  # not ours to replace
        return message
    if metadata and METADATA_KEY in metadata:  # cited upstream: never replaced
        return message
    return message.model_copy(update={"metadata": {**(metadata or {}), METADATA_KEY: value}})
