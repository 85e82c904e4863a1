"""The docs' middleware diffs (asgi.md, frameworks/ag2.md), applied and run: the code a
user ends up with cites."""

from __future__ import annotations

from functools import partial
from typing import Any

import httpx
from ag2 import tool
from readme_code import readme_diffs

from moca_agui.check import check_events, parse_stream
from moca_agui.demo.frameworks.ag2 import ScriptedConfig
from moca_agui.demo.frameworks.ag_ui import run_agent
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import run_input
from support import assert_valid_stream, citation_events

QUESTION = "Do I need to register my hives?"
IMPORTS = (
    "from ag_ui.core import RunAgentInput\nfrom ag_ui.encoder import EventEncoder\n"
    "from fastapi import FastAPI\nfrom fastapi.responses import StreamingResponse\n"
)


async def answer(app: Any, path: str) -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(path, json=run_input(QUESTION))
    assert response.status_code == 200, response.text
    return parse_stream(response.text)


def cites_the_demo_answer(stream: list[dict[str, Any]]) -> None:
    assert_valid_stream(stream)
    assert check_events(stream) == []
    (value,) = citation_events(stream)
    assert [c["marker"] for c in value["citations"]] == ["[1]", "[2]"]


async def test_the_fastapi_diff_applied_cites() -> None:
    fastapi = readme_diffs(None, "asgi.md")[0]
    assert "app.add_middleware(CitationMiddleware)" in fastapi
    reader = DemoReader()
    namespace: dict[str, Any] = {"run_agent": partial(run_agent, reader=reader)}
    exec(IMPORTS + fastapi, namespace)
    cites_the_demo_answer(await answer(namespace["app"], "/"))


async def test_the_ag2_diff_applied_cites() -> None:
    ag2 = readme_diffs("The one line", "frameworks/ag2.md")[0]
    reader = DemoReader()
    namespace: dict[str, Any] = {
        "config": ScriptedConfig(),
        "moca_search": tool(reader.moca_search, name="moca_search"),
        "moca_get_node": tool(reader.moca_get_node, name="moca_get_node"),
    }
    exec(ag2, namespace)
    cites_the_demo_answer(await answer(namespace["app"], "/chat"))
