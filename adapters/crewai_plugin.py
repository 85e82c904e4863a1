"""The CrewAI plugin (ag-ui-crewai): its endpoint is cited by the ASGI middleware.

The middleware suffices: ag-ui-crewai writes its SSE itself (there is no agent object to
wrap), sends each TOOL_CALL_RESULT with the tool's whole return value, and carries an
agent's answer in MESSAGES_SNAPSHOT under an id it makes (its flows stream no text), after
the run's question: the middleware cites that answer under that id. `instrument` on a
flow or a crew names the line.

It sends each tool call as it finishes, under an id it makes, while CrewAI gives the model
a response's results in the order it issued the calls: the declaration says so of its
endpoints, and a default marker whose source depends on that order is left out.
"""

from __future__ import annotations

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.asgi",
    "a CrewAI flow or crew served by ag-ui-crewai's FastAPI endpoint: not through "
    "instrument, the middleware around the app",
    one_line="app.add_middleware(CitationMiddleware) on the FastAPI app that "
    "add_crewai_flow_fastapi_endpoint(app, flow, path) (or the crew endpoint) serves",
    extra="crewai",
    refuses={"crewai.flow.flow:Flow": "a CrewAI Flow", "crewai.crew:Crew": "a CrewAI Crew"},
    unordered_endpoints=("ag_ui_crewai.endpoint",),
)
