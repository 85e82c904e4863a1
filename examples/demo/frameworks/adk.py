"""The demo service on Google ADK: an `LlmAgent` with the demo Reader's tools and the
scripted model, served by ag-ui-adk's FastAPI endpoint.

Citations are turned on by the one line the README shows:
`agent = moca_agui.instrument(ADKAgent(adk_agent=root_agent, ...))`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from ag_ui_adk import ADKAgent, add_adk_fastapi_endpoint  # type: ignore[import-untyped]
from fastapi import FastAPI
from google.adk.agents.llm_agent import LlmAgent, ToolUnion
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.function_tool import FunctionTool
from google.genai import types

import moca_agui

from ..model import next_step
from ..reader import READER_TOOLS, DemoReader
from ..steps import Answer, ToolResult

__all__ = ["ScriptedLlm", "build_app", "reader_tools"]


def build_app(reader: DemoReader, **cite_options: Any) -> FastAPI:
    """An ASGI app whose POST `/` is the AG-UI endpoint, with citations on.

    `cite_options` go to `moca_agui.instrument`; `lookup` defaults to `reader.get`, so
    compact search results become whole records.
    """
    cite_options.setdefault("lookup", reader.get)
    root_agent = LlmAgent(name="moca_demo", model=ScriptedLlm(), tools=reader_tools(reader))
    agent = moca_agui.instrument(
        ADKAgent(adk_agent=root_agent, app_name="moca-agui-demo", user_id="demo-user"),
        **cite_options,
    )
    app = FastAPI(title="moca-agui demo (Google ADK)")
    add_adk_fastapi_endpoint(app, agent, path="/")
    return app


def reader_tools(reader: DemoReader) -> list[ToolUnion]:
    """The Reader's tools as ADK function tools, named and described as the reference's."""
    return [FunctionTool(getattr(reader, name)) for name in READER_TOOLS]


class ScriptedLlm(BaseLlm):
    """The demo's scripted model as an ADK model: offline, deterministic.

    Each response asks `next_step` what to do with the last user question and the tool
    results since: one function call, or the answer, streamed a line at a time and then
    whole, as a Gemini model streams.
    """

    model: str = "moca-agui-demo"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        step = next_step(*_question_and_results(llm_request.contents))
        if not isinstance(step, Answer):
            call = types.FunctionCall(name=step.name, args=step.arguments)
            yield LlmResponse(content=_content(function_call=call), usage_metadata=_USAGE)
            return
        if stream:
            for line in step.text.splitlines(keepends=True):
                yield LlmResponse(content=_content(text=line), partial=True)
        yield LlmResponse(content=_content(text=step.text), usage_metadata=_USAGE)


#: Token counts: ADK logs a warning for each response without them.
_USAGE = types.GenerateContentResponseUsageMetadata(
    prompt_token_count=0, candidates_token_count=0, total_token_count=0
)


def _content(**part: Any) -> types.Content:
    return types.Content(role="model", parts=[types.Part(**part)])


def _question_and_results(contents: list[types.Content]) -> tuple[str, list[ToolResult]]:
    """The last user question, and the tool results that followed it, in order."""
    question = ""
    results: list[ToolResult] = []
    for content in contents:
        for part in content.parts or ():
            if content.role == "user" and part.text:
                question, results = part.text, []
            elif part.function_response is not None:
                response = part.function_response
                results.append(ToolResult(response.name or "", response.response))
    return question, results
