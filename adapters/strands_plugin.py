"""The Strands adapter's plugin: claims ag-ui-strands' `StrandsAgent` instances."""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.adapters.strands", "an AWS Strands `StrandsAgent` (ag-ui-strands)",
    one_line='agent = moca_agui.instrument(StrandsAgent(agent=strands_agent, name="..."))',
    extra="strands", instances=("ag_ui_strands:StrandsAgent",), classes=False,
    refuses={"strands:Agent": "the Agent"}, tools=("strands.types.tools:AgentTool",),
)  # fmt: skip
