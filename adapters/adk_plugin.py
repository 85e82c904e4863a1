"""The Google ADK adapter's plugin: claims ag-ui-adk `ADKAgent` classes and instances.

Imports without ADK: it looks the framework up in `sys.modules`, so a target can only
be one of its objects if the application imported it already.
"""

from __future__ import annotations

import sys

from moca_agui import CitationOptions, hookimpl
from moca_agui._install import pip_install

__all__ = ["moca_install_hint", "moca_instrument"]


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    agent = getattr(sys.modules.get("ag_ui_adk"), "ADKAgent", None)
    if agent is not None and (
        isinstance(target, agent) or (isinstance(target, type) and issubclass(target, agent))
    ):
        from .adk import instrumented

        return instrumented(target, options)
    base_agent = getattr(sys.modules.get("google.adk.agents.base_agent"), "BaseAgent", None)
    app = getattr(sys.modules.get("google.adk.apps.app"), "App", None)
    if (base_agent is not None and isinstance(target, base_agent)) or (
        app is not None and isinstance(target, app)
    ):
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
