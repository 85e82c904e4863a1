"""AG2 (ag2[ag-ui]): citations from an `AGUIStream`, with one line.

    stream = moca_agui.instrument(AGUIStream(agent))
    app.mount("", stream.build_asgi())

AG2's `AGUIStream` yields already-encoded SSE, so the instrumented stream's
`build_asgi()` serves its endpoint behind `moca_agui.asgi.CitationMiddleware`, which reads
each TOOL_CALL_RESULT whole. What the wire does not keep is the order the model issued
its calls: AG2 sends each TOOL_CALL_START from inside that tool's own task, so two
parallel Reader calls may reach the wire in either order. The instrumented stream adds an
AG2 middleware to each run that reads the model's response (its tool calls, in the
model's order) before any tool runs, and hands that order to the run.
"""

from __future__ import annotations

from moca_agui.adapter import require

require("AG2", "ag2", "ag2.ag_ui")

from ._ag2 import CitingAGUIStream, ModelOrder, citing  # noqa: E402

__all__ = ["CitingAGUIStream", "ModelOrder", "citing"]
