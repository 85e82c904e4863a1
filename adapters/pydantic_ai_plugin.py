"""The Pydantic AI adapter's plugin: claims `AGUIAdapter` classes and instances.

Imports without Pydantic AI: it looks the framework up in `sys.modules`, so a target
can only be one of its objects if the application imported it already.
"""

from __future__ import annotations

import sys

from moca_agui import CitationOptions, hookimpl
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument", "moca_numbered"]


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    ag_ui = sys.modules.get("pydantic_ai.ui.ag_ui")
    adapter = getattr(ag_ui, "AGUIAdapter", None)
    if adapter is not None and (
        isinstance(target, adapter) or (isinstance(target, type) and issubclass(target, adapter))
    ):
        from .pydantic_ai import instrumented

        return instrumented(target, options)
    agent_module = sys.modules.get("pydantic_ai.agent")
    agent = getattr(agent_module, "AbstractAgent", None)
    if agent is not None and isinstance(target, agent):
        raise TypeError(
            "moca_agui instruments Pydantic AI's AG-UI adapter, not the agent: keep the "
            "agent and add `AGUIAdapter = moca_agui.instrument(AGUIAdapter)` after "
            "`from pydantic_ai.ui.ag_ui import AGUIAdapter`"
        )
    return None


@hookimpl
def moca_numbered(target: object) -> object | None:
    toolset = getattr(sys.modules.get("pydantic_ai.toolsets"), "AbstractToolset", None)
    if toolset is not None and isinstance(target, toolset):
        from ._pydantic_ai_numbered import numbered_toolset

        return numbered_toolset(target)
    return None


@hookimpl
def moca_install_hint() -> str:
    return f"a Pydantic AI `AGUIAdapter` class or instance: {pip_install('pydantic-ai')}"
