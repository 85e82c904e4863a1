"""Broken runs and malformed tool results: the agent's events flow on unchanged, nothing is
guessed, and what was skipped is logged."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from strands import tool
from strands_support import A, Call, ScriptedModel, kinds, reader_tools, run_both, strands_agent

from support import citation_events, ref


class FailingModel(ScriptedModel):
    """Calls the Reader, then its stream breaks."""

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        if any(message["role"] == "assistant" for message in messages):
            yield {"messageStart": {"role": "assistant"}}
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": f"Partly: {ref(A)}"}}}
            raise RuntimeError("the model connection dropped")
        async for event in super().stream(messages, *args, **kwargs):
            yield event


async def test_a_run_that_errors_sends_no_citations() -> None:
    script = [[Call("moca_get_node", {"node_id": ref(A)})]]
    stream = await run_both(lambda: strands_agent(FailingModel(script), reader_tools(A)), "q")
    assert kinds(stream)[-1] == "RUN_ERROR"
    assert citation_events(stream) == []


async def test_a_result_whose_content_is_not_a_list_is_skipped_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool
    def moca_get_node(node_id: str) -> dict[str, Any]:
        """Strands' result format, with content that is no list of blocks."""
        return {"status": "success", "content": ref(A)}

    script = [[Call("moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]]
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await run_both(lambda: strands_agent(ScriptedModel(script), [moca_get_node]), "q")
    [value] = citation_events(stream)
    assert value["citations"] == []
    assert "whose content is not a list" in caplog.text
