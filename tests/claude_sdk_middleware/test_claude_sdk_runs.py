"""Runs of a `ClaudeAgentAdapter` behind `CitationMiddleware`, the real Claude Code CLI
calling SDK MCP tools, or a Reader it starts over MCP stdio: the exact events, records
cited as the Reader sent them, what is left out, parallel calls finishing in reverse."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_support import claude_app, sdk_tool, stdio_server
from reference_calls import CALLS
from reference_runs import (
    CONTROL,
    WITH_OTHER,
    assert_cited_as_sent,
    assert_control_cites_other,
    script,
    web_search,
)
from thread_turns import A, B, C, get_node, new_thread_id, post, search_hits

import moca_agui
from moca_agui.check import check_events
from support import Call, ref, run_input, types

NEVER = "https://example.com/moca/test-kb@1.0.0#never-returned.md"
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
MISSING = f"{HANDBOOK}no-such-node.md"
REPLAY = Path(__file__).parents[1] / "reference_replay.py"


class ReverseReader:
    """`moca_search` returns only once `moca_get_node` has: parallel calls that finish in
    the reverse of the model's order. `finished` is the order they did."""

    def __init__(self) -> None:
        self.got_node = asyncio.Event()
        self.finished: list[str] = []

    async def moca_search(self, query: str) -> dict[str, Any]:
        """Search the knowledge base."""
        await asyncio.wait_for(self.got_node.wait(), 60)  # fails, not hangs, if serialised
        self.finished.append("moca_search")
        return search_hits(query)

    async def moca_get_node(self, node_id: str) -> dict[str, Any]:
        """Read one node."""
        self.finished.append("moca_get_node")
        self.got_node.set()
        return get_node(node_id)

    def tools(self) -> list[Any]:
        return [sdk_tool(self.moca_search), sdk_tool(self.moca_get_node)]


def lookup_order(order_id: str) -> dict[str, Any]:
    """An order, which happens to look like a citation record: no Reader tool's."""
    return C


async def run(app: Any, question: str = "q", thread_id: str | None = None) -> list[dict[str, Any]]:
    """One run over HTTP (thread_turns.post: ag-ui-validate, the schemas), then the checker."""
    body = run_input(question, thread_id=thread_id or new_thread_id())
    stream = await post(app, body)
    errors = [str(f) for f in check_events(stream) if f.level == "error"]
    assert errors == [], errors
    return stream


def citations(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    (value,) = [e["value"] for e in stream if e.get("name") == moca_agui.EVENT_NAME]
    return list(value["citations"])


async def test_parallel_calls_finishing_in_reverse_cite_in_the_models_order_exactly() -> None:
    """The event, right before RUN_FINISHED, cites [1] and [2] in the model's order though
    they finished in reverse; an invented marker and ref, and a non-Reader tool's record,
    are left out."""
    reader = ReverseReader()
    calls = [
        Call("moca_search", {"query": "a.md"}, "toolu_search"),
        Call("moca_get_node", {"node_id": ref(B)}, "toolu_node"),
        Call("lookup_order", {"order_id": "1"}, "toolu_order"),
    ]
    answer = f"A [1]; B [2]; made up [3] and {NEVER}; the order {ref(C)}."
    app = claude_app(lambda q: [calls, [answer]], [*reader.tools(), sdk_tool(lookup_order)])
    stream = await run(app)
    assert reader.finished == ["moca_get_node", "moca_search"]
    tool_call = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    # (newer releases send their own CUSTOM:claude:assistant_content beside each block)
    assert [t for t in types(stream) if not t.startswith("CUSTOM:claude:")] == [
        "RUN_STARTED", "STATE_SNAPSHOT", "CUSTOM:system:init", "CUSTOM:system:status",
        *tool_call * 3, *["TOOL_CALL_RESULT"] * 3, "CUSTOM:system:status",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
        "MESSAGES_SNAPSHOT", "CUSTOM:moca.citations", "RUN_FINISHED",
    ]  # fmt: skip
    assert citations(stream) == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    (end,) = [e for e in stream if e["type"] == "TEXT_MESSAGE_END"]
    assert stream[-2]["value"]["messageId"] == end["messageId"]


async def test_a_reader_the_cli_starts_over_mcp_stdio_is_cited_as_it_sent_it() -> None:
    calls = [
        [Call("moca_search", {"query": "register hives", "limit": 3, "detail": "full"}, "c1")],
        [Call("moca_get_node", {"node_id": MISSING}, "c2")],
        [f"Register before 1 April [1]; mind the footpath [2]; not {MISSING} [9]."],
    ]
    stream = await run(claude_app(lambda q: calls, stdio_server()))
    (search, missing) = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    sent = json.loads(search["content"])["results"]
    assert citations(stream) == [
        {"marker": "[1]", "record": sent[0]},
        {"marker": "[2]", "record": sent[1]},
    ]
    assert sent[0]["node"]["ref"].startswith(HANDBOOK) and "error" in missing["content"]


@pytest.fixture(scope="module")
def replay_app() -> Any:
    """The reference Reader's captured answers over MCP stdio, and `web_search`, no Reader
    tool, as an SDK MCP tool; the model plays `reference_runs.script` of each capture."""
    by_question_capture = {f"capture-{n}": script(capture) for n, capture in enumerate(CALLS)}
    by_question_capture["control"] = script(CONTROL)
    server = {"type": "stdio", "command": sys.executable, "args": [str(REPLAY)]}
    return lambda **options: claude_app(
        lambda q: by_question_capture[q], server, more={"web": [sdk_tool(web_search)]}, **options
    )


async def test_each_captured_answer_is_cited_as_the_reference_reader_sent_it(replay_app: Any):
    app = replay_app()
    streams = [
        await post(app, run_input(f"capture-{n}", thread_id=new_thread_id()))
        for n in range(len(CALLS))
    ]
    for capture, stream in zip(CALLS, streams, strict=True):
        assert_cited_as_sent(stream, capture, lookup=False)
    control = await post(
        replay_app(reader_tools=WITH_OTHER), run_input("control", thread_id=new_thread_id())
    )
    assert_control_cites_other(control)
