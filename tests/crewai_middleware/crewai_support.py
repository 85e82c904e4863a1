"""What the CrewAI tests share: the scripted CrewAI model, the Reader's tools as CrewAI
tools, a flow or a crew served by ag-ui-crewai behind `CitationMiddleware`, and a run of
it over HTTP."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import litellm
from ag_ui_crewai import add_crewai_crew_fastapi_endpoint, add_crewai_flow_fastapi_endpoint
from crewai import Agent, Crew, Task
from crewai.tools import tool
from fastapi import FastAPI
from litellm import CustomLLM
from pydantic import Field

import moca_agui
from moca_agui.asgi import CitationMiddleware
from moca_agui.check import check_events, parse_stream
from moca_agui.demo.frameworks.crewai import DemoLLM, chat_flow
from support import Call, assert_valid_stream, citation_events, record, ref, run_input

A, B = record("a.md"), record("b.md")
INVENTED = "https://example.com/moca/test-kb@1.0.0#never-read.md"

#: A script turn: the calls of one model response, or the answer (given the tool results
#: the model read, in its order: it may write the markers a numbered tool showed).
Turn = list[Call] | str | Callable[[list[str]], str]


class Scripted(DemoLLM):
    """A CrewAI LLM that plays `script`, one turn per model call after the question (the
    demo's model, its turns given). A call names its tool, or the end of the name CrewAI
    gives an MCP tool (the server's name, then the tool's)."""

    script: list[Any] = Field(default_factory=list)

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        return self.play(self.script, messages, tools)

    @staticmethod
    def play(script: list[Any], messages: Any, tools: Any) -> Any:
        """The turn of `script` the model is at, given the `messages` it is sent."""
        turns = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        seen = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        turn = script[turns]
        if callable(turn):
            return turn(seen)
        if isinstance(turn, str):
            return turn
        names = [t["function"]["name"] for t in tools or ()]
        return [
            {"id": c.id, "type": "function",
             "function": {"name": _named(c.name, names), "arguments": json.dumps(c.args)}}
            for c in turn
        ]  # fmt: skip


def _named(name: str, names: list[str]) -> str:
    """`name`, or the one tool name of `names` that ends with `_name` (an MCP tool's)."""
    return name if name in names else next((n for n in names if n.endswith(f"_{name}")), name)


def json_tool(name: str, function: Callable[..., Any]) -> Any:
    """A CrewAI tool named `name` returning `function`'s result as JSON text."""

    def run(node_id: str = "", query: str = "") -> str:
        """Look in the knowledge base."""
        result = function(node_id=node_id, query=query)
        return result if isinstance(result, str) else json.dumps(result)

    return tool(name)(run)


def get_node(node_id: str = "", query: str = "") -> Any:
    return {ref(r): r for r in (A, B)}.get(node_id) or {"error": f"no node {node_id}"}


def app_of(
    script: list[Turn],
    tools: list[Any],
    *,
    instrumented: bool = False,
    agent: dict[str, Any] | None = None,
    **options: Any,
) -> FastAPI:
    """ag-ui-crewai's flow endpoint on a flow running an `Agent` (with `agent`'s other
    arguments) on `script` with `tools`, behind the middleware with `options`;
    `instrumented`: the flow through `moca_agui.instrument`."""
    flow = chat_flow(Scripted(script=script), tools, **(agent or {}))
    app = FastAPI()
    add_crewai_flow_fastapi_endpoint(app, moca_agui.instrument(flow) if instrumented else flow, "/")
    app.add_middleware(CitationMiddleware, **options)
    return app


async def post(app: Any, question: str = "q", thread_id: str = "thread-1") -> list[dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t", timeout=120) as client:
        response = await client.post("/", json=run_input(question, thread_id=thread_id))
    assert response.status_code == 200, response.text
    stream = parse_stream(response.text)
    assert_valid_stream(stream)
    return stream


def cited(stream: list[dict[str, Any]]) -> list[tuple[str | None, str]]:
    assert check_events(stream) == []
    (value,) = citation_events(stream)
    return [(c.get("marker"), c["record"]["node"]["ref"]) for c in value["citations"]]


# -- a crew, served by add_crewai_crew_fastapi_endpoint ----------------------------------

CREW = "BeeCrew"


class ChatModel(CustomLLM):
    """The crew's chat model, offline through litellm's own seam for custom providers
    (`litellm.custom_provider_map`): it runs the crew, then answers with what the crew
    said (the crew's agent writes the markers)."""

    @staticmethod
    def reply(messages: list[dict[str, Any]], params: dict[str, Any]) -> tuple[str, Any]:
        names = [t["function"]["name"] for t in params.get("tools") or []]
        said = [str(m["content"]) for m in messages if m.get("role") == "tool"]
        if said:
            return "text", f"The crew says: {said[-1]}"
        if CREW in names and params.get("tool_choice") != "none":
            return "call", {"question": "Do I register my hives?"}
        return "text", "A crew that reads the handbook."  # the endpoint's descriptions

    def completion(self, model: str, messages: Any, *args: Any, **kwargs: Any) -> Any:
        kind, value = self.reply(messages, kwargs.get("optional_params") or {})
        assert kind == "text", "the endpoint streams the calls that run the crew"
        return litellm.completion(
            model="openai/scripted", messages=messages, mock_response=value, api_key="-"
        )

    async def acompletion(self, model: str, messages: Any, *args: Any, **kwargs: Any) -> Any:
        return self.completion(model, messages, *args, **kwargs)

    async def astreaming(self, model: str, messages: Any, *args: Any, **kwargs: Any) -> Any:
        kind, value = self.reply(messages, kwargs.get("optional_params") or {})
        end = {"text": "", "tool_use": None, "is_finished": True, "usage": None, "index": 0}
        if kind == "text":
            for start in range(0, len(value), 8):
                yield {**end, "text": value[start : start + 8], "is_finished": False,
                       "finish_reason": ""}  # fmt: skip
            yield {**end, "finish_reason": "stop"}
            return
        function = {"name": CREW, "arguments": json.dumps(value)}
        call = {"id": "call-crew", "type": "function", "index": 0, "function": function}
        yield {**end, "tool_use": call, "is_finished": False, "finish_reason": ""}
        yield {**end, "finish_reason": "tool_calls"}


class BeeCrew:
    """What the crew endpoint serves: an object whose `crew()` makes the crew (through
    `moca_agui.instrument`, if `instrumented`)."""

    name = CREW

    def __init__(
        self, script: list[Turn], tools: list[Any], *, instrumented: bool = False, **agent: Any
    ) -> None:
        self.script, self.tools, self.instrumented, self.agent = script, tools, instrumented, agent

    def crew(self) -> Crew:
        agent = Agent(
            role="Handbook reader", goal="Answer from the handbook", backstory="A beekeeper.",
            llm=Scripted(script=self.script), tools=self.tools, verbose=False, **self.agent,
        )  # fmt: skip
        task = Task(description="Answer: {question}", expected_output="An answer", agent=agent)
        crew = Crew(agents=[agent], tasks=[task], chat_llm="scripted/chat", verbose=False)
        return moca_agui.instrument(crew) if self.instrumented else crew


def crew_app(crew: BeeCrew) -> FastAPI:
    """ag-ui-crewai's crew endpoint on `crew`, behind the middleware (the chat model is
    `ChatModel`, which the caller installs)."""
    app = FastAPI()
    add_crewai_crew_fastapi_endpoint(app, crew, "/")
    app.add_middleware(CitationMiddleware)
    return app
