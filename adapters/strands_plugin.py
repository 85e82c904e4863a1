"""The Strands adapter's plugin: claims ag-ui-strands' `StrandsAgent` instances.

Imports without Strands: it looks the framework up in `sys.modules`, so a target can
only be one of its objects if the application imported it already.
"""

from __future__ import annotations

from moca_agui import CitationOptions, hookimpl
from moca_agui._imported import instance_of, subclass_of
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument", "moca_numbered"]

_ONE_LINE = 'agent = moca_agui.instrument(StrandsAgent(agent=strands_agent, name="..."))'


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    if instance_of(target, "ag_ui_strands:StrandsAgent"):
        from .strands import citing

        instrumented: object = citing(target, options)
        return instrumented
    if subclass_of(target, "ag_ui_strands:StrandsAgent"):
        raise TypeError(
            f"moca_agui instruments a StrandsAgent instance, not its class: {_ONE_LINE}"
        )
    if instance_of(target, "strands:Agent"):
        raise TypeError(
            "moca_agui instruments the AG-UI agent that serves a Strands Agent, not the "
            f"Agent: {_ONE_LINE}"
        )
    return None


@hookimpl
def moca_numbered(target: object) -> object | None:
    if instance_of(target, "strands.types.tools:AgentTool"):
        from ._strands_numbered import NumberedTool

        return NumberedTool(target)
    return None


@hookimpl
def moca_install_hint() -> str:
    return f"an AWS Strands `StrandsAgent` (ag-ui-strands): {pip_install('strands')}"
