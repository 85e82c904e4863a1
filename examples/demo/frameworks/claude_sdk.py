"""The demo service on the Claude Agent SDK: ag-ui-claude-sdk's `ClaudeAgentAdapter`, its
Reader tools an in-process SDK MCP server, served by `add_claude_fastapi_endpoint`.

The SDK drives the Claude Code CLI, and the CLI calls the Anthropic Messages API: the
offline model is that API, scripted (`ScriptedMessagesAPI`, on 127.0.0.1), and the CLI is
pointed at it (`ANTHROPIC_BASE_URL`). Everything else is real: the CLI runs the agent
loop and calls the tools. Citations are turned on by the one line the README shows:
`app.add_middleware(CitationMiddleware)`.
"""

from __future__ import annotations

import inspect
import json
import tempfile
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ag_ui_claude_sdk import (  # type: ignore[import-untyped,unused-ignore]
    ClaudeAgentAdapter,
    add_claude_fastapi_endpoint,
)
from claude_agent_sdk import SdkMcpTool, create_sdk_mcp_server, tool
from fastapi import FastAPI

from moca_agui.asgi import CitationMiddleware

from ..model import next_step
from ..reader import READER_TOOLS, DemoReader
from ..steps import Answer, ToolResult

__all__ = ["ScriptedMessagesAPI", "build_app", "offline_env", "reader_tools"]

#: The SDK MCP server the demo's Reader tools are served from (`mcp__moca__moca_search`).
SERVER = "moca"
MODEL = "claude-haiku-4-5"
#: What the CLI appends to a tool result for the model: not part of the result.
_REMINDER = "\n\n<system-reminder>"


def build_app(reader: DemoReader, **cite_options: Any) -> FastAPI:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `CitationMiddleware`; `lookup` defaults to `reader.get`.
    """
    cite_options.setdefault("lookup", reader.get)
    model = ScriptedMessagesAPI(lambda question, results: next_step(question, results))
    server = create_sdk_mcp_server(SERVER, "1.0.0", tools=reader_tools(reader))
    adapter = ClaudeAgentAdapter(
        name="moca-demo",
        options={
            "model": MODEL,
            "mcp_servers": {SERVER: server},
            "allowed_tools": [f"mcp__{SERVER}__{name}" for name in READER_TOOLS],
            "env": offline_env(model.url),
        },
    )
    app = FastAPI(title="moca-agui demo (Claude Agent SDK)")
    add_claude_fastapi_endpoint(app, adapter, "/")
    app.add_middleware(CitationMiddleware, **cite_options)
    return app


def offline_env(model_url: str) -> dict[str, str]:
    """The CLI's environment: the scripted API, no other traffic, a home of its own."""
    return {
        "ANTHROPIC_BASE_URL": model_url,
        "ANTHROPIC_API_KEY": "offline",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "ENABLE_TOOL_SEARCH": "false",  # MCP tools are sent to the model, not searched for
        "HOME": tempfile.mkdtemp(prefix="moca-agui-claude-"),
    }


def reader_tools(reader: DemoReader) -> list[SdkMcpTool[Any]]:
    """The Reader's tools as SDK MCP tools: each answers one text block of JSON."""

    def made(name: str) -> SdkMcpTool[Any]:
        method: Callable[..., Any] = getattr(reader, name)

        async def call(args: dict[str, Any]) -> dict[str, Any]:
            text = json.dumps(method(**args), ensure_ascii=False)
            return {"content": [{"type": "text", "text": text}]}

        parameters = inspect.signature(method).parameters.values()
        schema = {
            "type": "object",
            "properties": {p.name: {} for p in parameters},
            "required": [p.name for p in parameters if p.default is inspect.Parameter.empty],
        }
        made_tool: SdkMcpTool[Any] = tool(name, method.__doc__ or name, schema)(call)
        return made_tool

    return [made(name) for name in READER_TOOLS]


Script = Callable[[str, list[ToolResult]], Any]


class ScriptedMessagesAPI:
    """The Anthropic Messages API (`POST /v1/messages`, streamed), each response asked of
    `script(question, results)`: a `ToolCall` or an `Answer` (streamed a line at a time).
    A `ToolCall` may name a tool by its own name: the request's tool of that name under
    any MCP server is called. Serves on 127.0.0.1 from a daemon thread."""

    def __init__(self, script: Script) -> None:
        self.script = script
        handler = type("Handler", (_Handler,), {"api": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def events(self, body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        """The streamed response to one request, as (event name, data) pairs."""
        step = self.script(*_question_and_results(body.get("messages", [])))
        steps = step if isinstance(step, list) else [step]
        yield "message_start", {"type": "message_start", "message": {
            "id": f"msg_{id(body):x}", "type": "message", "role": "assistant", "model": MODEL,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}}}  # fmt: skip
        tools = [str(t.get("name")) for t in body.get("tools", [])]
        for index, one in enumerate(steps):
            yield from _block(index, one, tools)
        stop = "end_turn" if any(isinstance(one, Answer) for one in steps) else "tool_use"
        yield "message_delta", {"type": "message_delta", "usage": {"output_tokens": 1},
                                "delta": {"stop_reason": stop, "stop_sequence": None}}  # fmt: skip
        yield "message_stop", {"type": "message_stop"}


def _block(index: int, step: Any, tools: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(step, Answer):
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": {"type": "text", "text": ""}}  # fmt: skip
        for line in step.text.splitlines(keepends=True):
            delta = {"type": "text_delta", "text": line}
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": delta}  # fmt: skip
    else:
        name = next((t for t in tools if t == step.name or t.endswith(f"__{step.name}")), step.name)
        call_id = (
            getattr(step, "id", None) or f"toolu_{index}_{abs(hash(json.dumps(step.arguments))):x}"
        )
        block: dict[str, Any] = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": block}  # fmt: skip
        delta = {"type": "input_json_delta", "partial_json": json.dumps(step.arguments)}
        yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                      "delta": delta}  # fmt: skip
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


class _Handler(BaseHTTPRequestHandler):
    api: ScriptedMessagesAPI

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if not self.path.startswith("/v1/messages") or self.path.startswith("/v1/messages/"):
            self._json({})  # token counting and the like: nothing to say
            return
        if not body.get("stream"):
            self._json({"id": "msg_plain", "type": "message", "role": "assistant",
                        "model": MODEL, "content": [{"type": "text", "text": "ok"}],
                        "stop_reason": "end_turn", "usage": {"input_tokens": 1,
                                                             "output_tokens": 1}})  # fmt: skip
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for name, data in self.api.events(body):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def do_GET(self) -> None:
        self._json({})

    def _json(self, value: object) -> None:
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the demo's output is its event stream


def _question_and_results(messages: list[dict[str, Any]]) -> tuple[str, list[ToolResult]]:
    """The last user question, and the tool results that followed it, in order."""
    question = ""
    results: list[ToolResult] = []
    names: dict[str, str] = {}
    for message in messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or []:
            kind = block.get("type")
            if kind == "tool_use":
                names[block["id"]] = str(block["name"]).rsplit("__", 1)[-1]
            elif kind == "tool_result":
                text = block.get("content")
                if isinstance(text, list):
                    text = "".join(
                        str(part.get("text", ""))
                        for part in text
                        if not str(part.get("text", "")).lstrip().startswith("<system-reminder>")
                    )
                text = str(text or "").split(_REMINDER, 1)[0]
                try:
                    value: Any = json.loads(text)
                except ValueError:
                    value = text
                results.append(ToolResult(names.get(block["tool_use_id"], ""), value))
            elif kind == "text" and message.get("role") == "user":
                text = str(block.get("text", ""))
                if text.strip() and not text.lstrip().startswith("<system-reminder>"):
                    question, results = text, []
    return question, results
