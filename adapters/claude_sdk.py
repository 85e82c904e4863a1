"""The Claude Agent SDK (claude-agent-sdk): numbered SDK MCP tools.

Citations come from `CitationMiddleware` around the app `add_claude_fastapi_endpoint`
serves (the plugin names that line); this module only numbers tools:
`moca_agui.numbered([moca_search, moca_get_node])` on `SdkMcpTool`s (what `@tool` makes
for `create_sdk_mcp_server`) gives tools of the same name and schema whose successful
result the model reads as one text block: each source beside its run-wide marker.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from moca_agui.adapter import content_parts, numbered_result, require

require("Claude Agent SDK", "claude-sdk", "claude_agent_sdk")

from claude_agent_sdk import SdkMcpTool  # noqa: E402

__all__ = ["numbered_tool"]


def numbered_tool(tool: SdkMcpTool[Any], name: str | None = None) -> SdkMcpTool[Any]:
    """`tool` numbering its Reader results (as the results of `name`, by default its own).

    It numbers into the run active where the SDK calls it: the middleware's, for the
    thread the run is on (see `CitationMiddleware`)."""
    handler = tool.handler
    tool_name = name or tool.name

    async def numbered_handler(arguments: Any) -> dict[str, Any]:
        result: dict[str, Any] = await handler(arguments)
        if not isinstance(result, dict) or result.get("is_error") or result.get("isError"):
            return result
        parts = content_parts(result.get("content"))
        shown = numbered_result(tool_name, parts)
        if shown is parts:  # not a Reader's, no source in it, or outside a run
            return result
        return {**result, "content": [{"type": "text", "text": str(shown)}]}

    return dataclasses.replace(tool, handler=numbered_handler)
