"""What `moca_agui.instrument` accepts from LlamaIndex: a workflow factory, an
AGUIChatWorkflow subclass, or an AGUIChatWorkflow instance."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from llama_index.core.workflow import Workflow
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow  # type: ignore[import-untyped]

from moca_agui import CitationOptions, citing_class, citing_copy, citing_factory

from ._llama_index_workflow import CitingWorkflow

__all__ = ["cited_factory", "cited_workflow", "cited_workflow_class"]

logger = logging.getLogger("moca_agui")

W = TypeVar("W", bound=Workflow)
Factory = Callable[[], Awaitable[Workflow] | Workflow]


def cited_workflow_class(cls: type[W], options: CitationOptions) -> type[W]:
    """A subclass of `cls` (an AGUIChatWorkflow subclass) whose runs send citations."""
    return _with_free_steps(citing_class(cls, CitingWorkflow, options), cls)


def cited_workflow(workflow: W, options: CitationOptions) -> W:
    """A copy of `workflow` (an AGUIChatWorkflow) whose runs send citations.

    The copy shares the original's LLM, tools and settings; the original is unchanged.
    """
    cited = citing_copy(workflow, CitingWorkflow, options)
    _with_free_steps(type(cited), type(workflow))
    vars(cited).pop("_moca_agui_runs", None)  # run state is never shared with the original
    return cited


def cited_factory(factory: Factory, options: CitationOptions) -> Factory:
    """A workflow factory for `get_ag_ui_workflow_router` whose workflows send citations."""

    def cite_made(workflow: Any) -> Any:
        if not isinstance(workflow, AGUIChatWorkflow):
            logger.warning(
                "moca_agui: %s returned a %s, not an AGUIChatWorkflow: no citations for "
                "this run. Instrument the factory of an AGUIChatWorkflow, or wrap your own "
                "AG-UI events with moca_agui.cite.",
                getattr(factory, "__qualname__", factory),
                type(workflow).__qualname__,
            )
            return workflow
        return cited_workflow(workflow, options)

    return citing_factory(factory, cite_made)


def _with_free_steps(cited: type[W], cls: type[Workflow]) -> type[W]:
    """`cited` with the free-function steps added to `cls` by `cls.add_step`: LlamaIndex
    keeps those per class, and a subclass starts with none."""
    if cited is not cls:
        cited._step_functions.update(cls._step_functions)
    return cited
