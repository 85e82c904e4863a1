"""CrewAI (ag-ui-crewai): a flow or crew whose runs cite in the model's order.

    add_crewai_flow_fastapi_endpoint(app, moca_agui.instrument(flow), "/")
    app.add_middleware(CitationMiddleware)

ag-ui-crewai writes the SSE itself, so `CitationMiddleware` around the app cites it. What
its wire does not keep is the order the model read its Reader results in: it sends each
tool call as it finishes, under an id it makes. The instrumented flow (or crew, returned
by the `crew()` the crew endpoint calls) learns that order in process, from each model
call's messages, and hands it to the middleware's run.
"""

from __future__ import annotations

from moca_agui.adapter import require

require("CrewAI", "crewai", "crewai", "crewai.hooks.dispatch")

from ._crewai import CitingCrew, CitingFlow, ModelOrder, citing  # noqa: E402

__all__ = ["CitingCrew", "CitingFlow", "ModelOrder", "citing"]
