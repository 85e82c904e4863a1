"""Tool result content as frameworks hand it over, read into the parts Reader results are
read from (`extract.reader_items` takes MCP-style text parts)."""

from __future__ import annotations

import logging
from collections.abc import Mapping

__all__ = ["content_parts"]

logger = logging.getLogger("moca_agui")


def content_parts(content: object) -> list[object]:
    """A tool result's content blocks as MCP-style parts, in their order.

    A text block, an object or a mapping (`{"type": "text", "text": t}`, an Agent
    Framework `Content`, a Strands `{"text": t}`), becomes `{"type": "text", "text": t}`;
    a JSON block (`{"json": value}`) becomes `value`; media are dropped. Content that is
    not a list holds no part (logged).
    """
    if not isinstance(content, list | tuple):
        logger.warning("moca_agui: skipped a tool result whose content is not a list")
        return []
    parts: list[object] = []
    for block in content:
        if isinstance(block, Mapping):
            text, kind = block.get("text"), block.get("type", "text")
            if "json" in block and "text" not in block:
                parts.append(block["json"])
                continue
        else:
            text, kind = getattr(block, "text", None), getattr(block, "type", None)
        if kind == "text" and isinstance(text, str):
            parts.append({"type": "text", "text": text})
    return parts
