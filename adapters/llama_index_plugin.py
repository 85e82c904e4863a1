"""The `llama-index` plugin: claims LlamaIndex AG-UI workflows for `moca_agui.instrument`.

Imports nothing of LlamaIndex: a target can only be a LlamaIndex workflow, or the
factory of one, if `llama_index.protocols.ag_ui` is already imported.
"""

from __future__ import annotations

import inspect
import sys
from typing import TYPE_CHECKING

from moca_agui import CitationOptions, hookimpl

if TYPE_CHECKING:
    from llama_index.core.workflow import Workflow


@hookimpl
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    agent = sys.modules.get("llama_index.protocols.ag_ui.agent")
    if agent is None:
        return None
    workflow_class: type[Workflow] = agent.AGUIChatWorkflow
    if isinstance(target, type):
        if not issubclass(target, workflow_class):
            return None
        from .llama_index import cited_workflow_class

        return cited_workflow_class(target, options)
    if isinstance(target, workflow_class):
        from .llama_index import cited_workflow

        return cited_workflow(target, options)
    if inspect.iscoroutinefunction(target):  # `workflow_factory` of get_ag_ui_workflow_router
        from .llama_index import cited_factory

        return cited_factory(target, options)
    return None
