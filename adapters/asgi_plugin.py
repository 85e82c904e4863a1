"""The ASGI middleware's install hint: services that give no event stream to instrument
(Agno, CrewAI, the Claude Agent SDK's endpoint) are cited around their ASGI app."""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.asgi",
    "any ASGI app streaming AG-UI as SSE (Agno, CrewAI, the Claude Agent SDK's endpoint): "
    "not through instrument, wrap the app in `moca_agui.asgi.CitationMiddleware`",
)
