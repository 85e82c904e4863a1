"""The CrewAI plugin (ag-ui-crewai): claims CrewAI `Flow` and `Crew` instances.

ag-ui-crewai writes its SSE itself (there is no agent object to wrap), sends each
TOOL_CALL_RESULT with the tool's whole return value, and carries an agent's answer in
MESSAGES_SNAPSHOT under an id it makes (its flows stream no text), after the run's
question: the ASGI middleware around the app cites that answer under that id.

It sends each tool call as it finishes, under an id it makes, while CrewAI gives the model
a response's results in the order it issued the calls: the declaration says so of its
endpoints, and a default marker whose source depends on that order is left out. An
instrumented flow or crew learns that order in process and hands it to the middleware's
run (`moca_agui.adapters.crewai`).
"""

from __future__ import annotations

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.adapters.crewai",
    "a CrewAI `Flow` or `Crew` served by ag-ui-crewai, with CitationMiddleware around the app",
    one_line="add_crewai_flow_fastapi_endpoint(app, moca_agui.instrument(flow), path) (a crew: "
    "return moca_agui.instrument(Crew(...)) from crew()), then "
    "app.add_middleware(CitationMiddleware)",
    extra="crewai",
    instances=("crewai.flow.flow:Flow", "crewai.crew:Crew"),
    classes=False,
    unordered_endpoints=("ag_ui_crewai.endpoint",),
)
