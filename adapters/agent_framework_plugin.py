"""The Microsoft Agent Framework adapter's plugin: claims `AgentFrameworkAgent` classes
and instances.

Imports nothing of the framework (see `moca_agui.adapter.Adapter`).
"""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    serves="a Microsoft Agent Framework `AgentFrameworkAgent` class or instance",
    extra="agent-framework",
    one_line=(
        "agent = moca_agui.instrument(AgentFrameworkAgent(agent=chat_agent)), then "
        'add_agent_framework_fastapi_endpoint(app, agent, "/")'
    ),
    instruments={
        "agent_framework_ag_ui:AgentFrameworkAgent": "moca_agui.adapters.agent_framework:citing"
    },
    refuses={
        "agent_framework_ag_ui:AgentFrameworkWorkflow": (
            "yet an AgentFrameworkWorkflow (a workflow runs its agents in executors the "
            "AG-UI wrapper does not expose; serve one chat agent)"
        ),
        "agent_framework:BaseAgent": "the chat agent",
        "agent_framework:Workflow": "a workflow",
    },
    numbers={"agent_framework:FunctionTool": "moca_agui.adapters.agent_framework:numbered_tool"},
)
moca_instrument, moca_numbered, moca_install_hint = ADAPTER.hookimpls()
