"""Pydantic AI (`pydantic_ai.ui.ag_ui`): citations from an `AGUIAdapter`, with one line.

    AGUIAdapter = moca_agui.instrument(AGUIAdapter)     # dispatch_request and run_stream
    adapter = moca_agui.instrument(AGUIAdapter(agent=agent, run_input=run_input))

Reader results are captured from each tool's raw return value (a function tool, a
`ToolReturn`, or an MCP toolset's tool), never from the JSON sent to the client.
"""

from __future__ import annotations

from moca_agui.adapter import require

require("Pydantic AI", "pydantic-ai", "pydantic_ai.ui.ag_ui")

from ._pydantic_ai import CitingAdapter, citing  # noqa: E402
from ._pydantic_ai_numbered import NumberedToolset, numbered_tool  # noqa: E402

__all__ = ["CitingAdapter", "NumberedToolset", "citing", "numbered_tool"]
