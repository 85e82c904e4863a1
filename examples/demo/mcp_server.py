"""The demo Reader as a real MCP server: the reference Reader's tools, over stdio.

    python -m moca_agui.demo.reader

Each tool answers as the reference server does: one text item of pretty-printed JSON,
with `isError` set when the answer is `{"error": ...}`.
"""

import inspect
import json
from typing import Any, Literal

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("the demo's MCP server needs mcp 2: pip install 'moca-agui[demo]'") from exc

from .reader import DemoReader, Detail, StructureOp

__all__ = ["mcp_server", "serve_stdio"]


def _answer(value: dict[str, Any]) -> CallToolResult:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error="error" in value)


def mcp_server(reader: DemoReader) -> MCPServer:
    """An MCP server whose tools `moca_search`, `moca_get_node` and `moca_structure` are
    `reader`'s, described by the reader's docstrings."""
    server = MCPServer("moca-agui-demo-reader", version="0.1.0")

    def moca_search(
        query: str,
        limit: int = 5,
        detail: Detail = "compact",
        locale: str | None = None,
        include_all: bool = False,
        concepts: list[str] | None = None,
        scope: str | None = None,
    ) -> CallToolResult:
        return _answer(
            reader.moca_search(query, limit, detail, locale, include_all, concepts, scope)
        )

    def moca_get_node(node_id: str, locale: str | None = None) -> CallToolResult:
        return _answer(reader.moca_get_node(node_id, locale))

    def moca_structure(
        op: StructureOp,
        iri: str,
        transitive: bool = False,
        include: Literal["none", "narrower", "parts", "both"] = "none",
        detail: Detail = "compact",
    ) -> CallToolResult:
        return _answer(reader.moca_structure(op, iri, transitive, include, detail))

    for tool in (moca_search, moca_get_node, moca_structure):
        description = inspect.getdoc(getattr(DemoReader, tool.__name__))
        server.add_tool(tool, name=tool.__name__, description=description)
    return server


def serve_stdio(reader: DemoReader) -> None:
    """Serve `reader` over MCP stdio until the client closes the connection."""
    mcp_server(reader).run("stdio")
