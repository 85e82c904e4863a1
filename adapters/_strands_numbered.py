"""Numbered Strands tools: the model reads each source beside its marker.

`NumberedTool(tool)` is `tool` (an `@tool` function, an `MCPClient` tool, any
`AgentTool`) under the same name and spec, whose successful result the model is sent as
one text block: what `moca_agui.adapter.numbered_result` makes of the result's content. It
numbers into the run of its context, as every numbered tool does: no citing agent holds
the tool, so it reaches no run registry, and Strands runs it in a task of the run's stream
(its executors' tasks and threads copy the run context the engine entered there).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from strands.types._events import ToolResultEvent
from strands.types.tools import AgentTool, ToolResult, ToolSpec, ToolUse

from moca_agui.adapter import content_parts, numbered_result

__all__ = ["NumberedTool", "numbered_tool"]


class NumberedTool(AgentTool):
    """A Strands tool whose Reader results show the model each source's run-wide marker."""

    def __init__(self, tool: AgentTool, name: str | None = None) -> None:
        super().__init__()
        self.tool = tool
        self._name = name or tool.tool_name  # the tool name its results number as

    @property
    def tool_name(self) -> str:
        return self.tool.tool_name

    @property
    def tool_spec(self) -> ToolSpec:
        return self.tool.tool_spec

    @property
    def tool_type(self) -> str:
        return self.tool.tool_type

    async def stream(
        self, tool_use: ToolUse, invocation_state: dict[str, Any], **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        async for event in self.tool.stream(tool_use, invocation_state, **kwargs):
            if isinstance(event, ToolResultEvent) and not getattr(event, "backgrounded", False):
                shown = self._numbered(event.tool_result)
                if shown is not event.tool_result:
                    event = ToolResultEvent(shown, exception=event.exception)
            yield event

    def _numbered(self, result: ToolResult) -> ToolResult:
        if result.get("status") != "success":
            return result
        parts = content_parts(result.get("content"))
        shown = numbered_result(self._name, parts)
        if shown is parts:  # not a Reader's, no source in it, or outside a run
            return result
        return {**result, "content": [{"text": str(shown)}]}


def numbered_tool(tool: AgentTool, name: str | None = None) -> NumberedTool:
    """`tool` numbering its Reader results (as the results of `name`, by default its own)."""
    return NumberedTool(tool, name)
