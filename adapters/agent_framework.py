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

from moca_agui._install import pip_install

try:
    import agent_framework  # noqa: F401
    import agent_framework_ag_ui  # noqa: F401
except ImportError as exc:
    raise ImportError(
        "moca_agui's Microsoft Agent Framework adapter needs agent-framework-ag-ui: "
        f"{pip_install('agent-framework')} ({exc})"
    ) from exc

from ._agent_framework import CitingAgentFrameworkAgent, instrumented
from ._agent_framework_numbered import numbered_tool

__all__ = ["CitingAgentFrameworkAgent", "instrumented", "numbered_tool"]
