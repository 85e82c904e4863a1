"""The Claude Agent SDK over turns of one thread, as @ag-ui/client sends them. The SDK keeps
one Claude Code session per thread, in a worker task the thread's first run starts: its
SDK MCP tools run in that task, whose context holds the first run, on every later run.
Numbered tools still count on for the run they belong to, and earlier sources are cited
only with the record `lookup` gives now."""

from __future__ import annotations

from typing import Any

from claude_support import by_question, claude_app, sdk_tools
from thread_turns import Steps, follow_ups, get_node, numbered_over_three_turns, search_hits

import moca_agui


def moca_search(query: str) -> dict[str, Any]:
    """Search the knowledge base: the nodes whose path the query names."""
    return search_hits(query)


def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


def serve(steps: Steps, *, numbered: bool, **options: Any) -> Any:
    tools = sdk_tools(moca_search, moca_get_node)
    return claude_app(by_question(steps), moca_agui.numbered(tools) if numbered else tools,
                      **options)  # fmt: skip


async def test_numbered_tools_count_on_over_three_turns_and_a_source_read_again_keeps_its_number():
    await numbered_over_three_turns(serve)


async def test_follow_ups_cite_earlier_sources_only_with_the_record_lookup_gives_now():
    await follow_ups(serve)
