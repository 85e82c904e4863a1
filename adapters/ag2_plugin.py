"""The AG2 plugin: claims AG2's `AGUIStream` instances (ag2[ag-ui]).

AG2 sends each TOOL_CALL_START from inside its own tool task, so the wire does not keep
the order the model issued parallel calls in: the adapter reads that order from the
model's response and serves the stream behind `CitationMiddleware`. AG2's own endpoint
behind the bare middleware is declared to send its calls as they finish: no marker that
depends on their order is guessed there.
"""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.adapters.ag2", "an AG2 `AGUIStream` (ag2[ag-ui])",
    one_line="stream = moca_agui.instrument(AGUIStream(agent)), then mount "
    "`stream.build_asgi()` as before",
    extra="ag2", instances=("ag2.ag_ui:AGUIStream",), classes=False,
    refuses={"ag2:Agent": "an AG2 Agent"},
    unordered_endpoints=("ag2.ag_ui.asgi",),
)  # fmt: skip
