"""The Microsoft Agent Framework adapter's plugin: claims `AgentFrameworkAgent` classes
and instances.

Imports without the framework: it looks it up in `sys.modules`, so a target can only be
one of its objects if the application imported it already.
"""

from __future__ import annotations

import sys

from moca_agui import CitationOptions, hookimpl
from moca_agui._imported import instance_of, instance_or_subclass_of
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument", "moca_numbered"]

_ONE_LINE = "agent = moca_agui.instrument(AgentFrameworkAgent(agent=chat_agent))"


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    if "agent_framework_ag_ui" not in sys.modules:
        return None
    if instance_or_subclass_of(target, "agent_framework_ag_ui:AgentFrameworkAgent"):
        from .agent_framework import instrumented

        return instrumented(target, options)
    if instance_or_subclass_of(target, "agent_framework_ag_ui:AgentFrameworkWorkflow"):
        raise TypeError(
            "moca_agui cites an AgentFrameworkAgent, not yet an AgentFrameworkWorkflow: a "
            "workflow runs its agents in executors the AG-UI wrapper does not expose; serve "
            f"one chat agent instead ({_ONE_LINE})"
        )
    if instance_of(target, "agent_framework:BaseAgent", "agent_framework:Workflow"):
        raise TypeError(
            "moca_agui instruments the AG-UI wrapper that serves an Agent Framework agent, "
            f"not the agent: {_ONE_LINE}, then add_agent_framework_fastapi_endpoint(app, "
            'agent, "/")'
        )
    return None


@hookimpl
def moca_numbered(target: object, name: str | None) -> object | None:
    if not instance_of(target, "agent_framework:FunctionTool"):
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
