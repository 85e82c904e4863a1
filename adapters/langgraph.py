"""LangGraph (ag-ui-langgraph): citations from a `LangGraphAgent`, with one line.

    agent = moca_agui.instrument(LangGraphAgent(name="support", graph=graph))
    add_langgraph_fastapi_endpoint(app, agent, "/")

The instrumented agent is a `LangGraphAgent` of your agent's own class (with
`CitingAgent` mixed in), and it survives the `clone()` that the FastAPI endpoint makes
for every request. Reader results are read from LangGraph's own tool outputs, so the
records in a `response_format="content_and_artifact"` tool's artifact and in MCP
content blocks count too.
"""

from __future__ import annotations

from moca_agui.adapter import require

require("LangGraph", "langgraph", "ag_ui_langgraph", "langgraph.graph")

from ._langgraph_agent import CitingAgent, citing  # noqa: E402
from ._langgraph_numbered import numbered_tool  # noqa: E402

__all__ = ["CitingAgent", "citing", "numbered_tool"]
