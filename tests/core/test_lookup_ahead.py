"""Citations as fast as the answer: a source only `lookup` can give a record of is looked
up when the streamed answer first names it, while the model writes the rest; once a node
a run; and nothing is left running when the run ends, fails or its client leaves."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Iterable
from typing import Any

from ag_ui.core import BaseEvent, TextMessageContentEvent, TextMessageEndEvent
from hypothesis import given, settings
from hypothesis import strategies as st

import moca_agui
from moca_agui.records.references import find_markers, find_refs
from streams import message, recording_lookup, run, run_error, slowly, tool_call
from support import citation_events, collect, compact, other_tasks, record, ref, settled

A, B = record("a.md"), record("b.md")
SEARCH = tool_call("c1", "moca_search", {"query": "q", "results": [compact(A), compact(B)]})


async def streamed(events: Iterable[BaseEvent], said: dict[str, bool]) -> AsyncIterator[BaseEvent]:
    """`events` as a model streams them: the loop runs between two events; `said["end"]`
    turns True just before the answer's TEXT_MESSAGE_END."""
    for event in events:
        if isinstance(event, TextMessageEndEvent):
            said["end"] = True
        yield event
        await asyncio.sleep(0)


def answer(*words: str) -> list[BaseEvent]:
    return message("m1", *(f"{word} " for word in words))


class Lookup:
    """A Reader's `lookup` that says, for each call, whether the answer had ended."""

    def __init__(self, said: dict[str, bool], *, blocked: asyncio.Event | None = None) -> None:
        self.said = said
        self.calls: list[tuple[str, bool]] = []
        self.blocked = blocked
        self.cancelled: list[str] = []

    async def __call__(self, node_ref: str) -> dict[str, Any] | None:
        self.calls.append((node_ref, self.said["end"]))
        try:
            if self.blocked is not None:
                await self.blocked.wait()
        except asyncio.CancelledError:
            self.cancelled.append(node_ref)
            raise
        return {ref(A): A, ref(B): B}.get(node_ref)


async def test_a_source_is_looked_up_once_when_first_named_before_the_answer_ends():
    said = {"end": False}
    lookup = Lookup(said)
    words = ["Per", "[1],", "again", "[1]", f"and {ref(A)};", "then", "[2]."]
    stream = moca_agui.cite(streamed(run(SEARCH, answer(*words)), said), lookup=lookup)
    [value] = citation_events(await collect(stream))
    assert value["citations"] == [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    assert lookup.calls == [(ref(A), False), (ref(B), False)]  # each once, while streaming


async def test_a_source_named_only_in_the_last_word_is_looked_up_when_the_answer_ends():
    said = {"end": False}
    lookup = Lookup(said)
    events = run(SEARCH, message("m1", "Only ", "[2]"))  # no space after it
    [value] = citation_events(await collect(moca_agui.cite(streamed(events, said), lookup=lookup)))
    assert value["citations"] == [{"marker": "[2]", "record": B}]
    assert lookup.calls == [(ref(B), True)]


async def test_a_source_never_named_is_never_looked_up():
    said = {"end": False}
    lookup = Lookup(said)
    events = run(SEARCH, answer("Nothing", "cited", "[9]", "here."))
    assert citation_events(await collect(moca_agui.cite(streamed(events, said), lookup=lookup)))
    assert lookup.calls == []


async def test_a_client_leaving_mid_lookup_leaves_no_task_and_no_error(caplog):
    said = {"end": False}
    lookup = Lookup(said, blocked=asyncio.Event())
    baseline = set(asyncio.all_tasks())
    events = run(SEARCH, answer("Per", "[1]", "and", "more", "words", "to", "come."))
    stream = moca_agui.cite(streamed(events, said), lookup=lookup)
    with caplog.at_level(logging.INFO, logger="moca_agui"):
        async for event in stream:
            if isinstance(event, TextMessageContentEvent) and "more" in event.delta:
                break  # the client leaves
        assert lookup.calls == [(ref(A), False)]
        await stream.aclose()  # type: ignore[attr-defined]
        assert await settled(lambda: not other_tasks(baseline))
    assert lookup.cancelled == [ref(A)]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_run_error_mid_lookup_ends_the_lookup():
    said = {"end": False}
    lookup = Lookup(said, blocked=asyncio.Event())
    baseline = set(asyncio.all_tasks())
    events = [*run(SEARCH, answer("Per", "[1]", "and", "more."))[:-1], run_error()]
    stream = await collect(moca_agui.cite(streamed(events, said), lookup=lookup))
    assert not citation_events(stream)
    assert await settled(lambda: not other_tasks(baseline))
    assert lookup.cancelled == [ref(A)]


async def test_a_slow_lookup_holds_back_no_earlier_messages_event():
    """The first answer's event leaves while the second answer's lookup still runs: the
    lookup is released only once the first event has arrived."""
    said = {"end": False}
    released = asyncio.Event()
    lookup = Lookup(said, blocked=released)
    lookup.blocked = None  # A answers at once; B waits for `released`

    async def waiting(node_ref: str) -> dict[str, Any] | None:
        if node_ref == ref(B):
            await released.wait()
        return await lookup(node_ref)

    events = run(SEARCH, message("m1", "First [1] "), message("m2", "Second [2] "))
    stream = moca_agui.cite(streamed(events, said), lookup=waiting, lookup_timeout=5)
    values = []
    async for event in stream:
        if event.type == "CUSTOM":
            values.append(event.value)
            released.set()  # the first event came: the second lookup may end
    assert [v["messageId"] for v in values] == ["m1", "m2"]
    assert [c["record"] for v in values for c in v["citations"]] == [A, B]


async def test_a_blocking_lookup_cut_off_by_a_client_leaving_finishes_in_its_thread_unused():
    said = {"end": False}
    started, release = threading.Event(), threading.Event()
    answered: list[str] = []

    def get_node(node_ref: str) -> dict[str, Any]:  # a blocking Reader call
        started.set()
        release.wait(5)
        answered.append(node_ref)
        return A

    baseline = set(asyncio.all_tasks())
    events = run(SEARCH, answer("Per", "[1]", "and", "more", "words", "to", "come."))
    stream = moca_agui.cite(streamed(events, said), lookup=moca_agui.reader_lookup(get_node))
    async for event in stream:
        if isinstance(event, TextMessageContentEvent) and "more" in event.delta:
            break  # the client leaves while the lookup blocks in its thread
    assert await asyncio.to_thread(started.wait, 5)
    await stream.aclose()  # type: ignore[attr-defined]
    assert await settled(lambda: not other_tasks(baseline))  # no task waits for the thread
    release.set()  # the thread finishes the call on its own; its answer goes nowhere
    assert await settled(lambda: answered == [ref(A)])


async def test_a_slow_lookup_holds_back_no_later_messages_event():
    """The second answer's event leaves while the first answer's lookup still runs: the
    first lookup is released only once the second event has arrived."""
    said = {"end": False}
    released = asyncio.Event()
    lookup = Lookup(said)

    async def waiting(node_ref: str) -> dict[str, Any] | None:
        if node_ref == ref(A):
            await released.wait()
        return await lookup(node_ref)

    events = run(SEARCH, message("m1", "First [1] "), message("m2", "Second [2] "))
    stream = moca_agui.cite(streamed(events, said), lookup=waiting, lookup_timeout=5)
    values = []
    async for event in stream:
        if event.type == "CUSTOM":
            values.append(event.value)
            released.set()  # the second event came: the first lookup may end
    assert [v["messageId"] for v in values] == ["m2", "m1"]
    assert [c["record"] for v in values for c in v["citations"]] == [B, A]


C = record("c.md")
#: Words of an answer naming three compact results, by marker in each style the look-ahead
#: must read whole however the deltas split it (a grouped marker holds a space), and by ref.
_WORDS = st.sampled_from(
    ["Per", "the", "[1]", "[2],", "[3].", "[1, 2]", "[2, 3]", "[1-3]", "\n", f"see {ref(C)}"]
)


@given(st.lists(_WORDS, min_size=1, max_size=12), st.sets(st.integers(1, 200), max_size=30))
@settings(max_examples=200, deadline=None)
def test_however_deltas_split_an_answer_each_source_is_looked_up_once_while_it_streams(
    words: list[str], cuts: set[int]
) -> None:
    """Each source the answer names is looked up once, as soon as a space follows its
    marker or ref, before the answer ends, in the order the answer first names them: the
    look-ahead reads a delta only when it may hold a marker or end one, however deltas of
    a model's size (here at most 40 characters) split the answer (a marker or a ref cut
    in pieces, a space inside `[1, 2]`)."""
    text = " ".join(words) + " Done."
    at = sorted({cut for cut in cuts if cut < len(text)} | set(range(40, len(text), 40)))
    deltas = [text[start:end] for start, end in zip([0, *at], [*at, len(text)], strict=True)]
    found = [A, B, C]
    search = tool_call("c1", "moca_search", {"query": "q", "results": list(map(compact, found))})
    markers = {f"[{n}]": ref(rec) for n, rec in enumerate(found, start=1)}
    mentions = sorted([*find_markers(text, markers), *find_refs(text, {ref(C)})])
    named = list(dict.fromkeys(mention.ref for mention in mentions))
    ended: list[bool] = []
    calls: list[tuple[str, bool]] = []
    lookup = recording_lookup(found, calls, ended)
    events = run(search, message("m1", *deltas))
    stream = asyncio.run(collect(moca_agui.cite(slowly(events, ended), lookup=lookup)))
    [value] = citation_events(stream)
    assert calls == [(node_ref, False) for node_ref in named]
    assert [ref(c["record"]) for c in value["citations"]] == named


async def test_a_lookup_runs_in_one_task_of_its_own_from_its_first_step_to_its_last():
    """What a lookup enters in its first step (an MCP client's cancel scope, bound to the
    task it is entered in) it leaves in the same task, which is not the stream's."""
    said = {"end": False}
    tasks: list[asyncio.Task[Any] | None] = []

    async def lookup(node_ref: str) -> dict[str, Any] | None:
        tasks.append(asyncio.current_task())
        await asyncio.sleep(0)
        tasks.append(asyncio.current_task())
        return A if node_ref == ref(A) else None

    events = run(SEARCH, answer("Per", "[1]", "and", "more."))
    [value] = citation_events(await collect(moca_agui.cite(streamed(events, said), lookup=lookup)))
    assert value["citations"] == [{"marker": "[1]", "record": A}]
    assert len(tasks) == 2
    assert tasks[0] is tasks[1] is not asyncio.current_task()
