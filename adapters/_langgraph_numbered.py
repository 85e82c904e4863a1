"""Numbered LangChain tools for LangGraph: the model reads each source beside its marker.

`numbered_tool(tool)` is a tool of the same name, description and arguments that calls
`tool` and returns, as its content, what `moca_agui.adapter.numbered_result` makes of the result
(a `content_and_artifact` tool's artifact when it has one, as the adapter reads it).
The inner call runs without callbacks, so LangGraph sees one tool call, not two.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool

from moca_agui.adapter import numbered_result

from ._langgraph_run import unwrapped_artifact

__all__ = ["numbered_tool"]


def numbered_tool(tool: BaseTool, name: str | None = None) -> BaseTool:
    """A tool like `tool` whose content is its result, numbered by the active run (as the
    results of `name`, by default the tool's own name)."""
    tool_name = name or tool.name

    def call(arguments: dict[str, Any]) -> dict[str, Any]:
        return {"name": tool.name, "args": arguments, "id": "moca-agui", "type": "tool_call"}

    def run(**arguments: Any) -> object:
        return numbered_result(tool_name, _result(tool.invoke(call(arguments), _quiet())))

    async def arun(**arguments: Any) -> object:
        return numbered_result(tool_name, _result(await tool.ainvoke(call(arguments), _quiet())))

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema,
        return_direct=tool.return_direct,
    )


def _result(output: object) -> object:
    """What the tool returned, as the LangGraph adapter reads a tool message."""
    if isinstance(output, ToolMessage):
        return (
            unwrapped_artifact(output.artifact) if output.artifact is not None else output.content
        )
    return output


def _quiet() -> RunnableConfig:
    """The inner tool's config: no callbacks (the outer tool's run is the one LangGraph sees)."""
    return {"callbacks": []}
