"""Pydantic AI (`pydantic_ai.ui.ag_ui`): citations from an `AGUIAdapter`, with one line.

    AGUIAdapter = moca_agui.instrument(AGUIAdapter)     # dispatch_request and run_stream
    adapter = moca_agui.instrument(AGUIAdapter(agent=agent, run_input=run_input))

Reader results are captured from each tool's raw return value (a function tool, a
`ToolReturn`, or an MCP toolset's tool), never from the JSON sent to the client.
"""

from __future__ import annotations

from moca_agui._install import pip_install

try:
    import pydantic_ai.ui.ag_ui  # noqa: F401
except ImportError as exc:
    raise ImportError(
        "moca_agui's Pydantic AI adapter needs Pydantic AI with its AG-UI extra: "
        f"{pip_install('pydantic-ai')} ({exc})"
    ) from exc

from ._pydantic_ai import CitingAdapter, instrumented

__all__ = ["CitingAdapter", "instrumented"]
