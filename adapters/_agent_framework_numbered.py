"""Numbered Agent Framework function tools: the model reads each source beside its marker.

`numbered_tool(tool)` is a copy of a `FunctionTool` (an `@tool` function, or one of an
MCP tool's `functions`) whose result parser first asks `moca_agui.adapter.numbered_result` what
the model reads of the return value (an MCP function's text contents), then parses that
as the tool would have. The copy numbers into the run `cite` makes active while the
agent runs its tools.
"""

from __future__ import annotations

import copy
from typing import Any

from agent_framework import Content, FunctionTool

from moca_agui.adapter import content_parts, numbered_result

__all__ = ["numbered_tool"]


def numbered_tool(tool: FunctionTool, name: str | None = None) -> FunctionTool:
    """A copy of `tool` whose Reader results show the model each source's marker."""
    tool_name = name or tool.name
    parse = tool.result_parser if callable(tool.result_parser) else FunctionTool.parse_result

    def numbered_parse(value: Any) -> str | list[Content]:
        contents = isinstance(value, list) and all(isinstance(v, Content) for v in value)
        result = content_parts(value) if contents else value  # an MCP function's contents
        shown = numbered_result(tool_name, result)
        parsed: str | list[Content] = parse(value if shown is result else shown)
        return parsed

    twin = copy.copy(tool)
    twin.result_parser = numbered_parse
    return twin
