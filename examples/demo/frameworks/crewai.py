"""The demo service on CrewAI: a flow whose step runs a CrewAI `Agent` with the demo
Reader's tools and the scripted model (a CrewAI `BaseLLM`), served by ag-ui-crewai's
`add_crewai_flow_fastapi_endpoint`.

ag-ui-crewai writes its SSE itself, so there is no agent object to wrap: citations are
turned on by the lines the docs show, `moca_agui.instrument(flow)` (the order the model
read its results in) and `app.add_middleware(CitationMiddleware)`.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from collections.abc import Callable
from typing import Any

# Offline and quiet: no telemetry, no tracing, no price list fetched (before crewai loads).
for _name, _value in (
    ("CREWAI_DISABLE_TELEMETRY", "true"),
    ("CREWAI_DISABLE_TRACKING", "true"),
    ("CREWAI_TRACING_ENABLED", "false"),
    ("OTEL_SDK_DISABLED", "true"),
    ("LITELLM_LOCAL_MODEL_COST_MAP", "True"),
):
    os.environ.setdefault(_name, _value)

from ag_ui_crewai import CopilotKitState, add_crewai_flow_fastapi_endpoint  # noqa: E402
from crewai import Agent  # noqa: E402
from crewai.flow.flow import Flow, start  # noqa: E402
from crewai.llms.base_llm import BaseLLM  # noqa: E402
from crewai.tools import BaseTool, tool  # noqa: E402
from crewai_core.printer import (  # noqa: E402
    _suppress_console_output,
    set_suppress_console_output,
)
from fastapi import FastAPI  # noqa: E402

import moca_agui  # noqa: E402
from moca_agui.asgi import ASGIApp, CitationMiddleware, Receive, Scope, Send  # noqa: E402

from ..model import next_step  # noqa: E402
from ..reader import READER_TOOLS, DemoReader  # noqa: E402
from ..steps import Answer, ToolResult  # noqa: E402

__all__ = ["DemoLLM", "build_app", "chat_flow", "reader_tools"]

#: CrewAI writes the agent's task into its user message after this.
_TASK = "Current Task:"


def build_app(reader: DemoReader, **cite_options: Any) -> ASGIApp:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `CitationMiddleware`; `lookup` defaults to `reader.get`.
    """
    cite_options.setdefault("lookup", reader.get)
    app = FastAPI(title="moca-agui demo (CrewAI)")
    flow = moca_agui.instrument(chat_flow(DemoLLM(), reader_tools(reader)))
    add_crewai_flow_fastapi_endpoint(app, flow, "/")
    app.add_middleware(CitationMiddleware, **cite_options)
    return _quiet(app)


def reader_tools(reader: DemoReader) -> list[BaseTool]:
    """The Reader's tools as CrewAI tools, numbered: each returns the sources beside the
    markers the run gave them, as JSON text (ag-ui-crewai sends parallel calls as they
    finish, so only numbers the model read keep every marker)."""
    numbered = moca_agui.numbered([getattr(reader, name) for name in READER_TOOLS])
    return [
        tool(name)(_as_json(function))
        for name, function in zip(READER_TOOLS, numbered, strict=True)
    ]


def _as_json(function: Callable[..., Any]) -> Callable[..., str]:
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> str:
        result = function(*args, **kwargs)
        return result if isinstance(result, str) else json.dumps(result)

    # CrewAI builds the tool's schema from its signature: give it the types, not their names
    call.__signature__ = inspect.signature(function, eval_str=True)  # type: ignore[attr-defined]
    return call


def _quiet(app: ASGIApp) -> ASGIApp:
    """`app`, CrewAI's console panels off while it serves (they would print on stdout)."""

    async def quiet(scope: Scope, receive: Receive, send: Send) -> None:
        token = set_suppress_console_output(True)
        try:
            await app(scope, receive, send)
        finally:
            _suppress_console_output.reset(token)

    return quiet


def chat_flow(llm: BaseLLM, tools: list[BaseTool], **options: Any) -> Flow[CopilotKitState]:
    """A flow whose one step answers the thread's last question with an `Agent` (`options`:
    its other arguments, its MCP servers say)."""

    class ChatFlow(Flow[CopilotKitState]):
        @start()  # type: ignore[untyped-decorator]
        async def chat(self) -> None:
            agent = Agent(
                role="Beekeeping assistant",
                goal="Answer from the handbook, citing its sources",
                backstory="You read the Fernhollow apiary handbook through its Reader.",
                llm=llm,
                tools=tools,
                verbose=False,
                max_iter=6,
                **options,
            )
            thread = [
                {"role": m["role"], "content": m.get("content") or ""}
                for m in (dict(message) for message in self.state.messages)
                if m.get("role") in ("user", "assistant")
            ]
            answer = await agent.kickoff_async(thread)
            self.state.messages.append({"role": "assistant", "content": str(answer.raw)})

    return ChatFlow()


class DemoLLM(BaseLLM):
    """The demo's scripted model as a CrewAI LLM: offline, deterministic. Each call asks
    `next_step` what to do with the task's question and the tool results since."""

    llm_type: str = "moca-demo"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(model="moca-demo", **kwargs)

    def supports_function_calling(self) -> bool:
        return True

    def supports_stop_words(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 128_000

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        question, results = _question_and_results(messages)
        step = next_step(question, results)
        if isinstance(step, Answer):
            return step.text
        function = {"name": step.name, "arguments": json.dumps(step.arguments)}
        return [{"id": f"call-{len(results) + 1}", "type": "function", "function": function}]

    async def acall(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        return self.call(messages, tools, *args, **kwargs)


def _question_and_results(messages: Any) -> tuple[str, list[ToolResult]]:
    """The agent's task (the last user question), and the tool results that followed it."""
    question, results = "", list[ToolResult]()
    names: dict[str, str] = {}
    for message in [messages] if isinstance(messages, str) else messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            task = content.split(_TASK, 1)[-1].strip()
            question, results = (task.splitlines()[0] if task else ""), []
        for call in message.get("tool_calls") or ():
            names[call["id"]] = call["function"]["name"]
        if message.get("role") == "tool":
            try:
                value: Any = json.loads(str(content))
            except ValueError:
                value = content
            name = names.get(str(message.get("tool_call_id")), str(message.get("name", "")))
            results.append(ToolResult(name, value))
    return question, results
