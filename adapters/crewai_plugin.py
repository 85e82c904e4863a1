"""The CrewAI plugin (ag-ui-crewai): its endpoint is cited by the ASGI middleware.

The middleware suffices: ag-ui-crewai writes its SSE itself (there is no agent object to
wrap), sends each TOOL_CALL_RESULT with the tool's whole return value, and carries an
agent's answer in MESSAGES_SNAPSHOT under an id it makes (its flows stream no text), after
the run's question: the middleware cites that answer under that id. `instrument` on a
flow or a crew names the line.

It sends each tool call as it finishes, under an id it makes, while CrewAI gives the model
a response's results in the order it issued the calls: the plugin tells the middleware
so, and a default marker whose source depends on that order is left out.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from moca_agui.adapter import Adapter, hookimpl

#: The module whose endpoints send tool calls as they finish.
ENDPOINTS = "ag_ui_crewai"


class CrewAIAdapter(Adapter):
    """The declaration, and the one thing the middleware cannot see on the wire."""

    @hookimpl
    def moca_calls_in_model_order(self, scope: Mapping[str, Any], app: object) -> bool | None:
        """False for a request an ag-ui-crewai endpoint of a Starlette `app` answers."""
        if ENDPOINTS not in sys.modules:
            return None
        from starlette.routing import Match

        for route in getattr(app, "routes", ()):
            if route.matches(scope)[0] is Match.FULL:
                module = getattr(getattr(route, "endpoint", None), "__module__", None) or ""
                return False if module.partition(".")[0] == ENDPOINTS else None
        return None


ADAPTER = CrewAIAdapter(
    "moca_agui.asgi",
    "a CrewAI flow or crew served by ag-ui-crewai's FastAPI endpoint: not through "
    "instrument, the middleware around the app",
    one_line="app.add_middleware(CitationMiddleware) on the FastAPI app that "
    "add_crewai_flow_fastapi_endpoint(app, flow, path) (or the crew endpoint) serves",
    extra="crewai",
    refuses={"crewai.flow.flow:Flow": "a CrewAI Flow", "crewai.crew:Crew": "a CrewAI Crew"},
)
