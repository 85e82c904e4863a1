"""Google ADK (`ag_ui_adk`): citations from an `ADKAgent`, with one line.

    agent = moca_agui.instrument(ADKAgent(adk_agent=root_agent, app_name=..., user_id=...))
    agent = moca_agui.instrument(ADKAgent.from_app(app, user_id=...))
    add_adk_fastapi_endpoint(app, agent, path="/")

Reader results are captured from each tool's own return value (a function tool's, or
an MCP toolset's `CallToolResult`) by an ADK plugin on the run's `Runner`, never from
the JSON sent to the client; a long-running tool's return counts too.
"""

from __future__ import annotations

try:
    import ag_ui_adk  # type: ignore[import-untyped]  # noqa: F401
    import google.adk  # noqa: F401
except ImportError as exc:
    raise ImportError(
        "moca_agui's Google ADK adapter needs ag-ui-adk and google-adk: "
        "pip install -e '.[adk]' from a clone of moca-agui "
        f"(once released: pip install 'moca-agui[adk]') ({exc})"
    ) from exc

from ._adk import ADKRun, CitingADKAgent, instrumented

__all__ = ["ADKRun", "CitingADKAgent", "instrumented"]
