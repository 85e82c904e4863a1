"""LlamaIndex (`llama_index.protocols.ag_ui`): citations from an AGUIChatWorkflow.

    router = get_ag_ui_workflow_router(workflow_factory=moca_agui.instrument(factory))

`moca_agui.instrument` also takes an AGUIChatWorkflow subclass or instance. Reader
results are captured inside the workflow, from each tool's raw output (a query
engine's or retriever's nodes carry the record in `metadata["moca_citation"]`); each
assistant message with text gets one `moca.citations` event before RUN_FINISHED, and
MESSAGES_SNAPSHOT gives assistant messages the ids their text streamed with.
"""

from __future__ import annotations

from moca_agui.adapter import require

require(
    "LlamaIndex", "llama-index", "llama_index.core.workflow", "llama_index.protocols.ag_ui.agent"
)

from ._llama_index_numbered import numbered_tool  # noqa: E402
from ._llama_index_targets import citing, citing_workflow_factory  # noqa: E402
from ._llama_index_workflow import CitingWorkflow  # noqa: E402

__all__ = ["CitingWorkflow", "citing", "citing_workflow_factory", "numbered_tool"]
