"""The Microsoft Agent Framework adapter's plugin: claims `AgentFrameworkAgent` classes
and instances."""

from moca_agui.adapter import Adapter

_WORKFLOW = (
    "yet an AgentFrameworkWorkflow (a workflow runs its agents in executors the AG-UI "
    "wrapper does not expose; serve one chat agent)"
)
ADAPTER = Adapter(
    "moca_agui.adapters.agent_framework",
    "a Microsoft Agent Framework `AgentFrameworkAgent` class or instance",
    one_line="agent = moca_agui.instrument(AgentFrameworkAgent(agent=chat_agent)), then "
    'add_agent_framework_fastapi_endpoint(app, agent, "/")',
    extra="agent-framework", instances=("agent_framework_ag_ui:AgentFrameworkAgent",),
    refuses={"agent_framework_ag_ui:AgentFrameworkWorkflow": _WORKFLOW,
             "agent_framework:BaseAgent": "the chat agent",
             "agent_framework:Workflow": "a workflow"},
    tools=("agent_framework:FunctionTool",),
)  # fmt: skip
