"""The Microsoft Agent Framework adapter's plugin: claims `AgentFrameworkAgent` classes
and instances.

Imports without the framework: it looks it up in `sys.modules`, so a target can only be
one of its objects if the application imported it already.
"""

from __future__ import annotations

import sys

from moca_agui import CitationOptions, hookimpl
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument", "moca_numbered"]

_ONE_LINE = "agent = moca_agui.instrument(AgentFrameworkAgent(agent=chat_agent))"


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    ag_ui = sys.modules.get("agent_framework_ag_ui")
    if ag_ui is None:
        return None
    if _is(target, ag_ui.AgentFrameworkAgent):
        from .agent_framework import instrumented

        return instrumented(target, options)
    if _is(target, ag_ui.AgentFrameworkWorkflow):
        raise TypeError(
            "moca_agui cites an AgentFrameworkAgent, not yet an AgentFrameworkWorkflow: a "
            "workflow runs its agents in executors the AG-UI wrapper does not expose; serve "
            f"one chat agent instead ({_ONE_LINE})"
        )
    core = sys.modules.get("agent_framework")
    if core is not None and isinstance(target, core.BaseAgent | core.Workflow):
        raise TypeError(
            "moca_agui instruments the AG-UI wrapper that serves an Agent Framework agent, "
            f"not the agent: {_ONE_LINE}, then add_agent_framework_fastapi_endpoint(app, "
            'agent, "/")'
        )
    return None


@hookimpl
def moca_numbered(target: object, name: str | None) -> object | None:
    tool = getattr(sys.modules.get("agent_framework"), "FunctionTool", None)
    if tool is None or not isinstance(target, tool):  # not imported, or not the framework
        return None
    from .agent_framework import numbered_tool

    made: object = numbered_tool(target, name)
    return made


@hookimpl
def moca_install_hint() -> str:
    return (
        "a Microsoft Agent Framework `AgentFrameworkAgent` class or instance: "
        f"{pip_install('agent-framework')}"
    )


def _is(target: object, cls: type) -> bool:
    return isinstance(target, cls) or (isinstance(target, type) and issubclass(target, cls))
