"""The reference Reader's captured answers, served over MCP stdio as it sent them, reach
`moca_agui.asgi.CitationMiddleware` as AG2's `AGUIStream` streams them: records are cited
byte for byte as sent (`text` dropped only when asked), compact results only through a
lookup, errors and a tool that is no Reader tool never.

AG2's tools answer each MCP result whole, as the `mcp` client session returned it (AG2
serialises a dict result whole). AG2's own `MCPToolkit` starts the server anew for every
call and every discovery, about two seconds a run here: one session serves the test."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import reference_replay
from ag2 import Agent, tool
from ag2.ag_ui import AGUIStream
from ag2.events import ToolCallEvent
from ag2.events.types import ModelMessageChunk
from ag2.testing import TestConfig
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from reference_runs import (
    CONTROL,
    OPTIONS,
    OTHER_TOOL,
    WITH_OTHER,
    assert_cited_as_sent,
    assert_control_cites_other,
    script,
    web_search,
)
from starlette.applications import Starlette
from starlette.routing import Route

from moca_agui.asgi import CitationMiddleware
from moca_agui.check import parse_stream
from support import Call, assert_valid_stream, run_input

REPLAY = Path(__file__).parents[1] / "reference_replay.py"


@asynccontextmanager
async def replayed() -> AsyncIterator[list[Any]]:
    """The replayed Reader's tools over one MCP stdio session, and a tool that is no
    Reader tool (the session is entered and left in the test's own task, as anyio asks)."""
    server = StdioServerParameters(command=sys.executable, args=[str(REPLAY)])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        yield [*(forwarded(session, name) for name in names), tool(web_search, name=OTHER_TOOL)]


def forwarded(session: ClientSession, name: str) -> Any:
    """An AG2 tool, with the signature of the replayed Reader's tool `name`, that calls it
    over `session` and answers its MCP result."""

    async def call(**arguments: Any) -> dict[str, Any]:
        result = await session.call_tool(name, arguments)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    return tool(functools.update_wrapper(call, getattr(reference_replay, name)), name=name)


def scripted(turns: list[list[Call | str]]) -> TestConfig:
    """AG2's test model playing `reference_runs.script`; the answer streamed, as the demo
    streams it (a text that is not streamed arrives as TEXT_MESSAGE_CHUNKs)."""
    played: list[Any] = []
    for turn in turns:
        for step in turn:
            if isinstance(step, Call):
                played.append(ToolCallEvent(step.name, id=step.id, arguments=json.dumps(step.args)))
            else:
                played += [ModelMessageChunk(step), step]
    return TestConfig(*played, raise_tool_errors=False)


async def post(app: Any) -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post("/", json=run_input("q"))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    stream = parse_stream(response.text)
    assert_valid_stream(stream)
    return stream


def app_for(turns: list[list[Call | str]], tools: list[Any], **options: Any) -> Any:
    """AG2's agent served by `AGUIStream`, with the middleware around the app."""
    agent = Agent("kb", config=scripted(turns), tools=tools)
    app = Starlette(routes=[Route("/", AGUIStream(agent).build_asgi())])
    return CitationMiddleware(app, **options)


@pytest.mark.parametrize("options", list(OPTIONS))
async def test_each_captured_answer_is_cited_as_the_reader_sent_it(options: str) -> None:
    cite, expect, captures = OPTIONS[options]
    async with replayed() as tools:
        for capture in captures:
            stream = await post(app_for(script(capture), tools, **cite))
            assert_cited_as_sent(stream, capture, **expect)


async def test_the_other_tools_record_is_cited_once_it_counts_as_a_reader_tool() -> None:
    async with replayed() as tools:
        stream = await post(app_for(script(CONTROL), tools, reader_tools=WITH_OTHER))
    assert_control_cites_other(stream)
