"""The `llama-index` plugin: claims LlamaIndex AG-UI workflows for `moca_agui.instrument`.

Imports nothing of LlamaIndex: a target can only be a LlamaIndex workflow, or the
factory of one, if `llama_index.protocols.ag_ui` is already imported. Beyond what an
`Adapter` declares, it takes the workflow factory `get_ag_ui_workflow_router` is given,
and names the factory when given the router.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeGuard

from moca_agui import CitationOptions
from moca_agui.adapter import Adapter, instance_of

_ROUTER = "llama_index.protocols.ag_ui.router:AGUIWorkflowRouter"


class _LlamaIndexAdapter(Adapter):
    def claim(self, target: object) -> Callable[[Any, CitationOptions], object] | None:
        if "llama_index.protocols.ag_ui.agent" not in sys.modules:  # else a callable is a factory
            return None
        if _is_router(target):
            raise TypeError(
                f"moca_agui instruments the workflow factory, not the router: {self.one_line}"
            )
        claimed = super().claim(target)
        if claimed is None and _is_factory(target):  # `workflow_factory` of the router
            return self._function("citing_workflow_factory")
        return claimed


ADAPTER = _LlamaIndexAdapter(
    "moca_agui.adapters.llama_index",
    "a LlamaIndex `AGUIChatWorkflow`, subclass or workflow factory",
    one_line="get_ag_ui_workflow_router(workflow_factory=moca_agui.instrument(workflow_factory))",
    extra="llama-index", instances=("llama_index.protocols.ag_ui.agent:AGUIChatWorkflow",),
    refuses={"llama_index.protocols.ag_ui.agent:Workflow": "another workflow (for a workflow "
             "that writes its own AG-UI events, wrap them with moca_agui.cite)"},
    tools=("llama_index.core.tools:FunctionTool",),
)  # fmt: skip


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
