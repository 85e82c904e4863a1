"""The AG2 plugin: AG2's `AGUIStream` yields SSE text, not events, so there is nothing to
instrument; `moca_agui.instrument` on one (or its agent) names the middleware instead.

Imports nothing of AG2 (see `moca_agui.adapter.Adapter`).
"""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    serves=(
        "any ASGI app streaming AG-UI as SSE (AG2's `AGUIStream`, Agno, CrewAI): not through "
        "instrument, wrap the app in `moca_agui.asgi.CitationMiddleware`"
    ),
    extra=None,
    one_line=(
        "AG2's AGUIStream sends encoded SSE, so moca_agui cites it at the ASGI app: "
        "`app = moca_agui.asgi.CitationMiddleware(app)` (or "
        "`app.add_middleware(CitationMiddleware)`) around the app that mounts "
        "`stream.build_asgi()`"
    ),
    refuses={"ag2.ag_ui:AGUIStream": "an AGUIStream", "ag2:Agent": "an AG2 Agent"},
)
moca_instrument, moca_numbered, moca_install_hint = ADAPTER.hookimpls()
