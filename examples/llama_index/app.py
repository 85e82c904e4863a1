"""A LlamaIndex AG-UI service whose answers carry their MOCA sources, offline.

The Reader is moca-agui's demo Reader (two example packages about keeping bees) and
the model is scripted, so it runs without network or API key:

    pip install 'moca-agui[llama-index,demo]'
    python examples/llama_index/app.py            # ask one question, print the stream
    python examples/llama_index/app.py --serve    # POST /run on http://127.0.0.1:8000

The one line that turns citations on is marked below.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from typing import Any, Literal

import httpx
import uvicorn
from fastapi import FastAPI
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow
from llama_index.protocols.ag_ui.router import get_ag_ui_workflow_router

import moca_agui
from moca_agui.client import trust_badges
from moca_agui.demo.reader import DemoReader

reader = DemoReader()


def moca_search(query: str, limit: int = 5, detail: Literal["compact", "full"] = "full") -> str:
    """Search the loaded MOCA packages. Cite a result as [n], its place in the results."""
    return json.dumps(reader.moca_search(query, limit=limit, detail=detail))


def moca_get_node(node_id: str) -> str:
    """One node's whole citation record, by node id or versioned ref."""
    return json.dumps(reader.moca_get_node(node_id))


def scripted_model(messages: Sequence[ChatMessage], **_: Any) -> ChatMessage:
    """Stands in for your LLM: searches once, then answers citing [1] and a versioned ref."""
    question = next(m.content for m in reversed(messages) if m.role.value == "user")
    results = [json.loads(m.content or "{}") for m in messages if m.role.value == "tool"]
    if not results:
        call = ToolCallBlock(
            tool_call_id="call-1", tool_name="moca_search", tool_kwargs={"query": question}
        )
        return ChatMessage(role="assistant", blocks=[call])
    first, second = (record["node"]["ref"] for record in results[-1]["results"][:2])
    return ChatMessage(
        role="assistant",
        content="Register every apiary with the town clerk before 1 April [1], and keep "
        f"hives eight metres from footpaths ({second}). The old rule in "
        f"{first.replace('@3.0.0', '@2.1.0')} no longer applies.",
    )


async def workflow_factory() -> AGUIChatWorkflow:
    return AGUIChatWorkflow(
        llm=MockFunctionCallingLLM(response_generator=scripted_model),
        backend_tools=[moca_search, moca_get_node],
    )


app = FastAPI()
app.include_router(
    # Before: get_ag_ui_workflow_router(workflow_factory=workflow_factory)
    get_ag_ui_workflow_router(workflow_factory=moca_agui.instrument(workflow_factory))
)


async def ask(question: str) -> None:
    """POST one question to /run and print what the stream carries."""
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
        response = await client.post("/run", json=body)
    events = [json.loads(frame[6:]) for frame in response.text.split("\n\n") if frame]
    print("events:", " ".join(event["type"] for event in events))
    for event in events:
        if event["type"] == "TEXT_MESSAGE_CHUNK":
            print(f"answer {event['messageId']}: {event['delta']}")
        if event["type"] == "CUSTOM" and event["name"] == moca_agui.EVENT_NAME:
            print(f"sources of {event['value']['messageId']}:")
            for citation in event["value"]["citations"]:
                node = citation["record"]["node"]
                badges = "; ".join(badge.label for badge in trust_badges(citation["record"]))
                marker = citation.get("marker", "(ref)")
                print(f"  {marker} {node['title']}: {node['ref']} ({badges})")


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
