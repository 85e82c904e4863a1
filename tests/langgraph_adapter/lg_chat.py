"""An offline chat model for LangGraph tests: it binds tools and follows a script.

The stock fake chat models cannot bind tools and drop tool calls when streaming. This one
answers the n-th model call of a run (n = assistant messages since the last user
message) with `script[n]`: text to say and tools to call, in order. `ScriptedChatModel`
answers in one piece (no TEXT_MESSAGE events reach AG-UI); `StreamingChatModel` streams
each text in two chunks and each tool call as a name-and-id chunk, then an args chunk.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

from support import Call


@dataclass(frozen=True)
class Say:
    text: str


Turn = Sequence[Say | Call]


class ScriptedChatModel(BaseChatModel):
    """Answers each model call of a run with the next turn of `script`, not streamed."""

    script: list[Any]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        return self

    def turn(self, messages: list[BaseMessage]) -> Turn:
        last_user = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        answered = sum(isinstance(m, AIMessage) for m in messages[last_user:])
        return self.script[answered]  # type: ignore[no-any-return]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        parts = self.turn(messages)
        message = AIMessage(
            content="".join(part.text for part in parts if isinstance(part, Say)),
            tool_calls=[
                {"name": part.name, "args": part.args, "id": part.id, "type": "tool_call"}
                for part in parts
                if isinstance(part, Call)
            ],
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


class StreamingChatModel(ScriptedChatModel):
    """The same script, streamed chunk by chunk."""

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in _chunks(self.turn(messages)):
            generation = ChatGenerationChunk(message=chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token(str(chunk.content), chunk=generation)
            yield generation


def _chunks(parts: Turn) -> Iterator[AIMessageChunk]:
    calling = False
    for index, part in enumerate(parts):
        if isinstance(part, Say):
            if calling:  # providers send an empty chunk between a tool call and more text
                yield AIMessageChunk(content="")
                calling = False
            middle = len(part.text) // 2
            yield AIMessageChunk(content=part.text[:middle])
            yield AIMessageChunk(content=part.text[middle:])
        else:
            calling = True
            yield AIMessageChunk(
                content="",
                tool_call_chunks=[{"name": part.name, "id": part.id, "args": "", "index": index}],
            )
            yield AIMessageChunk(
                content="",
                tool_call_chunks=[
                    {"name": None, "id": None, "args": json.dumps(part.args), "index": index}
                ],
            )
