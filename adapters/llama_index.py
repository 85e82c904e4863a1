"""LlamaIndex (`llama_index.protocols.ag_ui`): citations from an AGUIChatWorkflow.

    router = get_ag_ui_workflow_router(workflow_factory=moca_agui.instrument(factory))

`moca_agui.instrument` also takes an AGUIChatWorkflow subclass or instance. Reader
results are captured inside the workflow, from each tool's raw output (a query
engine's or retriever's nodes carry the record in `metadata["moca_citation"]`); each
assistant message with text gets one `moca.citations` event before RUN_FINISHED, and
MESSAGES_SNAPSHOT gives assistant messages the ids their text streamed with.
"""

from __future__ import annotations

from moca_agui._install import pip_install

try:
    import llama_index.core.workflow
    import llama_index.protocols.ag_ui.agent  # type: ignore[import-untyped]  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on what is installed
    raise ImportError(
        "moca_agui.adapters.llama_index needs LlamaIndex's AG-UI protocol: "
        f"{pip_install('llama-index')}"
    ) from exc

from ._llama_index_targets import cited_factory, cited_workflow, cited_workflow_class
from ._llama_index_workflow import CitingWorkflow

__all__ = ["CitingWorkflow", "cited_factory", "cited_workflow", "cited_workflow_class"]
