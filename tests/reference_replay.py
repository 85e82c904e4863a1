"""An MCP server over stdio that answers what the reference Reader answered: each tool call
whose name and arguments were captured in `tests/data/reference-reader/` gets that
capture's `CallToolResult`, as the reference Reader sent it.

    python reference_replay.py

Runs on mcp 2.x and 1.x, like the demo Reader. A call that was not captured gets an
MCP error result.
"""

from __future__ import annotations

import json
from typing import Any

from contract import CAPTURES
from mcp.types import CallToolResult

try:
    from mcp.server.mcpserver import MCPServer
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[no-redef,import-not-found,attr-defined,unused-ignore]


def captures() -> list[dict[str, Any]]:
    """Every captured tool call: `{"tool", "arguments", "result"}`; raises if there is
    none, so that no test loops over an empty list."""
    found = []
    for path in sorted(CAPTURES.glob("*.json")):
        capture = json.loads(path.read_text(encoding="utf-8"))
        if "tool" in capture:
            found.append(capture)
    if not found:
        raise FileNotFoundError(f"no captured tool call in {CAPTURES}")
    return found


def answer(tool: str, arguments: dict[str, Any]) -> CallToolResult:
    given = {name: value for name, value in arguments.items() if value is not None}
    for capture in captures():
        if capture["tool"] == tool and capture["arguments"] == given:
            return CallToolResult.model_validate(capture["result"])
    text = f"no capture of {tool} {json.dumps(given)}"
    return CallToolResult.model_validate(
        {"content": [{"type": "text", "text": text}], "isError": True}
    )


server = MCPServer("reference-reader-replay", log_level="WARNING")


@server.tool()
def moca_search(
    query: str,
    limit: int | None = None,
    detail: str | None = None,
    locale: str | None = None,
    include_all: bool | None = None,
    concepts: list[str] | None = None,
    scope: str | None = None,
) -> CallToolResult:
    """Searches loaded knowledge packages."""
    arguments = {"query": query, "limit": limit, "detail": detail, "locale": locale}
    arguments |= {"include_all": include_all, "concepts": concepts, "scope": scope}
    return answer("moca_search", arguments)


@server.tool()
def moca_get_node(node_id: str, locale: str | None = None) -> CallToolResult:
    """One node's whole citation record."""
    return answer("moca_get_node", {"node_id": node_id, "locale": locale})


@server.tool()
def moca_structure(
    op: str,
    iri: str,
    transitive: bool | None = None,
    include: str | None = None,
    detail: str | None = None,
) -> CallToolResult:
    """Navigate the packages' structure."""
    arguments = {"op": op, "iri": iri, "transitive": transitive, "include": include}
    return answer("moca_structure", arguments | {"detail": detail})


@server.tool()
def moca_list_packages() -> CallToolResult:
    """The loaded packages."""
    return answer("moca_list_packages", {})


if __name__ == "__main__":
    server.run("stdio")
