"""The LangGraph adapter's plugin: claims ag-ui-langgraph's `LangGraphAgent` instances.

Imports without LangGraph: it looks the framework up in `sys.modules`, so a target can
only be one of its objects if the application imported it already.
"""

from __future__ import annotations

from moca_agui import CitationOptions, hookimpl
from moca_agui._imported import instance_of, subclass_of
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument", "moca_numbered"]


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    if instance_of(target, "ag_ui_langgraph:LangGraphAgent"):
        from .langgraph import citing

        instrumented: object = citing(target, options)
        return instrumented
    if subclass_of(target, "ag_ui_langgraph:LangGraphAgent"):
        raise TypeError(
            "moca_agui instruments a LangGraphAgent instance, not its class: "
            "agent = moca_agui.instrument(LangGraphAgent(name=..., graph=graph))"
        )
    if instance_of(target, "langgraph.pregel:Pregel"):
        raise TypeError(
            "moca_agui instruments the AG-UI agent that serves a LangGraph graph, not the "
            "graph: agent = moca_agui.instrument(LangGraphAgent(name=..., graph=graph))"
        )
    return None


@hookimpl
def moca_numbered(target: object) -> object | None:
    if instance_of(target, "langchain_core.tools:BaseTool"):
        from ._langgraph_numbered import numbered_tool

        numbered: object = numbered_tool(target)
        return numbered
    return None


@hookimpl
def moca_install_hint() -> str:
    return f"a LangGraph `LangGraphAgent` (ag-ui-langgraph): {pip_install('langgraph')}"
