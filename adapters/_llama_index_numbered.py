"""Numbered LlamaIndex function tools: the model reads each source beside its marker.

`numbered_tool(tool)` is a `FunctionTool` with `tool`'s metadata whose function calls
`tool`'s own and returns what `moca_agui.adapter.numbered_result` makes of the result. The citing
workflow makes its run active while a tool call step runs, so the numbers are its own.
"""

from __future__ import annotations

from llama_index.core.tools import FunctionTool

import moca_agui

__all__ = ["numbered_tool"]


def numbered_tool(tool: FunctionTool, name: str | None = None) -> FunctionTool:
    """A tool like `tool` whose output is its result, numbered by the active run (as the
    results of `name`, by default the tool's own name)."""
    return FunctionTool(
        fn=moca_agui.numbered(tool.real_fn, name=name or tool.metadata.get_name()),
        metadata=tool.metadata,
        partial_params=dict(tool.partial_params),
    )
