"""The demo service on AWS Bedrock AgentCore: the Strands demo agent (the demo Reader's
tools, the scripted model) served by AgentCore's `AGUIApp`, as `serve_ag_ui(agent)` builds
it: SSE on POST `/invocations`, a WebSocket on `/ws`.

Citations are turned on by the one line the README shows: the agent AgentCore runs is
`moca_agui.instrument(StrandsAgent(...))`, so both transports cite.
"""

from __future__ import annotations

from typing import Any

from ag_ui_strands import StrandsAgent  # type: ignore[import-untyped]
from bedrock_agentcore.runtime.ag_ui import build_ag_ui_app
from starlette.types import ASGIApp, Receive, Scope, Send
from strands import Agent

import moca_agui

from ..reader import DemoReader
from .strands import DemoModel, reader_tools

__all__ = ["build_agentcore_app", "build_app"]


def build_app(reader: DemoReader, **cite_options: Any) -> ASGIApp:
    """An ASGI app whose POST `/` is the AG-UI endpoint (AgentCore's `/invocations`), with
    citations on; `/ws` is AgentCore's WebSocket.

    `cite_options` go to `moca_agui.instrument`; `lookup` defaults to `reader.get`.
    """
    return _InvocationsAtRoot(build_agentcore_app(reader, **cite_options))


def build_agentcore_app(reader: DemoReader, **cite_options: Any) -> ASGIApp:
    """AgentCore's own app, as `serve_ag_ui(agent)` serves it."""
    cite_options.setdefault("lookup", reader.get)
    strands_agent = Agent(model=DemoModel(), tools=[*reader_tools(reader)], callback_handler=None)
    served = StrandsAgent(agent=strands_agent, name="moca-demo")
    agent = moca_agui.instrument(served, **cite_options)
    app: ASGIApp = build_ag_ui_app(agent)
    return app


class _InvocationsAtRoot:
    """POST `/` is `/invocations` (the demo's clients post to the root)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") == "/":
            scope = {**scope, "path": "/invocations", "raw_path": b"/invocations"}
        await self.app(scope, receive, send)
