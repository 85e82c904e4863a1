"""The Pydantic AI adapter's plugin: claims `AGUIAdapter` classes and instances.

Imports nothing of Pydantic AI (see `moca_agui.adapter.Adapter`).
"""

from moca_agui.adapter import Adapter

ADAPTER = Adapter(
    serves="a Pydantic AI `AGUIAdapter` class or instance",
    extra="pydantic-ai",
    one_line=(
        "keep the agent and add `AGUIAdapter = moca_agui.instrument(AGUIAdapter)` after "
        "`from pydantic_ai.ui.ag_ui import AGUIAdapter`"
    ),
    instruments={"pydantic_ai.ui.ag_ui:AGUIAdapter": "moca_agui.adapters.pydantic_ai:citing"},
    refuses={"pydantic_ai.agent:AbstractAgent": "the agent"},
    numbers={
        "pydantic_ai.toolsets:AbstractToolset": "moca_agui.adapters.pydantic_ai:numbered_toolset"
    },
)
moca_instrument, moca_numbered, moca_install_hint = ADAPTER.hookimpls()
