"""A LlamaIndex AG-UI service with MOCA citations. The one changed line is marked.

    python examples/llama_index/app.py   # AG-UI endpoint: POST http://127.0.0.1:8000/run
    python examples/llama_index/app.py --question "Do I need to register my hives?"

`--question` prints the event stream of one question as JSON lines, as `moca-agui demo
--question` does. LlamaIndex's router serves its endpoint at `/run`. It runs offline: the
model is moca-agui's scripted demo model (a `MockFunctionCallingLLM`) and the tools are
the demo Reader's (`moca_search`, `moca_get_node`, `moca_structure`, answering the
reference Reader's JSON). In your service they are your LLM and your MOCA Reader's tools
(docs: "Connecting a real Reader").
"""

from __future__ import annotations

import sys

try:  # what its page's install line brings: pip install -e '.[llama-index,demo]'
    from fastapi import FastAPI
    from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow
    from llama_index.protocols.ag_ui.router import get_ag_ui_workflow_router
except ImportError as exc:  # a module missing, or a package that says so on import
    from moca_agui.demo.server import missing_extras

    missing_extras("llama-index,demo", exc)

import moca_agui
from moca_agui.demo.frameworks.llama_index import reader_tools, scripted_llm
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import example_main

reader = DemoReader()


async def workflow_factory() -> AGUIChatWorkflow:
    return AGUIChatWorkflow(llm=scripted_llm(), backend_tools=reader_tools(reader), timeout=60)


app = FastAPI(title="Apiary handbook (LlamaIndex + moca-agui)")
app.include_router(
    # The one line; before: get_ag_ui_workflow_router(workflow_factory=workflow_factory)
    get_ag_ui_workflow_router(workflow_factory=moca_agui.instrument(workflow_factory))
)


if __name__ == "__main__":
    description = "A LlamaIndex AG-UI service with MOCA citations, offline."
    sys.exit(example_main(app, description, path="/run", extras="llama-index,demo"))
