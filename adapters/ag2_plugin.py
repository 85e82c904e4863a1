"""The AG2 plugin: AG2's `AGUIStream` yields SSE text, not events, so there is nothing to
instrument; `moca_agui.instrument` on one (or its agent) names the middleware instead.

Imports without AG2: it looks the framework up in `sys.modules`.
"""

from __future__ import annotations

from moca_agui import CitationOptions, hookimpl
from moca_agui._imported import instance_or_subclass_of

__all__ = ["moca_install_hint", "moca_instrument"]

_USE_THE_MIDDLEWARE = (
    "AG2's AGUIStream sends encoded SSE, so moca_agui cites it at the ASGI app: "
    "`app = moca_agui.asgi.CitationMiddleware(app)` (or "
    "`app.add_middleware(CitationMiddleware)`) around the app that mounts "
    "`stream.build_asgi()`"
)


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    if instance_or_subclass_of(target, "ag2.ag_ui:AGUIStream", "ag2:Agent"):
        raise TypeError(_USE_THE_MIDDLEWARE)
    return None


@hookimpl
def moca_install_hint() -> str:
    return (
        "any ASGI app streaming AG-UI as SSE (AG2's `AGUIStream`, Agno, CrewAI): not through "
        "instrument, wrap the app in `moca_agui.asgi.CitationMiddleware` (no extra needed)"
    )
