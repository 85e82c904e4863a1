"""`CitingWorkflow`: an AGUIChatWorkflow that sends `moca.citations` events.

LlamaIndex's AG-UI stream has no TOOL_CALL_RESULT and no TEXT_MESSAGE_END, so the
citations are made inside the workflow, where its steps see what the wire does not:

- `handle_tool_call` sees each tool's raw output; `aggregate_tool_calls` captures them
  in the order the chat history (what the model reads) lists them;
- `chat` streams the answer: a view of its Context pushes each text chunk it writes to
  the run's `CitationStream` as it streams, and `_snapshot_messages` gives
  the new assistant message the streamed id, so every MESSAGES_SNAPSHOT after it agrees
  with the stream; the tool steps run in the stream's `running()`;
- the step that ends the run writes the `moca.citations` events its stream gives when
  the run's text ends (`finish`); the router sends RUN_FINISHED after.

State belongs to one run: the workflow's `RunObjectRegistry` finds it by the run's state
store (`ctx.store`, the one object LlamaIndex hands each of the run's steps as the run's
own), held weakly so the state goes with the run. The workflow's own run id is not the
key: a step reaches it only through its runtime's context variable, not `ctx`, and
nothing of the run would hold the state under an id between steps. Steps run as tasks
on one event loop and touch the state only in synchronous code, so their concurrent
workers never interleave.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import CustomEvent, TextMessageChunkEvent
from llama_index.core.llms import ChatMessage
from llama_index.core.tools import ToolOutput
from llama_index.core.workflow import Context, StopEvent, step
from llama_index.protocols.ag_ui.agent import (  # type: ignore[import-untyped]
    AGUIChatWorkflow,
    InputEvent,
    LoopEvent,
    ToolCallEvent,
    ToolCallResultEvent,
)
from llama_index.protocols.ag_ui.events import (  # type: ignore[import-untyped]
    CustomWorkflowEvent,
    TextMessageChunkWorkflowEvent,
)

from moca_agui import CitationOptions
from moca_agui.adapter import CitationRun, CitationStream, RunObjectRegistry

from ._llama_index_results import reader_result
from ._llama_index_thread import thread_read

__all__ = ["CitingWorkflow", "with_runs"]

logger = logging.getLogger("moca_agui")


@dataclass(slots=True)
class _RunState:
    """One run's citations (its text chunks fed to `stream`), and the tool outputs not yet
    in its chat history."""

    stream: CitationStream
    outputs: dict[str, tuple[str, ToolOutput]] = field(default_factory=dict)


class _ChatStepContext:
    """The Context one `chat` step sees: forwards everything, pushes the text it streams."""

    __slots__ = ("_ctx", "_stream", "message_id")

    def __init__(self, ctx: Context, stream: CitationStream) -> None:
        self._ctx = ctx
        self._stream = stream
        self.message_id: str | None = None  # the id of the text this step streamed

    def write_event_to_stream(self, ev: Any) -> None:
        self._ctx.write_event_to_stream(ev)
        if isinstance(ev, TextMessageChunkWorkflowEvent) and ev.message_id and ev.delta:
            self.message_id = ev.message_id
            # Pushed as it streams: the sources it names are looked up while the model
            # writes the rest. A text chunk makes nothing due (RUN_FINISHED and a snapshot
            # do): `push` gives the chunk back, and the step has nothing else to send.
            chunk = TextMessageChunkEvent(message_id=ev.message_id, delta=ev.delta)
            if self._stream.push(chunk) is not chunk:  # events this step cannot send
                logger.error("moca_agui: a text chunk made events due; citations off for this run")
                self._stream.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)


class CitingWorkflow(AGUIChatWorkflow):  # type: ignore[misc]
    """AGUIChatWorkflow plus `moca.citations` events; the steps and events are LlamaIndex's.

    Made by `moca_agui.instrument` from a workflow factory, an AGUIChatWorkflow
    subclass or an instance; a subclass that overrides `chat`, `handle_tool_call` or
    `aggregate_tool_calls` must keep their signatures.
    """

    #: What `moca_agui.instrument` was told; set on the class or on one instance.
    moca_agui_options: CitationOptions = CitationOptions()
    #: This workflow's runs in flight, each under its own `ctx.store` (not in the store
    #: itself, which must serialise): one per instance, made with it (`with_runs`).
    moca_agui_runs: RunObjectRegistry[_RunState]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """An instance of an instrumented class, with a registry of its own."""
        super().__init__(*args, **kwargs)
        self.moca_agui_runs = RunObjectRegistry()

    # -- steps -----------------------------------------------------------------------

    @step
    async def chat(
        self, ctx: Context, ev: InputEvent | LoopEvent
    ) -> StopEvent | ToolCallEvent | None:
        state = _start_run(self, ctx, ev) if isinstance(ev, InputEvent) else _run_of(self, ctx)
        if state is None:
            return await super().chat(ctx, ev)
        with _ended_if_broken(self, ctx, state):
            result = await super().chat(_ChatStepContext(ctx, state.stream), ev)
            if isinstance(result, StopEvent):
                await _send_citations(self, ctx, state)
        return result

    @step
    async def handle_tool_call(self, ctx: Context, ev: ToolCallEvent) -> ToolCallResultEvent:
        state = _run_of(self, ctx)
        if state is None:
            plain: ToolCallResultEvent = await super().handle_tool_call(ctx, ev)
            return plain
        with _ended_if_broken(self, ctx, state), state.stream.running():
            result: ToolCallResultEvent = await super().handle_tool_call(ctx, ev)  # numbered
        state.outputs[result.tool_call_id] = (result.tool_name, result.tool_output)
        return result

    @step
    async def aggregate_tool_calls(
        self, ctx: Context, ev: ToolCallResultEvent
    ) -> StopEvent | LoopEvent | None:
        result = await super().aggregate_tool_calls(ctx, ev)
        state = _run_of(self, ctx)
        if result is None or state is None:
            return result
        try:
            history = await ctx.store.get("chat_history", default=[])
            _capture(state, history)
        except Exception:
            logger.exception("moca_agui: tool results of this turn not captured")
        if isinstance(result, StopEvent):
            with _ended_if_broken(self, ctx, state):
                await _send_citations(self, ctx, state)
        return result

    def _snapshot_messages(self, ctx: Any, chat_history: list[ChatMessage]) -> None:
        if isinstance(ctx, _ChatStepContext) and chat_history:
            _name_message(chat_history[-1], ctx.message_id)
        super()._snapshot_messages(ctx, chat_history)


# -- the run's state -------------------------------------------------------------------
# Functions, not methods: LlamaIndex lists a workflow's members (inspect.getmembers) each
# time it looks up its steps, about fourteen times a run, and each member costs it.


def with_runs(workflow: Any) -> Any:
    """A shallow copy of `workflow` with a registry of its own: run state is never shared
    with the original (nor with another copy)."""
    twin = copy.copy(workflow)
    twin.moca_agui_runs = RunObjectRegistry()
    return twin


def _start_run(workflow: CitingWorkflow, ctx: Context, ev: InputEvent) -> _RunState | None:
    try:
        run = CitationRun(workflow.moca_agui_options)
        run.read_history(thread_read(ev.input_data.messages or ()))  # the thread the client sent
        state = _RunState(CitationStream(run))
        workflow.moca_agui_runs.add(ctx.store, state)
        return state
    except Exception:
        logger.exception("moca_agui: citations off for this run; the answer is unchanged")
        return None


@contextlib.contextmanager
def _ended_if_broken(workflow: CitingWorkflow, ctx: Context, state: _RunState) -> Iterator[None]:
    """A step of the run that raises, or is cancelled (the client left, the workflow timed
    out), ends the run: the lookups it started stop now, not at their timeout."""
    try:
        yield
    except BaseException:
        workflow.moca_agui_runs.remove(ctx.store)
        state.stream.close()
        raise


def _run_of(workflow: CitingWorkflow, ctx: Context) -> _RunState | None:
    try:
        return workflow.moca_agui_runs.get(ctx.store)
    except Exception:
        logger.exception("moca_agui: citations off for this step; the answer is unchanged")
        return None


def _capture(state: _RunState, history: list[ChatMessage]) -> None:
    """Capture this turn's tool outputs in the order the model reads them."""
    for message in history:
        if message.role.value != "tool":  # tool results sent by the client are "user"
            continue
        call_id = message.additional_kwargs.get("tool_call_id", "")
        taken = state.outputs.pop(call_id, None)
        if taken is not None:
            tool_name, output = taken
            # The history is the order the model reads the results in (LlamaIndex
            # appends them as they finish): it is this run's call order.
            run = state.stream.run
            run.call_made(call_id, tool_name)
            failed = output.is_error
            run.capture(tool_name, reader_result(output), tool_call_id=call_id, failed=failed)
    state.outputs.clear()  # frontend tools: their results come from the client


async def _send_citations(workflow: CitingWorkflow, ctx: Context, state: _RunState) -> None:
    try:
        workflow.moca_agui_runs.remove(ctx.store)
        async for event in state.stream.finish():  # its citation events, CUSTOM all
            if isinstance(event, CustomEvent):
                ctx.write_event_to_stream(CustomWorkflowEvent(name=event.name, value=event.value))
    except Exception:
        logger.exception("moca_agui: no citations sent for this run; the answer is unchanged")


def _name_message(message: ChatMessage, streamed_id: str | None) -> None:
    """Give the chat step's new assistant message one id: the one its text streamed with."""
    if message.role.value == "assistant" and "id" not in message.additional_kwargs:
        message.additional_kwargs["id"] = streamed_id or str(uuid.uuid4())
