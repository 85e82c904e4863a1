"""The Google ADK adapter's plugin: claims ag-ui-adk `ADKAgent` classes and instances."""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.adapters.adk", "a Google ADK `ADKAgent` (ag-ui-adk) class or instance",
    one_line="`agent = moca_agui.instrument(ADKAgent(adk_agent=root_agent, ...))` or "
    "`moca_agui.instrument(ADKAgent.from_app(app, ...))`, then pass `agent` to "
    "add_adk_fastapi_endpoint",
    extra="adk", instances=("ag_ui_adk:ADKAgent",),
    refuses={"google.adk.agents.base_agent:BaseAgent": "the ADK agent",
             "google.adk.apps.app:App": "the ADK App"},
)  # fmt: skip
