"""Reader tools for the LangGraph tests, named and shaped as the reference Reader's."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import tool
from lg_chat import Call

from support import record, ref

A, B, C = record("a.md"), record("b.md"), record("c.md")
NODES = {ref(r): r for r in (A, B, C)}


@tool
def moca_search(query: str, detail: str = "full") -> dict[str, Any]:
    """Search the knowledge base."""
    return {"query": query, "results": [A, B]}


@tool
def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return NODES.get(node_id) or {"error": f"no node {node_id}"}


SEARCH = Call("moca_search", {"query": "bees", "detail": "full"}, "call-search")
GET_C = Call("moca_get_node", {"node_id": ref(C)}, "call-get")
