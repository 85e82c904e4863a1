"""What `moca_agui.instrument` accepts from LlamaIndex: a workflow factory, an
AGUIChatWorkflow subclass, or an AGUIChatWorkflow instance."""

from __future__ import annotations

import copy
import functools
import inspect
import logging
import types
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from llama_index.core.workflow import Workflow
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow  # type: ignore[import-untyped]

from moca_agui import CitationOptions

from ._llama_index_workflow import CitingWorkflow

__all__ = ["cited_factory", "cited_workflow", "cited_workflow_class"]

logger = logging.getLogger("moca_agui")

W = TypeVar("W", bound=Workflow)
Factory = Callable[[], Awaitable[Workflow] | Workflow]


def cited_workflow_class(cls: type[W], options: CitationOptions) -> type[W]:
    """A subclass of `cls` (an AGUIChatWorkflow subclass) whose runs send citations."""
    bases = (cls,) if issubclass(cls, CitingWorkflow) else (CitingWorkflow, cls)
    namespace = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "_moca_options": options,
    }
    cited = types.new_class(cls.__name__, bases, exec_body=lambda ns: ns.update(namespace))
    steps: dict[str, Any] = cast(Any, cited)._step_functions
    steps.update(cls._step_functions)  # free-function steps added with `cls.add_step`
    return cited


def cited_workflow(
    workflow: W, options: CitationOptions, classes: dict[type, type] | None = None
) -> W:
    """A copy of `workflow` (an AGUIChatWorkflow) whose runs send citations.

    The copy shares the original's LLM, tools and settings; the original is unchanged.
    `classes` caches the cited class of each workflow class (one per factory).
    """
    cited = copy.copy(workflow)
    if not isinstance(cited, CitingWorkflow):
        cls = type(workflow)
        if classes is None:
            cited.__class__ = cited_workflow_class(cls, options)
        else:
            if cls not in classes:
                classes[cls] = cited_workflow_class(cls, options)
            cited.__class__ = classes[cls]
    vars(cited).pop("_moca_agui_runs", None)  # run state is never shared with the original
    cited._moca_options = options  # type: ignore[attr-defined]
    return cited


def cited_factory(factory: Factory, options: CitationOptions) -> Factory:
    """A workflow factory for `get_ag_ui_workflow_router` whose workflows send citations."""
    classes: dict[type, type] = {}

    @functools.wraps(factory)
    async def cited() -> Workflow:
        made = factory()  # an `async def` factory, or a function returning an awaitable
        workflow: Workflow = await made if inspect.isawaitable(made) else made
        if not isinstance(workflow, AGUIChatWorkflow):
            logger.warning(
                "moca_agui: %s returned a %s, not an AGUIChatWorkflow: no citations for "
                "this run. Instrument the factory of an AGUIChatWorkflow, or wrap your own "
                "AG-UI events with moca_agui.cite.",
                getattr(factory, "__qualname__", factory),
                type(workflow).__qualname__,
            )
            return workflow
        return cited_workflow(cast(Workflow, workflow), options, classes)

    return cited
