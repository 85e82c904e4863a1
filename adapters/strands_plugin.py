"""The Strands adapter's plugin: claims ag-ui-strands' `StrandsAgent` instances.

Imports nothing of Strands (see `moca_agui.adapter.Adapter`).
"""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    serves="an AWS Strands `StrandsAgent` (ag-ui-strands)",
    extra="strands",
    one_line='agent = moca_agui.instrument(StrandsAgent(agent=strands_agent, name="..."))',
    instruments={"ag_ui_strands:StrandsAgent": "moca_agui.adapters.strands:citing"},
    classes=False,
    refuses={"strands:Agent": "the Agent"},
    numbers={"strands.types.tools:AgentTool": "moca_agui.adapters.strands:NumberedTool"},
)
moca_instrument, moca_numbered, moca_install_hint = ADAPTER.hookimpls()
