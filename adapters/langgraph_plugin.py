"""The LangGraph adapter's plugin: claims ag-ui-langgraph's `LangGraphAgent` instances.

Imports without LangGraph: it looks the framework up in `sys.modules`, so a target can
only be one of its objects if the application imported it already.
"""

from __future__ import annotations

import sys

from moca_agui import CitationOptions, hookimpl
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument", "moca_numbered"]


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    agent = getattr(sys.modules.get("ag_ui_langgraph"), "LangGraphAgent", None)
    if agent is not None and isinstance(target, agent):
        from .langgraph import citing

        instrumented: object = citing(target, options)
        return instrumented
    if agent is not None and isinstance(target, type) and issubclass(target, agent):
        raise TypeError(
            "moca_agui instruments a LangGraphAgent instance, not its class: "
            "agent = moca_agui.instrument(LangGraphAgent(name=..., graph=graph))"
        )
    graph = getattr(sys.modules.get("langgraph.pregel"), "Pregel", None)
    if graph is not None and isinstance(target, graph):
        raise TypeError(
            "moca_agui instruments the AG-UI agent that serves a LangGraph graph, not the "
            "graph: agent = moca_agui.instrument(LangGraphAgent(name=..., graph=graph))"
        )
    return None


@hookimpl
def moca_numbered(target: object) -> object | None:
    tool = getattr(sys.modules.get("langchain_core.tools"), "BaseTool", None)
    if tool is not None and isinstance(target, tool):
        from ._langgraph_numbered import numbered_tool

        numbered: object = numbered_tool(target)
        return numbered
    return None


@hookimpl
def moca_install_hint() -> str:
    return f"a LangGraph `LangGraphAgent` (ag-ui-langgraph): {pip_install('langgraph')}"
