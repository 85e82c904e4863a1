"""The LangGraph adapter's plugin: claims ag-ui-langgraph's `LangGraphAgent` instances.

Imports nothing of LangGraph (see `moca_agui.adapter.Adapter`).
"""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    serves="a LangGraph `LangGraphAgent` (ag-ui-langgraph)",
    extra="langgraph",
    one_line="agent = moca_agui.instrument(LangGraphAgent(name=..., graph=graph))",
    instruments={"ag_ui_langgraph:LangGraphAgent": "moca_agui.adapters.langgraph:citing"},
    classes=False,
    refuses={"langgraph.pregel:Pregel": "the graph"},
    numbers={"langchain_core.tools:BaseTool": "moca_agui.adapters.langgraph:numbered_tool"},
)
moca_instrument, moca_numbered, moca_install_hint = ADAPTER.hookimpls()
