"""The `llama-index` plugin: claims LlamaIndex AG-UI workflows for `moca_agui.instrument`.

Imports nothing of LlamaIndex: a target can only be a LlamaIndex workflow, or the
factory of one, if `llama_index.protocols.ag_ui` is already imported.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeGuard

from moca_agui import CitationOptions, hookimpl
from moca_agui._imported import instance_of, instance_or_subclass_of, subclass_of
from moca_agui._install import pip_install

_WORKFLOW = "llama_index.protocols.ag_ui.agent:AGUIChatWorkflow"
_ROUTER = "llama_index.protocols.ag_ui.router:AGUIWorkflowRouter"
_ONE_LINE = "get_ag_ui_workflow_router(workflow_factory=moca_agui.instrument(workflow_factory))"


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    if "llama_index.protocols.ag_ui.agent" not in sys.modules:  # else a callable is a factory
        return None
    if subclass_of(target, _WORKFLOW):
        from .llama_index import cited_workflow_class

        return cited_workflow_class(target, options)
    if instance_of(target, _WORKFLOW):
        from .llama_index import cited_workflow

        cited: object = cited_workflow(target, options)
        return cited
    if _is_factory(target):  # `workflow_factory` of get_ag_ui_workflow_router
        from .llama_index import cited_factory

        return cited_factory(target, options)
    if _is_router(target):
        raise TypeError(f"moca_agui instruments the workflow factory, not the router: {_ONE_LINE}")
    if instance_or_subclass_of(target, "llama_index.protocols.ag_ui.agent:Workflow"):
        raise TypeError(
            "moca_agui cites LlamaIndex's AGUIChatWorkflow (or a subclass) and the factories "
            f"that make one: {_ONE_LINE}; for a workflow that writes its own AG-UI events, "
            "wrap them with moca_agui.cite"
        )
    return None


def _is_router(target: object) -> bool:
    """An AGUIWorkflowRouter, or the APIRouter `get_ag_ui_workflow_router` returned."""
    if instance_of(target, _ROUTER):
        return True
    routes = getattr(target, "routes", None)
    return isinstance(routes, list) and any(
        instance_of(getattr(getattr(route, "endpoint", None), "__self__", None), _ROUTER)
        for route in routes
    )


def _is_factory(target: object) -> TypeGuard[Callable[[], Any]]:
    """A callable taking no argument, as `get_ag_ui_workflow_router` calls its factory."""
    if isinstance(target, type) or not callable(target) or inspect.isasyncgenfunction(target):
        return False
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return False
    return all(
        parameter.default is not parameter.empty
        or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        for parameter in signature.parameters.values()
    )


@hookimpl
def moca_numbered(target: object) -> object | None:
    if instance_of(target, "llama_index.core.tools:FunctionTool"):
        from ._llama_index_numbered import numbered_tool

        numbered: object = numbered_tool(target)
        return numbered
    return None


@hookimpl
def moca_install_hint() -> str:
    return (
        "a LlamaIndex `AGUIChatWorkflow`, subclass or workflow factory: "
        f"{pip_install('llama-index')}"
    )
