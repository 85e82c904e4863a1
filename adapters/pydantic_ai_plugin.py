"""The Pydantic AI adapter's plugin: claims `AGUIAdapter` classes and instances."""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    "moca_agui.adapters.pydantic_ai", "a Pydantic AI `AGUIAdapter` class or instance",
    extra="pydantic-ai", instances=("pydantic_ai.ui.ag_ui:AGUIAdapter",),
    one_line="keep the agent and add `AGUIAdapter = moca_agui.instrument(AGUIAdapter)` after "
    "`from pydantic_ai.ui.ag_ui import AGUIAdapter`",
    refuses={"pydantic_ai.agent:AbstractAgent": "the agent"},
    tools=("pydantic_ai.toolsets:AbstractToolset",),
)  # fmt: skip
