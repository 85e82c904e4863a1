"""`moca_agui.cite` on plain AG-UI streams: placement, resolution, what is left out."""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from pydantic_core import to_json

import moca_agui
import moca_agui.adapter
from streams import message, run, run_error, run_finished, run_started, source, tool_call
from support import (
    assert_valid_stream,
    citation_events,
    collect,
    example_record,
    record,
    ref,
    types,
    wire,
    without_citations,
)

A, B, C = record("a.md"), record("b.md"), record("c.md")


async def cited(events, grammar=True, **options):
    stream = await collect(moca_agui.cite(source(events), **options))
    assert without_citations(stream) == [wire(e) for e in events]
    assert_valid_stream(stream, grammar=grammar)
    return stream


async def test_event_after_the_message_end_and_before_run_finished():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A, B]}),
        message("m1", "See ", f"{ref(A)} and [2]."),
    )
    stream = await cited(events)
    assert types(stream) == [
        "RUN_STARTED",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]  # fmt: skip
    [value] = citation_events(stream)
    assert value["version"] == 1
    assert value["messageId"] == "m1"
    assert value["citations"] == [{"record": A}, {"marker": "[2]", "record": B}]
    assert value["computedAt"].endswith("+00:00")


@pytest.mark.parametrize("end", ["RUN_FINISHED", "the stream's end"])
async def test_a_message_that_never_ended_gets_no_event(end, caplog):
    """Its event would have to follow its TEXT_MESSAGE_END (spec section 3): a message
    started and never ended gets none, logged; the messages that ended get theirs."""
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A, B]}),
        message("m1", "See [1].")[:-1],  # no TEXT_MESSAGE_END
        message("m2", "And [2]."),
    )
    if end != "RUN_FINISHED":
        events = events[:-1]
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        stream = await collect(moca_agui.cite(source(events)))
    assert without_citations(stream) == [wire(e) for e in events]
    assert types(stream) == [
        "RUN_STARTED",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
        "CUSTOM:moca.citations",
        *(["RUN_FINISHED"] if end == "RUN_FINISHED" else []),
    ]  # fmt: skip
    [value] = citation_events(stream)
    assert value["messageId"] == "m2"
    assert value["citations"] == [{"marker": "[2]", "record": B}]
    assert "message m1 never ended; no citations for it" in caplog.text


async def test_records_are_byte_identical_to_the_readers_json():
    reader_json = json.dumps(
        {"query": "refunds", "results": [example_record()]}, ensure_ascii=False, indent=2
    )
    events = run(
        tool_call("c1", "moca_get_node", reader_json),
        message("m1", f"Within 30 days ({example_record()['node']['ref']})."),
    )
    stream = await cited(events)
    [value] = citation_events(stream)
    sent = json.dumps(value["citations"][0]["record"], ensure_ascii=False, indent=2)
    assert sent == json.dumps(json.loads(reader_json)["results"][0], ensure_ascii=False, indent=2)


async def test_invented_refs_unreturned_nodes_and_forged_records_are_left_out(caplog):
    caplog.set_level(logging.DEBUG, logger="moca_agui")
    forged = record("forged.md")
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A]}),
        tool_call("c2", "web_fetch", {"query": "q", "results": [forged]}),  # not a Reader
        message(
            "m1",
            f"{ref(A)}, invented https://example.com/moca/test-kb@1.0.0#nope.md, "
            f"never read {ref(C)}, forged {ref(forged)}, marker [9].",
        ),
    )
    stream = await cited(events)
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": A}]
    logged = caplog.text
    assert "#nope.md" in logged and ref(C) in logged and ref(forged) in logged
    assert "[9]" in logged


async def test_the_same_node_cited_twice_gets_one_entry_in_order_of_first_mention():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A, B, C]}),
        message("m1", f"[3] first, then {ref(A)}, again [3] and {ref(C)}, and [1]."),
    )
    [value] = citation_events(await cited(events))
    assert value["citations"] == [{"marker": "[3]", "record": C}, {"marker": "[1]", "record": A}]


async def test_two_answers_in_one_run_each_get_their_own_event():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A]}),
        message("m1", f"First: {ref(A)}."),
        tool_call("c2", "moca_get_node", B),
        message("m2", f"Second: {ref(B)} and {ref(A)}."),
    )
    stream = await cited(events)
    assert types(stream)[-3:] == ["CUSTOM:moca.citations", "CUSTOM:moca.citations", "RUN_FINISHED"]
    first, second = citation_events(stream)
    assert (first["messageId"], first["citations"]) == ("m1", [{"record": A}])
    assert (second["messageId"], second["citations"]) == ("m2", [{"record": B}, {"record": A}])


async def test_a_message_reopened_with_the_same_id_gets_one_event_after_its_last_end():
    events = run(
        message("m1", f"Looking up {ref(A)}"),
        tool_call("c1", "moca_search", {"query": "q", "results": [A, B]}),
        message("m1", " and [2]."),
    )
    stream = await cited(events, grammar=False)  # the input reuses m1 after its END
    assert types(stream).count("CUSTOM:moca.citations") == 1
    assert types(stream).index("CUSTOM:moca.citations") == len(stream) - 2
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": A}, {"marker": "[2]", "record": B}]


async def test_a_marker_of_a_reopened_message_names_only_what_had_arrived_when_its_part_began():
    events = run(
        message("m1", "Per [2]"),
        tool_call("c1", "moca_search", {"query": "q", "results": [A, B]}),
        message("m1", " and [1]."),
    )
    [value] = citation_events(await cited(events, grammar=False))
    assert value["citations"] == [{"marker": "[1]", "record": A}]


async def test_chunk_streams_are_aggregated_by_message_id():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A]}),
        TextMessageChunkEvent(message_id="m1", role="assistant", delta="Per "),
        TextMessageChunkEvent(delta="[1]"),
        TextMessageChunkEvent(message_id="m2", role="assistant", delta="nothing cited"),
    )
    stream = await cited(events)
    first, second = citation_events(stream)
    assert (first["messageId"], first["citations"]) == ("m1", [{"marker": "[1]", "record": A}])
    assert (second["messageId"], second["citations"]) == ("m2", [])


async def test_a_chunk_without_message_id_after_another_event_is_no_text_of_the_message(caplog):
    # As @ag-ui/client reads it: STEP_STARTED closes m1, and the last chunk continues nothing.
    caplog.set_level(logging.DEBUG, logger="moca_agui")
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A]}),
        TextMessageChunkEvent(message_id="m1", role="assistant", delta="Per the handbook "),
        StepStartedEvent(step_name="think"),
        TextMessageChunkEvent(delta="[1]"),
        StepFinishedEvent(step_name="think"),
    )
    stream = await collect(moca_agui.cite(source(events)))
    assert without_citations(stream) == [wire(e) for e in events]
    [value] = citation_events(stream)
    assert (value["messageId"], value["citations"]) == ("m1", [])
    assert "TEXT_MESSAGE_CHUNK left out of every message" in caplog.text


async def test_no_event_for_empty_or_non_assistant_messages_and_empty_list_when_nothing_resolves():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A]}),
        TextMessageStartEvent(message_id="empty", role="assistant"),
        TextMessageEndEvent(message_id="empty"),
        TextMessageStartEvent(message_id="blank", role="assistant"),
        TextMessageContentEvent(message_id="blank", delta="\n "),
        TextMessageEndEvent(message_id="blank"),
        *(
            [
                TextMessageStartEvent(message_id=role, role=role),
                TextMessageContentEvent(message_id=role, delta=f"{ref(A)} [1]"),
                TextMessageEndEvent(message_id=role),
            ]
            for role in ("user", "developer", "system")
        ),
        message("m1", "No sources here."),
    )
    stream = await cited(events)
    [value] = citation_events(stream)
    assert value == {"version": 1, "messageId": "m1", "citations": []}


async def test_nothing_is_sent_after_run_error():
    events = [
        run_started(),
        *tool_call("c1", "moca_search", {"query": "q", "results": [A]}),
        *message("m1", f"{ref(A)}"),
        run_error(),
    ]
    stream = await collect(moca_agui.cite(source(events)))
    assert stream == [wire(e) for e in events]


async def test_a_stream_without_run_finished_gets_its_events_at_the_end():
    events = [run_started(), *tool_call("c1", "moca_get_node", A), *message("m1", ref(A))]
    stream = await collect(moca_agui.cite(source(events)))
    assert types(stream)[-1] == "CUSTOM:moca.citations"
    assert citation_events(stream)[0]["citations"] == [{"record": A}]


async def test_each_run_of_a_stream_sees_only_its_own_records():
    events = [
        *run(tool_call("c1", "moca_get_node", A), message("m1", ref(A)), run_id="r1"),
        *run(message("m2", f"{ref(A)} was read in the other run"), run_id="r2"),
    ]
    first, second = citation_events(await collect(moca_agui.cite(source(events))))
    assert first["citations"] == [{"record": A}]
    assert second["citations"] == []


async def test_interleaved_runs_keep_their_records_apart():
    async def slow(events):
        for event in events:
            await asyncio.sleep(0)
            yield event

    one = run(tool_call("c1", "moca_get_node", A), message("m1", f"{ref(A)} {ref(B)}"))
    two = run(tool_call("c1", "moca_get_node", B), message("m2", f"{ref(A)} {ref(B)}"))
    first, second = await asyncio.gather(
        collect(moca_agui.cite(slow(one))), collect(moca_agui.cite(slow(two)))
    )
    assert citation_events(first)[0]["citations"] == [{"record": A}]
    assert citation_events(second)[0]["citations"] == [{"record": B}]


async def test_include_text_false_drops_text_and_nothing_else():
    events = run(tool_call("c1", "moca_get_node", A), message("m1", ref(A)))
    [value] = citation_events(await cited(events, include_text=False))
    expected = {k: v for k, v in A.items() if k != "text"}
    assert value["citations"] == [{"record": expected}]
    assert list(value["citations"][0]["record"]) == list(expected)


async def test_over_the_size_budget_text_is_dropped_from_the_largest_records_first():
    big, small = record("big.md", text="x" * 5000), record("small.md", text="y" * 500)
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [big, small]}),
        message("m1", f"{ref(small)} {ref(big)}"),
    )
    [value] = citation_events(await cited(events, max_event_bytes=4000))
    no_text = {k: v for k, v in big.items() if k != "text"}
    assert value["citations"] == [{"record": small}, {"record": no_text}]
    assert len(json.dumps(value, separators=(",", ":"))) <= 4000


def wire_size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def test_an_event_exactly_at_the_size_budget_is_sent_whole():
    """The budget is worked out from each record's size at capture: exact to the byte,
    in UTF-8 (the text here is two bytes a character)."""
    big, small = record("big.md", text="é" * 2500), record("small.md", text="ü" * 250)
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [big, small]}),
        message("m1", f"{ref(small)} {ref(big)}"),
    )
    [whole] = citation_events(await cited(events))
    size = wire_size(whole)
    [at_budget] = citation_events(await cited(events, max_event_bytes=size))
    assert at_budget["citations"] == whole["citations"]  # computedAt: another time
    [cut] = citation_events(await cited(events, max_event_bytes=size - 1))
    no_text = {k: v for k, v in big.items() if k != "text"}
    assert cut["citations"] == [{"record": small}, {"record": no_text}]


async def captured_event(
    result: Any, cites: list[dict[str, Any]] | None = None, **options: Any
) -> dict[str, Any]:
    citation_run = moca_agui.adapter.CitationRun(moca_agui.CitationOptions(**options))
    citation_run.capture("moca_search", result)
    citation_run.add_text("m1", " ".join(ref(r) for r in cites or result["results"]))
    event = await citation_run.events.event_for("m1")
    assert event is not None
    return event.value


async def test_records_captured_as_python_values_are_measured_as_sent():
    big = {**record("big.md", text="é" * 2500), "score": 0.5}
    result = {"query": "q", "results": [big]}
    whole = await captured_event(result)
    at_budget = await captured_event(result, max_event_bytes=wire_size(whole))
    assert at_budget["citations"] == whole["citations"]
    cut = await captured_event(result, max_event_bytes=wire_size(whole) - 1)
    assert cut["citations"] == [{"record": {k: v for k, v in big.items() if k != "text"}}]


def small_numbers(path: str) -> dict[str, Any]:
    """A record holding numbers Python's JSON spells shorter than the event's encoder
    (1e-05 against 0.00001)."""
    return {**record(path, text="t" * 500), "evidence": [{"source": {"n": [1e-05] * 300}}]}


def sent_size(value: Any) -> int:
    return len(to_json(value))


SHAPES = {
    "python-value": lambda result: result,
    # a text the strict parse reads: "<" escaped, as Go's encoder writes it
    "strict-text": lambda result: json.dumps({**result, "query": "<q"}).replace("<", "\\u003c"),
    # the Reader's text inside an MCP text part, itself sent as a text
    "nested-text": lambda result: json.dumps([{"type": "text", "text": json.dumps(result)}]),
}


@pytest.mark.parametrize("shape", SHAPES)
async def test_the_budget_measures_records_as_the_event_encoder_writes_them(shape: str) -> None:
    big = small_numbers("big.md")
    result = {"query": "q", "results": [big]}
    whole = await captured_event({"results": [big]})
    content = SHAPES[shape](result)
    at_budget = await captured_event(content, max_event_bytes=sent_size(whole), cites=[big])
    assert at_budget["citations"] == whole["citations"]
    cut = await captured_event(content, max_event_bytes=sent_size(whole) - 1, cites=[big])
    assert cut["citations"] == [{"record": {k: v for k, v in big.items() if k != "text"}}]


async def test_compact_results_resolve_through_lookup_only_when_cited():
    looked_up = []

    async def lookup(node_ref):
        looked_up.append(node_ref)
        return {ref(A): A, ref(B): B}.get(node_ref)

    compact = {"query": "q", "results": [
        {"ref": ref(A), "title": "A", "status": "stable", "stale": False, "inForce": True,
         "superseded": False, "signed": False, "evidenceMatched": None},
        {"ref": ref(B), "title": "B"},
    ]}  # fmt: skip
    events = run(tool_call("c1", "moca_search", compact), message("m1", "Only [2]."))
    [value] = citation_events(await cited(events, lookup=lookup))
    assert value["citations"] == [{"marker": "[2]", "record": B}]
    assert looked_up == [ref(B)]


async def test_a_sync_lookup_that_answers_another_node_or_fails_is_left_out(caplog):
    answers = {ref(A): B}

    def lookup(node_ref):
        if node_ref == ref(C):
            raise ConnectionError("reader down")
        return answers.get(node_ref)

    compact = {"query": "q", "results": [{"ref": ref(A)}, {"ref": ref(C)}]}
    events = run(tool_call("c1", "moca_search", compact), message("m1", "[1] [2]"))
    [value] = citation_events(await cited(events, lookup=lookup))
    assert value["citations"] == []
    assert "lookup returned another node" in caplog.text
    assert "lookup failed" in caplog.text


async def test_compact_results_without_lookup_are_left_out_with_a_warning_naming_the_fix(caplog):
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [{"ref": ref(A)}]}),
        message("m1", "[1]"),
    )
    [value] = citation_events(await cited(events))
    assert value["citations"] == []
    assert 'detail: "full"' in caplog.text and "lookup=" in caplog.text


async def test_records_of_packages_the_service_did_not_load_are_left_out(caplog):
    other = record("x.md", package_id="https://example.com/moca/other")
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A, other]}),
        message("m1", f"{ref(A)} {ref(other)}"),
    )
    [value] = citation_events(await cited(events, packages={A["package"]["digest"]}))
    assert value["citations"] == [{"record": A}]
    assert "not in `packages`" in caplog.text


async def test_records_a_lookup_gives_of_packages_the_service_did_not_load_are_left_out(caplog):
    other = record("x.md", package_id="https://example.com/moca/other")
    compact = {"query": "q", "results": [{"ref": ref(A)}, {"ref": ref(other)}]}
    events = run(tool_call("c1", "moca_search", compact), message("m1", "[1] and [2]"))
    lookup = {ref(A): A, ref(other): other}.get
    [value] = citation_events(await cited(events, lookup=lookup, packages={A["package"]["digest"]}))
    assert value["citations"] == [{"marker": "[1]", "record": A}]
    assert "not in `packages`" in caplog.text


async def test_invalid_records_are_skipped_and_logged(caplog):
    bad = record("bad.md")
    bad["package"]["digest"] = "sha256:NOTHEX"
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [bad, A]}),
        message("m1", f"{ref(bad)} {ref(A)}"),
    )
    [value] = citation_events(await cited(events))
    assert value["citations"] == [{"record": A}]
    assert "skipped an invalid record from moca_search: package.digest" in caplog.text


async def test_a_reader_error_result_captures_nothing(caplog):
    caplog.set_level(logging.INFO, logger="moca_agui")
    events = run(
        tool_call("c1", "moca_get_node", {"error": "no node https://x@1#a.md"}),
        message("m1", "https://x@1#a.md"),
    )
    [value] = citation_events(await cited(events))
    assert value["citations"] == []
    assert "the Reader answered an error" in caplog.text


async def test_reader_tools_option_names_the_readers():
    events = run(tool_call("c1", "kb_lookup", A), message("m1", ref(A)))
    [default] = citation_events(await cited(events))
    [custom] = citation_events(await cited(events, reader_tools=["kb_lookup"]))
    assert default["citations"] == []
    assert custom["citations"] == [{"record": A}]


async def test_a_message_already_cited_upstream_is_not_cited_twice():
    upstream = CustomEvent(
        name="moca.citations", value={"version": 1, "messageId": "m1", "citations": []}
    )
    events = run(tool_call("c1", "moca_get_node", A), message("m1", ref(A)), upstream)
    stream = await collect(moca_agui.cite(moca_agui.cite(source(events))))
    assert citation_events(stream) == [{"version": 1, "messageId": "m1", "citations": []}]


async def test_events_pass_through_when_the_source_is_not_a_run():
    events = [*message("m1", "hello")]
    stream = await collect(moca_agui.cite(source(events)))
    assert without_citations(stream) == [wire(e) for e in events]


def test_options_are_checked_when_cite_is_called():
    with pytest.raises(TypeError, match=r"unknown moca_agui option.*include_txt"):
        moca_agui.cite(source([]), include_txt=False)
    with pytest.raises(TypeError, match="reader_tools must be a collection"):
        moca_agui.cite(source([]), reader_tools="moca_search")
    with pytest.raises(TypeError, match="async iterable"):
        moca_agui.cite([run_finished()])


async def endless(closed: list[bool]) -> AsyncIterator[BaseEvent]:
    """A run that never ends, noting in `closed` when it is closed."""
    try:
        yield run_started()
        while True:
            yield message("m1", "x")[1]
    finally:
        closed.append(True)


async def test_closing_the_cited_stream_closes_the_source():
    closed: list[bool] = []
    stream = moca_agui.cite(endless(closed))
    assert (await anext(stream)).type == "RUN_STARTED"
    await anext(stream)
    await stream.aclose()
    assert closed == [True]


class Steps:
    """An async iterable whose iterator has `__anext__` and no `__aiter__` (which `aiter`
    accepts), closed with `aclose`."""

    def __init__(self, events: list[Any]) -> None:
        self.events, self.closed = iter(events), False

    def __aiter__(self) -> Steps.Iterator:
        return Steps.Iterator(self)

    class Iterator:
        def __init__(self, steps: Steps) -> None:
            self.steps = steps

        async def __anext__(self) -> Any:
            try:
                return next(self.steps.events)
            except StopIteration:
                raise StopAsyncIteration from None

        async def aclose(self) -> None:
            self.steps.closed = True


async def test_an_iterator_with_no_aiter_of_its_own_is_cited_and_closed():
    events = run(
        tool_call("c1", "moca_search", {"query": "q", "results": [A, B]}),
        message("m1", "See [2] and [1]."),
    )
    steps = Steps(events)
    stream = await collect(moca_agui.cite(steps))
    assert without_citations(stream) == [wire(e) for e in events]
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[2]", "record": B}, {"marker": "[1]", "record": A}]
    assert steps.closed


async def test_closing_a_stream_stepped_from_another_context_closes_the_source_once():
    closed: list[bool] = []
    ended: list[bool] = []
    stream = moca_agui.cite(endless(closed), ended=lambda: ended.append(True))
    assert (await anext(stream)).type == "RUN_STARTED"
    elsewhere = asyncio.create_task(anext(stream), context=contextvars.Context())
    assert (await elsewhere).type == "TEXT_MESSAGE_CONTENT"
    await stream.aclose()
    assert (closed, ended) == ([True], [True])


async def test_a_run_fed_raw_tool_values_does_not_read_the_wire_content_again():
    run_state = moca_agui.adapter.CitationRun(
        moca_agui.CitationOptions(), reads_tool_call_results=False
    )
    run_state.capture("moca_get_node", B)  # as an adapter hands over the raw return value
    events = run(tool_call("c1", "moca_get_node", A), message("m1", f"{ref(A)} {ref(B)}"))
    stream = await collect(moca_agui.cite(source(events), run=run_state))
    [value] = citation_events(stream)
    assert value["citations"] == [{"record": B}]


@pytest.mark.parametrize(
    "bad",
    [
        TextMessageContentEvent.model_construct(message_id="m1", delta=None),
        TextMessageContentEvent.model_construct(message_id=["not", "hashable"], delta="x"),
    ],
    ids=["delta-none", "unhashable-id"],
)
async def test_a_malformed_text_event_turns_citations_off_and_the_answer_flows_on(bad, caplog):
    events = run(tool_call("c1", "moca_get_node", A), message("m1", ref(A)), bad)
    stream = await collect(moca_agui.cite(source(events)))
    assert len(stream) == len(events) and types(stream)[-1] == "RUN_FINISHED"
    assert citation_events(stream) == []
    assert "citations off for this run" in caplog.text


async def test_a_run_that_starts_before_the_last_one_finished_starts_clean(caplog):
    events = [
        run_started("r1"),
        *tool_call("c1", "moca_get_node", A),
        *message("m1", ref(A)),
        *run(message("m2", f"{ref(A)} was read in the unfinished run"), run_id="r2"),
    ]
    stream = await collect(moca_agui.cite(source(events)))
    assert citation_events(stream) == [{"version": 1, "messageId": "m2", "citations": []}]
    assert "a run began before the last one finished" in caplog.text


async def test_computed_at_is_when_the_readers_result_was_captured():
    from datetime import datetime

    async def slow():
        for event in run(tool_call("c1", "moca_get_node", A), message("m1", ref(A))):
            if event.type == "TEXT_MESSAGE_START":
                captured_by = datetime.now().astimezone()
                await asyncio.sleep(0.3)
            yield event
        nonlocal_times.append(captured_by)

    nonlocal_times: list = []
    [value] = citation_events(await collect(moca_agui.cite(slow())))
    computed = datetime.fromisoformat(value["computedAt"])
    assert computed <= nonlocal_times[0]
