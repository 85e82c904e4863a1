"""A real ag-ui-langgraph service for the tests: a LangChain agent graph behind
`add_langgraph_fastapi_endpoint`, called over HTTP (httpx's ASGI transport)."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import httpx
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver

import moca_agui

# tests/support.py's helpers, also importable from here (as tests written earlier do)
from support import parse_sse as parse_sse
from support import run_input as run_input

#: Events of LangGraph's own bookkeeping, left out of the event orders the tests assert.
NOISE = {"RAW", "STATE_SNAPSHOT", "STEP_STARTED", "STEP_FINISHED", "TEXT_MESSAGE_CONTENT"}


#: ag-ui-langgraph >= 0.0.43 can leave out RAW events; before, they are always sent.
RAW_SWITCH = "emit_raw_events" in inspect.signature(LangGraphAgent.__init__).parameters


def plain_agent(
    model: Any, tools: Sequence[Any], *, emit_raw_events: bool = False
) -> LangGraphAgent:
    graph = create_agent(model, list(tools), checkpointer=InMemorySaver())
    raw = {"emit_raw_events": emit_raw_events} if RAW_SWITCH else {}
    return LangGraphAgent(name="kb", graph=graph, **raw)


def agent(
    model: Any, tools: Sequence[Any], *, emit_raw_events: bool = False, **options: Any
) -> LangGraphAgent:
    """The one changed line: `moca_agui.instrument(LangGraphAgent(...), **options)`."""
    return moca_agui.instrument(
        plain_agent(model, tools, emit_raw_events=emit_raw_events), **options
    )


def app_for(served: LangGraphAgent) -> FastAPI:
    app = FastAPI()
    add_langgraph_fastapi_endpoint(app, served, "/")
    return app


async def post(app: FastAPI, body: dict[str, Any]) -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://kb.test") as client:
        response = await client.post("/", json=body, headers={"accept": "text/event-stream"})
    response.raise_for_status()
    return parse_sse(response.text)


def order(stream: Iterable[dict[str, Any]]) -> list[str]:
    """Event types without LangGraph's bookkeeping; `CUSTOM:<name>` for custom events."""
    return [
        e["type"] + (":" + e["name"] if e["type"] == "CUSTOM" else "")
        for e in stream
        if e["type"] not in NOISE
    ]


def text_message_ids(stream: Iterable[dict[str, Any]]) -> list[str]:
    """Ids of the TEXT_MESSAGE_START events, first appearance first."""
    return list(dict.fromkeys(e["messageId"] for e in stream if e["type"] == "TEXT_MESSAGE_START"))


def snapshot_messages(stream: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages of the last MESSAGES_SNAPSHOT."""
    return [e for e in stream if e["type"] == "MESSAGES_SNAPSHOT"][-1]["messages"]


_RANDOM_ID = re.compile(
    r"lc_run--[0-9a-f-]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)


def normalised(stream: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream without LangGraph's RAW copies, its random ids numbered in order."""
    text = json.dumps(
        [{k: v for k, v in e.items() if k != "rawEvent"} for e in stream if e["type"] != "RAW"]
    )
    numbers: dict[str, str] = {}
    return json.loads(
        _RANDOM_ID.sub(lambda m: numbers.setdefault(m.group(), f"id-{len(numbers)}"), text)
    )
