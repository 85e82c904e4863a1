"""An ag-ui-langgraph service with MOCA citations. The one changed line is marked.

    python examples/langgraph/service.py              # serves http://127.0.0.1:8000/
    python examples/langgraph/client.py "Do I need to register my hives?"

It runs offline: the model is moca-agui's scripted demo model and the Reader is the demo
Reader, which answers the reference Reader's tools (`moca_search`, `moca_get_node`,
`moca_structure`) with its result shapes. In your service they are your chat model and
your MOCA Reader's tools (for example through langchain-mcp-adapters).
"""

from __future__ import annotations

import argparse

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver

import moca_agui
from moca_agui.demo.frameworks.langgraph import ScriptedChatModel, reader_tools
from moca_agui.demo.reader import DemoReader

reader = DemoReader()
graph = create_agent(ScriptedChatModel(), reader_tools(reader), checkpointer=InMemorySaver())

agent = moca_agui.instrument(LangGraphAgent(name="apiary", graph=graph))  # the one line

app = FastAPI(title="Apiary handbook (LangGraph + moca-agui)")
add_langgraph_fastapi_endpoint(app, agent, "/")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    uvicorn.run(app, host="127.0.0.1", port=parser.parse_args().port)
