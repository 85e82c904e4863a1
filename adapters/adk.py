"""Google ADK (`ag_ui_adk`): citations from an `ADKAgent`, with one line.

    agent = moca_agui.instrument(ADKAgent(adk_agent=root_agent, app_name=..., user_id=...))
    agent = moca_agui.instrument(ADKAgent.from_app(app, user_id=...))
    add_adk_fastapi_endpoint(app, agent, path="/")

Reader results are captured from each tool's own return value (a function tool's, or
an MCP toolset's `CallToolResult`) by an ADK plugin on the run's `Runner`, never from
the JSON sent to the client; a long-running tool's return counts too.
"""

from __future__ import annotations

from moca_agui.adapter import require

require("Google ADK", "adk", "ag_ui_adk", "google.adk")

from ._adk import ADKRun, CitingADKAgent, citing  # noqa: E402

__all__ = ["ADKRun", "CitingADKAgent", "citing"]
