"""Pydantic AI keeps no thread: the model reads exactly what the client sends. A regenerate
(the client drops the last answer and sends the thread again) and a reordered resend (the
earlier turns in another order) are numbered as sent: every marker the model writes, from
what it was shown, is cited as the node it was shown under it, or left out."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pai_support import dispatch_app
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from shown_thread import (
    READER_TOOLS,
    A,
    B,
    C,
    D,
    Steps,
    answer,
    get_node,
    markers_shown,
    regenerated,
    reordered,
)
from thread_turns import cited, shown_markers

import moca_agui
from support import Call


def shown_model(steps: Steps) -> FunctionModel:
    """Answers the thread's last question with its steps; its answer writes the markers
    the messages it was given show it."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        parts = [part for message in messages for part in message.parts]
        question = [p for p in parts if isinstance(p, UserPromptPart)][-1]
        at = max(i for i, m in enumerate(messages) if question in m.parts)
        step = steps[str(question.content)][
            sum(isinstance(m, ModelResponse) for m in messages[at:])
        ]
        if isinstance(step, Call):
            yield {0: DeltaToolCall(name=step.name, tool_call_id=step.id)}
            yield {0: DeltaToolCall(json_args=json.dumps(step.args))}
            return
        results = [
            p.content
            for m in messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart) and p.tool_name in READER_TOOLS
        ]
        yield answer(step, markers_shown(results))

    return FunctionModel(stream_function=stream)


async def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def serve(steps: Steps, *, numbered: bool, **options: Any) -> Any:
    tools = [moca_get_node]
    agent = Agent(shown_model(steps), tools=moca_agui.numbered(tools) if numbered else tools)
    return dispatch_app(moca_agui.instrument(AGUIAdapter, **options), agent)


KINDS = pytest.mark.parametrize(
    ("numbered", "lookup"),
    [(False, True), (False, False), (True, True)],
    ids=["markers-lookup", "markers", "numbered-tools"],
)


@KINDS
async def test_a_regenerated_answer_numbers_the_thread_as_resent(numbered: bool, lookup: bool):
    stream = await regenerated(serve, numbered=numbered, lookup=lookup)
    assert shown_markers(stream) == ([["[3]"]] if numbered else [])
    earlier = [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    assert cited(stream) == [{"marker": "[3]", "record": D}, *(earlier if lookup else [])]


@KINDS
async def test_a_reordered_resend_numbers_the_thread_in_the_order_sent(
    numbered: bool, lookup: bool
):
    """Default markers: C `[1]`, A `[2]`, B `[3]` as sent; numbered tools showed A `[1]`,
    B `[2]`, C `[3]` beside each source, and the model reads those."""
    stream = await reordered(serve, numbered=numbered, lookup=lookup)
    shown = ["[3]", "[1]", "[2]"] if numbered else ["[1]", "[2]", "[3]"]
    earlier = [{"marker": m, "record": r} for m, r in zip(shown, (C, A, B), strict=True)]
    assert shown_markers(stream) == ([["[4]"]] if numbered else [])
    assert cited(stream) == [{"marker": "[4]", "record": D}, *(earlier if lookup else [])]
