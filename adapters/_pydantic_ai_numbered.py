"""Numbered Pydantic AI toolsets: the model reads each source beside its marker.

`NumberedToolset(toolset)` delegates everything to `toolset` (an `MCPServer`, a
`FunctionToolset`, a prefixed one, ...) and returns, for each call, what
`moca_agui.adapter.numbered_result` makes of the result, under the name the model called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.toolsets import AbstractToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from moca_agui.adapter import numbered_result

__all__ = ["NumberedToolset", "numbered_tool"]


@dataclass
class NumberedToolset(WrapperToolset[Any]):
    """A toolset whose Reader results show the model each source's run-wide marker."""

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        return numbered_result(name, await super().call_tool(name, tool_args, ctx, tool))


def numbered_tool(toolset: AbstractToolset[Any]) -> NumberedToolset:
    """`toolset` numbering its Reader results (Pydantic AI's tools come in toolsets, each
    result numbered under the name the model called)."""
    return NumberedToolset(toolset)
