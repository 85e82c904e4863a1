"""The Google ADK adapter's plugin: claims ag-ui-adk `ADKAgent` classes and instances.

Imports without ADK: it looks the framework up in `sys.modules`, so a target can only
be one of its objects if the application imported it already.
"""

from __future__ import annotations

from moca_agui import CitationOptions, hookimpl
from moca_agui._imported import instance_of, instance_or_subclass_of
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument"]


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    if instance_or_subclass_of(target, "ag_ui_adk:ADKAgent"):
        from .adk import instrumented

        return instrumented(target, options)
    if instance_of(target, "google.adk.agents.base_agent:BaseAgent", "google.adk.apps.app:App"):
        raise TypeError(
            "moca_agui instruments ag-ui-adk's ADKAgent, not the ADK agent or App: "
            "`agent = moca_agui.instrument(ADKAgent(adk_agent=root_agent, ...))` or "
            "`moca_agui.instrument(ADKAgent.from_app(app, ...))`, then pass `agent` to "
            "add_adk_fastapi_endpoint"
        )
    return None


@hookimpl
def moca_install_hint() -> str:
    return f"a Google ADK `ADKAgent` (ag-ui-adk) class or instance: {pip_install('adk')}"
