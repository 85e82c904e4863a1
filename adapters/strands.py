"""AWS Strands (ag-ui-strands): citations from a `StrandsAgent`, with one line.

    agent = moca_agui.instrument(StrandsAgent(agent=strands_agent, name="support"))
    add_strands_fastapi_endpoint(app, agent, "/")

The instrumented agent is a copy of your `StrandsAgent`, of its own class with
`CitingStrandsAgent` mixed in. Reader results are read from each tool's own result
(an `@tool` function's or an MCP client tool's content), as the model is sent it;
a failed call gives no source. `moca_agui.numbered(tools)` turns Strands tools
(`@tool` functions, `MCPClient` tools) into `NumberedTool`s.
"""

from __future__ import annotations

from moca_agui.adapter import require

require("Strands", "strands", "ag_ui_strands", "strands")

from ._strands import CitingStrandsAgent, citing  # noqa: E402
from ._strands_numbered import NumberedTool, numbered_tool  # noqa: E402

__all__ = ["CitingStrandsAgent", "NumberedTool", "citing", "numbered_tool"]
