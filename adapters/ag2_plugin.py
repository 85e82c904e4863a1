"""The AG2 plugin: AG2's `AGUIStream` yields SSE text, not events, so there is nothing to
instrument; `moca_agui.instrument` on one (or its agent) names the middleware instead."""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.asgi",
    "any ASGI app streaming AG-UI as SSE (AG2's `AGUIStream`, Agno, CrewAI): not through "
    "instrument, wrap the app in `moca_agui.asgi.CitationMiddleware`",
    one_line="AG2's AGUIStream sends encoded SSE, so moca_agui cites it at the ASGI app: "
    "`app = moca_agui.asgi.CitationMiddleware(app)` (or `app.add_middleware(CitationMiddleware)`) "
    "around the app that mounts `stream.build_asgi()`",
    refuses={"ag2.ag_ui:AGUIStream": "an AGUIStream", "ag2:Agent": "an AG2 Agent"},
)  # fmt: skip
