"""Pydantic AI with a history the service keeps: a `message_history=` given to the run is
read before the client's messages (the model reads both); a history the server cuts to
the client's turn (`manage_message_history='server'`) is not known, so the run fails
closed: versioned refs only, one line saying why."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pai_support import A, C, dispatch_app, post
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from thread_turns import Lookup

import moca_agui
from support import citation_events, ref

#: Turn 1, as the service keeps it: the model read A and wrote its marker.
HISTORY: list[ModelMessage] = [
    ModelRequest(parts=[UserPromptPart(content="q1")]),
    ModelResponse(
        parts=[ToolCallPart(tool_name="moca_get_node", args={"node_id": "a.md"}, tool_call_id="c1")]
    ),
    ModelRequest(parts=[ToolReturnPart(tool_name="moca_get_node", content=A, tool_call_id="c1")]),
    ModelResponse(parts=[TextPart(content="A is [1].")]),
]


async def model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    """Reads C, then counts what it read over the whole history it was given: A, then C."""
    returned = [p.content for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
    if C not in returned:
        yield {0: DeltaToolCall(name="moca_get_node", tool_call_id="c2")}
        yield {0: DeltaToolCall(json_args=json.dumps({"node_id": "c.md"}))}
        return
    yield f"A is [{returned.index(A) + 1}]; C is [{returned.index(C) + 1}] ({ref(C)})."


async def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return C


def cited(stream: list[dict[str, Any]]) -> list[tuple[str | None, str]]:
    return [
        (c.get("marker"), c["record"]["node"]["path"])
        for value in citation_events(stream)
        for c in value["citations"]
    ]


async def test_a_message_history_given_to_the_run_is_numbered_before_the_clients_messages():
    agent = Agent(FunctionModel(stream_function=model), tools=[moca_get_node])
    adapter = moca_agui.instrument(AGUIAdapter, lookup=Lookup(A))
    stream = await post(dispatch_app(adapter, agent, message_history=HISTORY), "q2")
    assert cited(stream) == [("[1]", "a.md"), ("[2]", "c.md")]


async def test_a_history_the_server_keeps_fails_closed(caplog: pytest.LogCaptureFixture):
    agent = Agent(FunctionModel(stream_function=model), tools=[moca_get_node])
    adapter = moca_agui.instrument(AGUIAdapter, lookup=Lookup(A))
    app = dispatch_app(adapter, agent, message_history=HISTORY, manage_message_history="server")
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await post(app, "q2")
    assert cited(stream) == [(None, "c.md")]  # never [1] = C
    (line,) = caplog.records
    assert "manage_message_history" in line.getMessage()
