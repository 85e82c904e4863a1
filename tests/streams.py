"""Small builders of AG-UI event streams for the tests, and generated ones (hypothesis)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    EventType,
    RawEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from hypothesis import strategies as st
from pydantic import BaseModel

from support import record, ref


def run_started(run_id: str = "run-1") -> BaseEvent:
    return RunStartedEvent(thread_id="thread-1", run_id=run_id)


def run_finished(run_id: str = "run-1") -> BaseEvent:
    return RunFinishedEvent(thread_id="thread-1", run_id=run_id)


def run_error(message: str = "boom") -> BaseEvent:
    return RunErrorEvent(message=message)


def tool_call(call_id: str, name: str, result: Any, *, args: str = "{}") -> list[BaseEvent]:
    """A whole tool call: START, ARGS, END, RESULT (JSON text, or content parts as given)."""
    parts = isinstance(result, list) and all(isinstance(p, BaseModel) for p in result)
    content = result if isinstance(result, str) or (parts and result) else json.dumps(result)
    return [
        ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name),
        ToolCallArgsEvent(tool_call_id=call_id, delta=args),
        ToolCallEndEvent(tool_call_id=call_id),
        ToolCallResultEvent(message_id=f"tool-{call_id}", tool_call_id=call_id, content=content),
    ]


def message(message_id: str, *deltas: str) -> list[BaseEvent]:
    """An assistant message: START, one CONTENT per delta, END."""
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        *(TextMessageContentEvent(message_id=message_id, delta=d) for d in deltas),
        TextMessageEndEvent(message_id=message_id),
    ]


def run(*parts: BaseEvent | Iterable[BaseEvent], run_id: str = "run-1") -> list[BaseEvent]:
    """RUN_STARTED, the parts flattened, RUN_FINISHED."""
    events: list[BaseEvent] = [run_started(run_id)]
    for part in parts:
        events.extend([part] if isinstance(part, BaseEvent) else part)
    events.append(run_finished(run_id))
    return events


async def source(events: Iterable[BaseEvent]) -> AsyncIterator[BaseEvent]:
    for event in events:
        yield event


async def slowly(events: Iterable[BaseEvent], ended: list[bool]) -> AsyncIterator[BaseEvent]:
    """`events`, yielding to the loop after each (lookups started meanwhile run); `ended`
    gets True once the answer's TEXT_MESSAGE_END is sent, so a test can tell a lookup made
    while the answer streamed from one made after."""
    for event in events:
        if isinstance(event, TextMessageEndEvent):
            ended.append(True)
        yield event
        await asyncio.sleep(0)


def recording_lookup(
    records: Iterable[dict[str, Any]], calls: list[tuple[str, bool]], ended: list[bool]
) -> Callable[[str], Awaitable[dict[str, Any] | None]]:
    """A `lookup` that gives each of `records` by its ref and notes in `calls` each ref it
    was asked for, with whether the answer had ended (`slowly`'s `ended`)."""
    by_ref = {ref(rec): rec for rec in records}

    async def lookup(node_ref: str) -> dict[str, Any] | None:
        calls.append((node_ref, bool(ended)))
        return by_ref.get(node_ref)

    return lookup


# -- generated streams (hypothesis) -------------------------------------------------------

#: The records generated streams' tools return.
GENERATED_POOL = [record("a.md"), record("b.md"), record("c.md")]
_fragment = st.one_of(
    st.sampled_from([ref(r) for r in GENERATED_POOL]),
    st.sampled_from(["[1]", "[2]", "[3]", "[4]"]),
    st.sampled_from(["refunds", "see", "(", ")", ".", "\n"]),
)
_words = st.lists(_fragment, max_size=5).map(" ".join)
#: One step of a generated stream: a tool call, a message, a chunk continuation, an
#: event between, or the end of a run.
generated_step = st.one_of(
    st.tuples(
        st.just("tool"),
        st.sampled_from(["moca_search", "moca_get_node", "web_search"]),
        st.lists(st.sampled_from(GENERATED_POOL), min_size=1, max_size=3),
    ),
    st.tuples(
        st.just("message"),
        st.sampled_from(["m1", "m2", "m3"]),  # reopened ids too
        st.sampled_from(["assistant", "assistant", "user"]),
        st.lists(_words, min_size=1, max_size=3),
        st.sampled_from(["pairs", "chunks"]),
    ),
    st.tuples(st.just("continue"), _words),  # a chunk without messageId
    st.tuples(st.just("between"), st.sampled_from(["step", "raw", "state", "custom"])),
    st.tuples(st.just("end"), st.sampled_from(["finished", "error"])),
)


def _between(kind: str, index: int) -> list[BaseEvent]:
    if kind == "step":
        return [StepStartedEvent(step_name=f"s{index}"), StepFinishedEvent(step_name=f"s{index}")]
    if kind == "raw":
        return [RawEvent(event={"n": index})]
    if kind == "state":
        return [StateDeltaEvent(delta=[])]
    return [CustomEvent(type=EventType.CUSTOM, name="other", value=index)]


def generated_run(steps: list[Any]) -> list[BaseEvent]:
    """Runs of the steps: a new run after each end, message ids unique to their run."""
    events: list[BaseEvent] = []
    runs = 0

    def start() -> None:
        nonlocal runs
        runs += 1
        events.append(RunStartedEvent(thread_id="t", run_id=f"r{runs}"))

    start()
    for index, (kind, *body) in enumerate(steps):
        if kind == "tool":
            name, records = body
            result = records[0] if name == "moca_get_node" else {"query": "q", "results": records}
            events.extend(tool_call(f"call-{index}", name, result))
        elif kind == "message":
            message_id, role, deltas, style = body
            message_id = f"r{runs}-{message_id}"
            if style == "pairs":
                events.append(TextMessageStartEvent(message_id=message_id, role=role))
                events.extend(TextMessageContentEvent(message_id=message_id, delta=f" {d}")
                              for d in deltas)  # fmt: skip
                events.append(TextMessageEndEvent(message_id=message_id))
            else:
                events.append(TextMessageChunkEvent(message_id=message_id, role=role,
                                                    delta=f" {deltas[0]}"))  # fmt: skip
                events.extend(TextMessageChunkEvent(delta=f" {d}") for d in deltas[1:])
        elif kind == "continue":
            events.append(TextMessageChunkEvent(delta=f" {body[0]}"))
        elif kind == "between":
            events.extend(_between(body[0], index))
        else:
            end = RunFinishedEvent if body[0] == "finished" else RunErrorEvent
            events.append(end(thread_id="t", run_id=f"r{runs}") if body[0] == "finished"
                          else end(message="boom"))  # fmt: skip
            start()
    events.append(RunFinishedEvent(thread_id="t", run_id=f"r{runs}"))
    return events
