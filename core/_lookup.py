"""`reader_lookup`: a `lookup` that asks the Reader itself for a node's whole record."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from ._extract import reader_items

__all__ = ["reader_lookup"]

Lookup = Callable[[str], Awaitable[dict[str, Any] | None]]


def reader_lookup(call: Callable[[str], object]) -> Lookup:
    """A `lookup` option that turns a compact result into the Reader's whole record.

    `call(ref)` calls the Reader's `moca_get_node` with `node_id=ref`, sync or async, and
    returns what the call returns: an MCP result, its content, JSON text or a dict, e.g.
    `lambda ref: session.call_tool("moca_get_node", {"node_id": ref})` on the agent's own
    MCP session. The lookup gives the record of `ref` in that answer, or None (a Reader
    error, no record). A blocking `call` runs in a thread.
    """

    async def lookup(ref: str) -> dict[str, Any] | None:
        if inspect.iscoroutinefunction(call):
            answer = await call(ref)
        else:
            answer = await asyncio.to_thread(call, ref)
            if inspect.isawaitable(answer):
                answer = await answer
        records = [item for item in reader_items(answer) if isinstance(item, dict)]
        named = [record for record in records if record["node"].get("ref") == ref]
        chosen = named or records  # another node's record: the run logs that it is not ref's
        # A plain dict, the caller's to change: the run copies and checks what it gets.
        return dict(chosen[0]) if chosen else None

    return lookup
