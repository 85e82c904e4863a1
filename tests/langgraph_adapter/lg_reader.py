"""Reader tools for the LangGraph tests, named and shaped as the reference Reader's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, tool
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


def mcp_shaped(search: Callable[..., Any], get_node: Callable[..., Any]) -> list[BaseTool]:
    """`moca_search` and `moca_get_node` as langchain-mcp-adapters makes them: functions that
    return (content blocks, artifact)."""
    return [
        StructuredTool.from_function(
            function, name=name, description=description, response_format="content_and_artifact"
        )
        for function, name, description in (
            (search, "moca_search", "Search."),
            (get_node, "moca_get_node", "Read."),
        )
    ]
