"""Microsoft Agent Framework (agent-framework-ag-ui): citations from an
`AgentFrameworkAgent`, with one line.

    agent = moca_agui.instrument(AgentFrameworkAgent(agent=chat_agent))
    add_agent_framework_fastapi_endpoint(app, agent, "/")

The instrumented agent is an `AgentFrameworkAgent` of your wrapper's own class (with
`CitingAgentFrameworkAgent` mixed in); `moca_agui.instrument(AgentFrameworkAgent)`
gives the class. Reader results are read from each tool's own result (function tools and
agent-framework's MCP tools) on the chat agent's streamed updates, never from the
TOOL_CALL_RESULT shown to the client; a failed call gives no source.
"""

from __future__ import annotations

from moca_agui.adapter import require

require("Microsoft Agent Framework", "agent-framework", "agent_framework", "agent_framework_ag_ui")

from ._agent_framework import CitingAgentFrameworkAgent, citing  # noqa: E402
from ._agent_framework_numbered import numbered_tool  # noqa: E402

__all__ = ["CitingAgentFrameworkAgent", "citing", "numbered_tool"]
