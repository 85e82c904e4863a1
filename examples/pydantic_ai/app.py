"""A Pydantic AI AG-UI service with MOCA citations. The one changed line is marked.

    python examples/pydantic_ai/app.py   # AG-UI endpoint: POST http://127.0.0.1:8000/
    python examples/pydantic_ai/app.py --question "Do I need to register my hives?"

`--question` prints the event stream of one question as JSON lines, as `moca-agui demo
--question` does. The agent reaches its MOCA Reader the way the reference Reader is
deployed: an MCP server, here moca-agui's demo Reader over stdio (`python -m
moca_agui.demo.reader`). The model is the demo's scripted model, so it runs offline. In
your service the model is your LLM and the MCP server your MOCA Reader (docs:
"Connecting a real Reader").
"""

from __future__ import annotations

import sys

try:  # what its page's install line brings: pip install -e '.[pydantic-ai,demo]'
    from fastapi import FastAPI, Request
    from fastapi.responses import Response
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.ui.ag_ui import AGUIAdapter
except ImportError as exc:  # a module missing, or a package that says so on import
    from moca_agui.demo.server import missing_extras

    missing_extras("pydantic-ai,demo", exc)

import moca_agui
from moca_agui.demo.frameworks.pydantic_ai import scripted_model
from moca_agui.demo.server import example_main

reader = MCPToolset(StdioTransport(sys.executable, ["-m", "moca_agui.demo.reader"]))
agent = Agent(scripted_model(), toolsets=[reader])

AGUIAdapter = moca_agui.instrument(AGUIAdapter)  # the one line (run_stream works the same)

app = FastAPI(title="Apiary handbook (Pydantic AI + moca-agui)")


@app.post("/")
async def run_agent(request: Request) -> Response:
    return await AGUIAdapter.dispatch_request(request, agent=agent)


if __name__ == "__main__":
    sys.exit(
        example_main(
            app,
            "A Pydantic AI AG-UI service with MOCA citations, offline.",
            extras="pydantic-ai,demo",
        )
    )
