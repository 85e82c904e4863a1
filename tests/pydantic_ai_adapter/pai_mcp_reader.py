"""A small MCP server over stdio that answers like the reference MOCA Reader.

    python pai_mcp_reader.py RECORDS.json

Tools `moca_search`, `moca_get_node`, `moca_structure` and `moca_list_packages`, each
answering one text content item of pretty-printed JSON, with `isError` on a miss, as
`@openmoca/moca-mcp` does. The records are read from the JSON list in RECORDS.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # a process of its own: tests/
from support import compact

RECORDS: list[dict[str, Any]] = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
BY_REF = {rec["node"]["ref"]: rec for rec in RECORDS}

server = MCPServer("test-moca-reader")


def answer(value: object) -> CallToolResult:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    is_error = isinstance(value, dict) and "error" in value
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


@server.tool()
def moca_search(query: str, limit: int = 5, detail: str = "compact") -> CallToolResult:
    """Search the loaded packages (a node matches when its path is in the query)."""
    hits = [rec for rec in RECORDS if rec["node"]["path"] in query][:limit]
    results = (
        [{**rec, "score": 1.0} for rec in hits] if detail == "full" else list(map(compact, hits))
    )
    return answer({"query": query, "results": results})


@server.tool()
def moca_get_node(node_id: str, locale: str | None = None) -> CallToolResult:
    """One node's whole citation record, by node id or versioned ref."""
    found = BY_REF.get(node_id)
    return answer(found if found is not None else {"error": f"no node {node_id}"})


@server.tool()
def moca_structure(op: str, iri: str, detail: str = "compact") -> CallToolResult:
    """Structure operations; `nodes` lists the nodes of a concept."""
    nodes = RECORDS if detail == "full" else list(map(compact, RECORDS))
    return answer({"op": op, "iri": iri, "result": nodes if op == "nodes" else []})


@server.tool()
def moca_list_packages() -> CallToolResult:
    """The loaded packages."""
    packages = {rec["package"]["id"]: rec["package"] for rec in RECORDS}
    return answer(list(packages.values()))


if __name__ == "__main__":
    server.run("stdio")
