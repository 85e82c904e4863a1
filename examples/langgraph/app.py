"""An ag-ui-langgraph service with MOCA citations. The one changed line is marked.

    python examples/langgraph/app.py   # AG-UI endpoint: POST http://127.0.0.1:8000/
    python examples/langgraph/app.py --question "Do I need to register my hives?"

`--question` prints the event stream of one question as JSON lines, as `moca-agui demo
--question` does. It runs offline: the model is moca-agui's scripted demo model and the
Reader is the demo Reader, which answers the reference Reader's tools (`moca_search`,
`moca_get_node`, `moca_structure`) with its result shapes. In your service they are your
chat model and your MOCA Reader's tools (docs: "Connecting a real Reader").
"""

from __future__ import annotations

import sys

try:  # what its page's install line brings: pip install -e '.[langgraph,demo]'
    from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
    from fastapi import FastAPI
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver
except ImportError as exc:  # a module missing, or a package that says so on import
    from moca_agui.demo.server import missing_extras

    missing_extras("langgraph,demo", exc)

import moca_agui
from moca_agui.demo.frameworks.langgraph import ScriptedChatModel, reader_tools
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import example_main

reader = DemoReader()
graph = create_agent(ScriptedChatModel(), reader_tools(reader), checkpointer=InMemorySaver())

agent = moca_agui.instrument(LangGraphAgent(name="apiary", graph=graph))  # the one line

app = FastAPI(title="Apiary handbook (LangGraph + moca-agui)")
add_langgraph_fastapi_endpoint(app, agent, "/")


if __name__ == "__main__":
    sys.exit(
        example_main(
            app, "An ag-ui-langgraph service with MOCA citations, offline.", extras="langgraph,demo"
        )
    )
