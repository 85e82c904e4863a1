"""The Claude Agent SDK plugin (ag-ui-claude-sdk): its endpoint is cited by the ASGI
middleware, and its MCP tools' names are read as Claude Code writes them.

The middleware suffices: `ClaudeAgentAdapter` sends each TOOL_CALL_START as the model
streams that tool-use block (so in the order the model issued its calls), and each
TOOL_CALL_RESULT with the tool's whole content (its one text block as is, other blocks as
JSON or content parts), not cut down. `instrument` on the adapter names that line.

Claude Code names a tool of an MCP server `mcp__<server>__<tool>`, and that is the name
on the wire: a tool whose `<tool>` is a Reader tool (`reader_tools`) is a Reader tool
under any server's name.

`moca_agui.numbered` numbers SDK MCP tools (`SdkMcpTool`, `moca_agui.adapters.claude_sdk`).
"""

from __future__ import annotations

from dataclasses import dataclass

from moca_agui import CitationOptions
from moca_agui.adapter import Adapter, hookimpl

MCP_PREFIX = "mcp__"


@dataclass(frozen=True)
class ClaudeSDKAdapter(Adapter):
    """The declaration, and the hook that reads Claude Code's MCP tool names."""

    @hookimpl
    def moca_is_reader_tool(self, tool_name: str, options: CitationOptions) -> bool | None:
        if not tool_name.startswith(MCP_PREFIX):
            return None
        server_and_tool = tool_name[len(MCP_PREFIX) :].split("__", 1)
        if len(server_and_tool) == 2 and server_and_tool[1] in options.reader_tools:
            return True
        return None


ADAPTER = ClaudeSDKAdapter(
    "moca_agui.adapters.claude_sdk",
    "the Claude Agent SDK's FastAPI endpoint (ag-ui-claude-sdk): not through instrument, "
    "the middleware around the app",
    one_line="app.add_middleware(CitationMiddleware) on the FastAPI app that "
    "add_claude_fastapi_endpoint(app, adapter) serves",
    extra="claude-sdk",
    refuses={"ag_ui_claude_sdk:ClaudeAgentAdapter": "a ClaudeAgentAdapter"},
    tools=("claude_agent_sdk:SdkMcpTool",),
)  # fmt: skip
