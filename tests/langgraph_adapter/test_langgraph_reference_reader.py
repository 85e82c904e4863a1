"""The reference Reader's captured answers reach the LangGraph adapter as
langchain-mcp-adapters hands them to LangGraph (`content_and_artifact` tools, the MCP
text items as LangChain content blocks): records are cited exactly as the Reader sent
them, compact results only through `moca_agui.reader_lookup`, errors never. The real
langchain-mcp-adapters (mcp 1.x) runs in `nox -s tests-langgraph-mcp`."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages.content import create_text_block
from langchain_core.tools import BaseTool, StructuredTool
from lg_chat import Call, Say, StreamingChatModel
from lg_service import agent, app_for, post, run_input
from reference_calls import CALLS, LOOKUP, answer
from reference_runs import assert_cited_as_sent


def replayed(capture: dict[str, Any]) -> BaseTool:
    """The capture's tool, answering its captured result as langchain-mcp-adapters does."""

    def call(**arguments: Any) -> tuple[list[Any], None]:
        blocks = [create_text_block(text=item["text"]) for item in capture["result"]["content"]]
        return blocks, None  # the reference Reader sends no structured content

    return StructuredTool.from_function(
        call,
        name=capture["tool"],
        description="The reference Reader's tool.",
        args_schema={"type": "object", "properties": {}, "additionalProperties": True},
        response_format="content_and_artifact",
    )


@pytest.mark.parametrize("lookup", [False, True], ids=["no-lookup", "lookup"])
async def test_each_captured_answer_is_cited_as_the_reader_sent_it(lookup: bool) -> None:
    options = {"lookup": LOOKUP} if lookup else {}
    for capture in CALLS:
        script = [[Call(capture["tool"], capture["arguments"])], [Say(answer(capture))]]
        model = StreamingChatModel(script=script)
        served = agent(model, [replayed(capture)], **options)
        stream = await post(app_for(served), run_input())
        assert_cited_as_sent(stream, capture, lookup=lookup)
