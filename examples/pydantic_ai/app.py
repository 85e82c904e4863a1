"""A Pydantic AI AG-UI service whose answers carry their MOCA sources, offline.

The agent reaches its MOCA Reader the way the reference Reader is deployed: an MCP
server, here moca-agui's demo Reader over stdio (`python -m moca_agui.demo.reader`,
two example packages about keeping bees). The model is the demo's scripted model, so it
runs without network or API key:

    pip install 'moca-agui[pydantic-ai,demo]'
    python examples/pydantic_ai/app.py                  # ask one question, print the answer
    python examples/pydantic_ai/app.py --serve          # POST / on http://127.0.0.1:8000

The one line that turns citations on is marked below. In your service the model is your
LLM and the MCP server your MOCA Reader.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

import httpx
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.ui.ag_ui import AGUIAdapter

import moca_agui
from moca_agui.client import Conversation, trust_badges
from moca_agui.demo.frameworks.pydantic_ai import scripted_model

reader = MCPToolset(StdioTransport(sys.executable, ["-m", "moca_agui.demo.reader"]))
agent = Agent(scripted_model(), toolsets=[reader])

AGUIAdapter = moca_agui.instrument(AGUIAdapter)  # the one line (run_stream works the same)

app = FastAPI(title="Apiary handbook (Pydantic AI + moca-agui)")


@app.post("/")
async def run_agent(request: Request) -> Response:
    return await AGUIAdapter.dispatch_request(request, agent=agent)


async def ask(question: str) -> None:
    """POST one question to the app, then print the answer and the sources it cites."""
    body = {
        "threadId": "thread-1",
        "runId": "run-1",
        "state": {},
        "messages": [{"id": "user-1", "role": "user", "content": question}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://example") as client:
        response = await client.post("/", json=body, headers={"accept": "text/event-stream"})
    conversation = Conversation()
    for frame in response.text.split("\n\n"):
        if frame.startswith("data: "):
            conversation.feed(json.loads(frame.removeprefix("data: ")))
    for message in conversation.messages():
        if not message.text:  # a response that only called tools
            continue
        print(message.text)
        if message.citations is None:
            continue
        print(f"\nSources (trust as of {message.computed_at}):")
        for citation in message.citations:
            title = citation.record["node"].get("title", "")
            badges = ", ".join(badge.label for badge in trust_badges(citation.record))
            print(f"  {citation.marker or '*'} {title}  {citation.ref}\n      {badges}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="serve on http://127.0.0.1:8000")
    parser.add_argument("--question", default="Do I need to register my hives?")
    args = parser.parse_args()
    if args.serve:
        uvicorn.run(app, host="127.0.0.1", port=8000)
    else:
        asyncio.run(ask(args.question))


if __name__ == "__main__":
    main()
