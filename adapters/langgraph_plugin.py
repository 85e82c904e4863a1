"""The LangGraph adapter's plugin: claims ag-ui-langgraph's `LangGraphAgent` instances."""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.adapters.langgraph", "a LangGraph `LangGraphAgent` (ag-ui-langgraph)",
    extra="langgraph", classes=False, refuses={"langgraph.pregel:Pregel": "the graph"},
    one_line="agent = moca_agui.instrument(LangGraphAgent(name=..., graph=graph))",
    instances=("ag_ui_langgraph:LangGraphAgent",), tools=("langchain_core.tools:BaseTool",),
)  # fmt: skip
