"""The Google ADK adapter's plugin: claims ag-ui-adk `ADKAgent` classes and instances.

Imports nothing of ADK (see `moca_agui.adapter.Adapter`).
"""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    serves="a Google ADK `ADKAgent` (ag-ui-adk) class or instance",
    extra="adk",
    one_line=(
        "`agent = moca_agui.instrument(ADKAgent(adk_agent=root_agent, ...))` or "
        "`moca_agui.instrument(ADKAgent.from_app(app, ...))`, then pass `agent` to "
        "add_adk_fastapi_endpoint"
    ),
    instruments={"ag_ui_adk:ADKAgent": "moca_agui.adapters.adk:citing"},
    refuses={
        "google.adk.agents.base_agent:BaseAgent": "the ADK agent",
        "google.adk.apps.app:App": "the ADK App",
    },
)
moca_instrument, moca_numbered, moca_install_hint = ADAPTER.hookimpls()
