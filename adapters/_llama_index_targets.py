"""What `moca_agui.instrument` accepts from LlamaIndex: a workflow factory, an
AGUIChatWorkflow subclass, or an AGUIChatWorkflow instance."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from llama_index.core.workflow import Workflow
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow  # type: ignore[import-untyped]

from moca_agui import CitationOptions
from moca_agui.adapter import citing_class, citing_copy, citing_factory

from ._llama_index_workflow import CitingWorkflow, with_runs

__all__ = ["citing", "citing_workflow_factory"]

logger = logging.getLogger("moca_agui")

W = TypeVar("W", bound=Workflow)
Factory = Callable[[], Awaitable[Workflow] | Workflow]


def citing(target: W | type[W], options: CitationOptions) -> W | type[W]:
    """A citing subclass of an AGUIChatWorkflow subclass, or a citing copy of an
    AGUIChatWorkflow (sharing the original's LLM, tools and settings; the original is
    unchanged)."""
    if isinstance(target, type):
        return _with_free_steps(citing_class(target, CitingWorkflow, options), target)
    return _citing_workflow(target, options)


def _citing_workflow(workflow: W, options: CitationOptions) -> W:
    cited = citing_copy(workflow, CitingWorkflow, options, copy=with_runs)
    _with_free_steps(type(cited), type(workflow))
    return cited


def citing_workflow_factory(factory: Factory, options: CitationOptions) -> Factory:
    """A workflow factory for `get_ag_ui_workflow_router` whose workflows send citations."""

    def cite_made(workflow: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(workflow, AGUIChatWorkflow):
            logger.warning(
                "moca_agui: %s returned a %s, not an AGUIChatWorkflow: no citations for "
                "this run. Instrument the factory of an AGUIChatWorkflow, or wrap your own "
                "AG-UI events with moca_agui.cite.",
                getattr(factory, "__qualname__", factory),
                type(workflow).__qualname__,
            )
            return workflow
        return _citing_workflow(workflow, options)

    return citing_factory(factory, cite_made)


def _with_free_steps(cited: type[W], cls: type[Workflow]) -> type[W]:
    """`cited` with the free-function steps added to `cls` by `cls.add_step`: LlamaIndex
    keeps those per class, and a subclass starts with none."""
    if cited is not cls:
        cited._step_functions.update(cls._step_functions)
    return cited
