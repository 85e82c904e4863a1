"""What the ADK tests share: a scripted offline model, Reader tools, the endpoint, HTTP."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from typing import Any

import httpx
from ag_ui_adk import ADKAgent, add_adk_fastapi_endpoint
from fastapi import FastAPI
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

import moca_agui
from moca_agui.check import check_events
from support import Call, Reader, answer_ids, assert_valid_stream, record, without_citations
from support import run_input as shared_run_input
from support import types as kinds

__all__ = ["A", "B", "C", "Call", "Reader", "Scripted", "answer_ids", "kinds", "post"]

A = record("a.md")
B = record("b.md")
C = record("c.md")

#: Usage figures: without them ADK logs a warning for every response.
_USAGE = types.GenerateContentResponseUsageMetadata(
    prompt_token_count=1, candidates_token_count=1, total_token_count=2
)


# -- the model --------------------------------------------------------------------------


Turn = Sequence[str | Call]
Script = Sequence[Turn]


class Scripted(BaseLlm):
    """An offline ADK model: its n-th response to a question plays turn n of the script.

    Text streams as partial responses, then the whole response (text and calls), as a
    Gemini model streams. `script` may depend on the question (runs of one agent differ).
    """

    model: str = "scripted"
    script: Any = ()

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        question, answered = _question(llm_request.contents)
        turns = self.script(question) if callable(self.script) else self.script
        turn = turns[answered]
        texts = [chunk for chunk in turn if isinstance(chunk, str)]
        if stream:
            for text in texts:
                yield LlmResponse(content=_content(types.Part(text=text)), partial=True)
        parts = [types.Part(text="".join(texts))] if texts else []
        parts += [
            types.Part(function_call=types.FunctionCall(name=c.name, args=c.args, id=c.id))
            for c in turn
            if isinstance(c, Call)
        ]
        yield LlmResponse(content=_content(*parts), usage_metadata=_USAGE)


def _content(*parts: types.Part) -> types.Content:
    return types.Content(role="model", parts=list(parts))


def _question(contents: list[types.Content]) -> tuple[str, int]:
    """The last user question, and how many model responses followed it."""
    question, answered = "", 0
    for content in contents:
        if content.role == "user" and any(part.text for part in content.parts or ()):
            question = "".join(part.text or "" for part in content.parts or ())
            answered = 0
        elif content.role == "model":
            answered += 1
    return question, answered


def llm_agent(script: Script | Callable[[str], Script], *tools: Any, **kw: Any) -> LlmAgent:
    return LlmAgent(name="assistant", model=Scripted(script=script), tools=list(tools), **kw)


def adk_agent(root: LlmAgent, **kw: Any) -> ADKAgent:
    return ADKAgent(adk_agent=root, app_name="tests", user_id="user-1", **kw)


# -- AG-UI over HTTP --------------------------------------------------------------------


def endpoint(agent: ADKAgent) -> FastAPI:
    """ag-ui-adk's documented endpoint."""
    app = FastAPI()
    add_adk_fastapi_endpoint(app, agent, path="/")
    return app


def run_input(
    question: str,
    *,
    thread_id: str | None = None,
    run_id: str = "run-1",
    history: Sequence[Any] = (),
) -> dict[str, Any]:
    """One user message after `history`, on a new thread unless `thread_id` is given (the
    default session service is shared by every `ADKAgent` of the process)."""
    thread_id = thread_id or f"thread-{uuid.uuid4().hex}"
    return shared_run_input(question, run_id, thread_id=thread_id, history=history)


async def post(
    app: Any,
    question: str,
    *,
    readers: Iterable[str] = moca_agui.DEFAULT_READER_TOOLS,
    **kw: Any,
) -> list[dict[str, Any]]:
    """POST one AG-UI run; the SSE events, parsed, after every check a stream must pass
    (`moca-agui check` with `readers` as the Reader tools)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(
            "/", json=run_input(question, **kw), headers={"accept": "text/event-stream"}
        )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = [chunk for chunk in response.text.replace("\r\n", "\n").split("\n\n") if chunk.strip()]
    stream = [json.loads(_data(chunk)) for chunk in chunks]
    assert_valid_stream(stream)
    findings = check_events(stream, reader_tools=readers)
    assert [str(f) for f in findings if f.level == "error"] == []
    return stream


def _data(chunk: str) -> str:
    lines = [line for line in chunk.splitlines() if line.startswith("data:")]
    assert lines, chunk
    return "\n".join(line[5:].removeprefix(" ") for line in lines)


async def run_both(agent: ADKAgent, question: str, **options: Any) -> list[dict[str, Any]]:
    """The instrumented stream, after checking it against the plain one: the agent's own
    events are unchanged and in order."""
    plain = await post(endpoint(agent), question)
    stream = await post(endpoint(moca_agui.instrument(agent, **options)), question)
    assert shape(without_citations(stream)) == shape(plain)
    return stream


def shape(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A stream without what differs between two runs: thread ids, generated ids."""
    names: dict[str, str] = {}
    shaped = []
    for event in stream:
        event = {key: value for key, value in event.items() if key not in ("timestamp", "threadId")}
        for key in ("messageId", "parentMessageId"):
            if key in event:
                event[key] = names.setdefault(event[key], f"message-{len(names) + 1}")
        if event["type"] == "MESSAGES_SNAPSHOT":
            event["messages"] = [
                {**m, "id": names.setdefault(m["id"], f"message-{len(names) + 1}")}
                for m in event["messages"]
            ]
        if event["type"] == "STATE_SNAPSHOT":
            event["snapshot"] = {k: v for k, v in event["snapshot"].items() if "thread" not in k}
        shaped.append(event)
    return shaped
