"""The Pydantic AI adapter's plugin: claims `AGUIAdapter` classes and instances.

Imports without Pydantic AI: it looks the framework up in `sys.modules`, so a target
can only be one of its objects if the application imported it already.
"""

from __future__ import annotations

from moca_agui import CitationOptions, hookimpl
from moca_agui._imported import instance_of, instance_or_subclass_of
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument", "moca_numbered"]


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    if instance_or_subclass_of(target, "pydantic_ai.ui.ag_ui:AGUIAdapter"):
        from .pydantic_ai import instrumented

        return instrumented(target, options)
    if instance_of(target, "pydantic_ai.agent:AbstractAgent"):
        raise TypeError(
            "moca_agui instruments Pydantic AI's AG-UI adapter, not the agent: keep the "
            "agent and add `AGUIAdapter = moca_agui.instrument(AGUIAdapter)` after "
            "`from pydantic_ai.ui.ag_ui import AGUIAdapter`"
        )
    return None


@hookimpl
def moca_numbered(target: object) -> object | None:
    if instance_of(target, "pydantic_ai.toolsets:AbstractToolset"):
        from ._pydantic_ai_numbered import numbered_toolset

        return numbered_toolset(target)
    return None


@hookimpl
def moca_install_hint() -> str:
    return f"a Pydantic AI `AGUIAdapter` class or instance: {pip_install('pydantic-ai')}"
