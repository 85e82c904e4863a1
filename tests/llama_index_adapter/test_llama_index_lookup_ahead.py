"""A LlamaIndex answer is read as it streams: a source it names is looked up while the
model writes the rest, not when the chat step returns."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from li_support import QUESTION, app_of, post, returning
from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage, TextBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.protocols.ag_ui.agent import AGUIChatWorkflow

import moca_agui
from support import citation_events, compact, record, ref

A = record("a.md")


def model_naming_a_source_then_writing_on(written: dict[str, bool]) -> MockFunctionCallingLLM:
    """Calls `moca_search`, then streams "Per [1] ", lets the loop run, and sets
    `written["rest"]` just before it streams the rest of its answer."""

    def respond(messages: Sequence[ChatMessage], **_: Any) -> Any:
        if messages[-1].role.value == "user":
            search = ToolCallBlock(
                tool_call_id="c1", tool_name="moca_search", tool_kwargs={"query": QUESTION}
            )
            return ChatMessage(role="assistant", blocks=[search])

        async def stream() -> AsyncIterator[ChatMessage]:
            yield ChatMessage(role="assistant", content="Per [1] ")
            for _ in range(20):  # the lookup the first delta started runs now (no clock)
                await asyncio.sleep(0)
            written["rest"] = True
            yield ChatMessage(role="assistant", blocks=[TextBlock(text="the window is 30 days.")])

        return stream()

    return MockFunctionCallingLLM(response_generator=respond)


async def test_a_source_named_mid_answer_is_looked_up_before_the_chat_step_returns() -> None:
    written = {"rest": False}
    looked_up: list[tuple[str, bool]] = []

    async def lookup(node_ref: str) -> dict[str, Any] | None:
        looked_up.append((node_ref, written["rest"]))
        return A if node_ref == ref(A) else None

    async def factory() -> AGUIChatWorkflow:
        return AGUIChatWorkflow(
            llm=model_naming_a_source_then_writing_on(written),
            backend_tools=[returning("moca_search", {"results": [compact(A)]})],
            timeout=30,
        )

    stream = await post(app_of(moca_agui.instrument(factory, lookup=lookup)))

    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]
    assert looked_up == [(ref(A), False)]  # once, while the model wrote the rest
