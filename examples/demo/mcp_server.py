"""The demo Reader as a real MCP server: the reference Reader's tools, over stdio.

    python -m moca_agui.demo.reader

Each tool answers as the reference server does: one text item of pretty-printed JSON,
with `isError` set when the answer is `{"error": ...}`. It runs on mcp 2.x and on mcp
1.x, so it serves clients that still need mcp 1 (langchain-mcp-adapters 0.3) from the
same environment.
"""

import inspect
import json
from typing import Any, Literal

from moca_agui.adapter import pip_install

try:
    from mcp.types import CallToolResult
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(f"the demo's MCP server needs mcp: {pip_install('demo')}") from exc
try:
    from mcp.server.mcpserver import MCPServer
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[no-redef,import-not-found,attr-defined,unused-ignore]

from .reader import DemoReader, Detail, StructureOp

__all__ = ["mcp_server", "serve_stdio"]


def _answer(value: dict[str, Any]) -> CallToolResult:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    # By the wire names: the error flag is `is_error` in mcp 2, `isError` in mcp 1.
    content = [{"type": "text", "text": text}]
    return CallToolResult.model_validate({"content": content, "isError": "error" in value})


def mcp_server(reader: DemoReader) -> MCPServer:
    """An MCP server whose tools `moca_search`, `moca_get_node` and `moca_structure` are
    `reader`'s, described by the reader's docstrings."""
    server = MCPServer("moca-agui-demo-reader", log_level="WARNING")  # stderr: no chatter

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
