"""The Claude Agent SDK's tests' wiring: a `ClaudeAgentAdapter` served by
`add_claude_fastapi_endpoint` behind `CitationMiddleware`, the real Claude Code CLI run
offline against the demo's scripted Messages API (`ScriptedMessagesAPI`, 127.0.0.1).

A script is what the model answers to a question: its responses in order, each a list of
`Call`s (tool-use blocks, in that order) or texts. Reader tools are SDK MCP tools made
from plain functions (`sdk_tools`), or an MCP server the CLI starts over stdio
(`stdio_server`).
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ag_ui_claude_sdk import ClaudeAgentAdapter, add_claude_fastapi_endpoint
from claude_agent_sdk import SdkMcpTool, create_sdk_mcp_server, tool
from fastapi import FastAPI
from mcp.types import ToolAnnotations

from moca_agui.asgi import CitationMiddleware
from moca_agui.demo.frameworks.claude_sdk import MODEL, ScriptedMessagesAPI, offline_env
from moca_agui.demo.steps import Answer, ToolResult
from support import Call

SERVER = "moca"
#: One model response: tool calls, or the answer's text.
Response = list[Call | str]
#: question -> the model's responses to it, in order.
Responses = Callable[[str], list[Response]]


@dataclass(frozen=True)
class _ToolUse:
    """A tool-use block as `ScriptedMessagesAPI` writes it (its own call id)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""


def scripted(responses: Responses) -> Callable[[str, list[ToolResult]], list[Any]]:
    """The Messages API's script: the response whose calls come after the results so far."""

    def script(question: str, results: list[ToolResult]) -> list[Any]:
        made = 0
        for response in responses(question):
            if made == len(results):
                return [
                    _ToolUse(one.name, one.args, one.id) if isinstance(one, Call) else Answer(one)
                    for one in response
                ]
            made += sum(isinstance(one, Call) for one in response)
        return [Answer("(no more scripted responses)")]

    return script


def sdk_tool(function: Callable[..., Any], name: str | None = None) -> SdkMcpTool[Any]:
    """`function` (sync or async, returning JSON values or text) as an SDK MCP tool that
    answers one text block, as the reference Reader does."""
    tool_name = name or function.__name__

    async def call(args: dict[str, Any]) -> dict[str, Any]:
        value = function(**args)
        if inspect.isawaitable(value):
            value = await value
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return {"content": [{"type": "text", "text": text}]}

    parameters = inspect.signature(function).parameters.values()
    schema = {
        "type": "object",
        "properties": {p.name: {} for p in parameters},
        "required": [p.name for p in parameters if p.default is inspect.Parameter.empty],
    }
    # Read-only: Claude Code runs a response's read-only calls at once, as it does a Reader's.
    read_only = ToolAnnotations(readOnlyHint=True)
    made: SdkMcpTool[Any] = tool(
        tool_name, function.__doc__ or tool_name, schema, annotations=read_only
    )(call)
    return made


def sdk_tools(*functions: Callable[..., Any]) -> list[SdkMcpTool[Any]]:
    return [sdk_tool(function) for function in functions]


def stdio_server(module: str = "moca_agui.demo.reader") -> dict[str, Any]:
    """An MCP server the CLI starts over stdio: `python -m module`."""
    return {"type": "stdio", "command": sys.executable, "args": ["-m", module]}


def claude_app(
    responses: Responses,
    tools: Iterable[SdkMcpTool[Any]] | dict[str, Any],
    *,
    more: dict[str, Iterable[SdkMcpTool[Any]] | dict[str, Any]] | None = None,
    **cite_options: Any,
) -> FastAPI:
    """The app a user serves: `tools` (SDK MCP tools, or an MCP server's config) as the
    server `moca`, `more` as other servers, every tool allowed, `CitationMiddleware`
    (given `cite_options`) around it; `cite=False`: no middleware."""
    model = ScriptedMessagesAPI(scripted(responses))
    servers: dict[str, Any] = {}
    allowed: list[str] = []
    for name, given in {SERVER: tools, **(more or {})}.items():
        if isinstance(given, dict):
            servers[name] = given
            allowed.append(f"mcp__{name}")
        else:
            listed = list(given)
            servers[name] = create_sdk_mcp_server(name, "1.0.0", tools=listed)
            allowed += [f"mcp__{name}__{t.name}" for t in listed]
    adapter = ClaudeAgentAdapter(
        name="moca-test",
        options={
            "model": MODEL,
            "mcp_servers": servers,
            "allowed_tools": allowed,
            "env": offline_env(model.url),
        },
    )
    app = FastAPI()
    add_claude_fastapi_endpoint(app, adapter, "/")
    if cite_options.pop("cite", True):
        app.add_middleware(CitationMiddleware, **cite_options)
    return app


def by_question(steps: dict[str, list[Call | str]]) -> Responses:
    """`thread_turns`' steps (each Call one response, the text the last) as responses."""
    return lambda question: [[step] for step in steps[question]]
