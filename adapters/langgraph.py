"""LangGraph (ag-ui-langgraph): citations from a `LangGraphAgent`, with one line.

    agent = moca_agui.instrument(LangGraphAgent(name="support", graph=graph))
    add_langgraph_fastapi_endpoint(app, agent, "/")

The instrumented agent is a `LangGraphAgent` of your agent's own class (with
`CitingAgent` mixed in), and it survives the `clone()` that the FastAPI endpoint makes
for every request. Reader results are read from LangGraph's own tool outputs, so the
records in a `response_format="content_and_artifact"` tool's artifact and in MCP
content blocks count too.
"""

from __future__ import annotations

from moca_agui._install import pip_install

try:
    import ag_ui_langgraph  # type: ignore[import-untyped]  # noqa: F401
    import langgraph.graph  # noqa: F401
except ImportError as exc:
    raise ImportError(
        "moca_agui's LangGraph adapter needs ag-ui-langgraph and LangGraph: "
        f"{pip_install('langgraph')} ({exc})"
    ) from exc

from ._langgraph_agent import CitingAgent, citing

__all__ = ["CitingAgent", "citing"]
