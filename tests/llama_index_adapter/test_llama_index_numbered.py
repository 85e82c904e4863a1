"""`moca_agui.numbered(tools)` on LlamaIndex: the model reads each source beside its
run-wide marker, and the event uses the same numbers. A scripted model copies what it
read; two parallel calls finish in reverse, then a second search would start at [1]."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
from li_support import Call, app_of, post, snapshots, tool
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage, TextBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow

import moca_agui
from support import citation_events, cited_as_shown, copied_answer, record

A, B, C, D = record("a.md"), record("b.md"), record("c.md"), record("d.md")
TURNS = (
    (Call("moca_search", "call-search", {"query": "bees"}), Call("moca_get_node", "call-get")),
    (Call("moca_search", "call-search-2", {"query": "mites"}),),
)


def copying_llm() -> MockFunctionCallingLLM:
    """Plays `TURNS` (tool calls), then answers with the numbers its history showed it."""

    def respond(messages: Sequence[ChatMessage], **_: Any) -> ChatMessage:
        answered = sum(m.role.value == "assistant" for m in messages)
        if answered < len(TURNS):
            return ChatMessage(
                role="assistant",
                blocks=[
                    ToolCallBlock(tool_call_id=c.id, tool_name=c.name, tool_kwargs=c.arguments)
                    for c in TURNS[answered]
                ],
            )
        shown = [m.content for m in messages if m.role.value == "tool"]
        return ChatMessage(role="assistant", blocks=[TextBlock(text=copied_answer(shown))])

    return MockFunctionCallingLLM(response_generator=respond)


def reader() -> list[Any]:
    got_node = asyncio.Event()

    async def moca_search(query: str = "") -> dict[str, Any]:
        if query == "bees":
            await got_node.wait()
            for _ in range(20):  # the workflow takes moca_get_node's result first (no clock)
                await asyncio.sleep(0)
            return {"query": query, "results": [A, B]}
        return {"query": query, "results": [D, A]}

    def moca_get_node(node_id: str = "") -> dict[str, Any]:
        got_node.set()
        return C

    return [moca_search, moca_get_node]


@pytest.mark.parametrize("kind", ["FunctionTool", "function"])
async def test_the_model_cites_the_numbers_it_was_shown(kind: str) -> None:
    search, get_node = reader()
    tools = [tool("moca_search", search), tool("moca_get_node", get_node)]
    tools = moca_agui.numbered(tools if kind == "FunctionTool" else [search, get_node])

    async def factory() -> AGUIChatWorkflow:
        return AGUIChatWorkflow(llm=copying_llm(), backend_tools=tools, timeout=30)

    stream = await post(app_of(moca_agui.instrument(factory)))
    history = {m["toolCallId"]: m["content"] for m in snapshots(stream)[-1] if m["role"] == "tool"}
    assert list(history) == ["call-get", "call-search", "call-search-2"]  # as they finished
    assert [json.loads(history[c]) for c in ("call-search", "call-get", "call-search-2")] == [
        {"results": [{"marker": "[2]", "result": A}, {"marker": "[3]", "result": B}]},
        {"results": [{"marker": "[1]", "result": C}]},
        {"results": [{"marker": "[4]", "result": D}, {"marker": "[2]", "result": A}]},
    ]
    [value] = citation_events(stream)
    text = "".join(e["delta"] for e in stream if e["type"] == "TEXT_MESSAGE_CHUNK")
    assert value["citations"] == cited_as_shown(text, A, B, C, D)
    assert [c["marker"] for c in value["citations"]] == ["[1]", "[2]", "[3]", "[4]"]
