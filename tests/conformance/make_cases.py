"""Write the conformance corpus (`cases/*.json`) from the scenarios below, the expected
events made by the Python core (`moca_agui.cite`).

Run it after changing a scenario, then review the diff of `cases/` by hand: the expected
events are a decision, not whatever the core does. A case marked `pending` holds
expected events written by hand (a rule one implementation has yet to follow, named in
`pending`): this script keeps them as written.

    python tests/conformance/make_cases.py

Each case is language-neutral JSON: `input` (the `RunAgentInput` the agent was given, or
absent), `options` (the Python core's option names), `lookup` (ref -> the record the
Reader's `moca_get_node` gives, or absent: no lookup), `kept` (the thread the agent keeps
itself, if it does; null: one the layer cannot read), `events` (the agent's stream, in
wire form) and `expected` (what the citing layer sends on). A `computedAt` in
`expected` is any RFC 3339 time: runners compare it as `"<time>"`.
"""

from __future__ import annotations

import asyncio
import copy
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
CASES = HERE / "cases"
sys.path.insert(0, str(HERE.parent))

from corpus import canonical_events, cited  # noqa: E402

from support import compact, hostile_record, record, ref  # noqa: E402

A, B, C, D = record("a.md"), record("b.md"), record("c.md"), record("d.md")
A1 = {**record("a.md"), "span": {"start": 0, "end": 10}}
A2 = {**record("a.md"), "span": {"start": 10, "end": 20}}


def run(*parts: Any, run_id: str = "run-1") -> list[dict[str, Any]]:
    started = {"type": "RUN_STARTED", "threadId": "thread-1", "runId": run_id}
    events: list[dict[str, Any]] = [started]
    for part in parts:
        events.extend(part if isinstance(part, list) else [part])
    events.append({"type": "RUN_FINISHED", "threadId": "thread-1", "runId": run_id})
    return events


def start(call_id: str, name: str = "moca_search") -> list[dict[str, Any]]:
    return [
        {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name},
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]


def result(call_id: str, content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content)
    return {
        "type": "TOOL_CALL_RESULT",
        "messageId": f"tool-{call_id}",
        "toolCallId": call_id,
        "content": text,
    }


def call(call_id: str, content: Any, name: str = "moca_search") -> list[dict[str, Any]]:
    return [*start(call_id, name), result(call_id, content)]


def search(*records: dict[str, Any]) -> dict[str, Any]:
    return {"results": list(records)}


def answer(message_id: str, *deltas: str) -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def thread(*turns: list[dict[str, Any]], question: str = "And then?") -> dict[str, Any]:
    """A RunAgentInput: the earlier turns' messages, then this run's question."""
    messages = [m for turn in turns for m in turn]
    messages.append({"id": "user-run-1", "role": "user", "content": question})
    return {
        "threadId": "thread-1",
        "runId": "run-1",
        "state": {},
        "messages": messages,
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }


def turn(n: int, *calls: tuple[str, Any], answer_text: str = "Done.", name: str = "moca_search",
         results_order: list[int] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """An earlier turn: its question, the assistant's calls, their results (in
    `results_order`, by index, if given), its answer."""
    ids = [call_id for call_id, _ in calls]
    made = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
        for call_id in ids
    ]
    results = [
        {"id": f"tool-{call_id}", "role": "tool", "toolCallId": call_id,
         "content": content if isinstance(content, str) else json.dumps(content)}
        for call_id, content in calls
    ]  # fmt: skip
    if results_order is not None:
        results = [results[i] for i in results_order]
    return [
        {"id": f"user-{n}", "role": "user", "content": f"Question {n}?"},
        {"id": f"calls-{n}", "role": "assistant", "toolCalls": made},
        *results,
        {"id": f"answer-{n}", "role": "assistant", "content": answer_text},
    ]


def snapshot(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"type": "MESSAGES_SNAPSHOT", "messages": list(messages)}


def case(
    name: str,
    about: str,
    events: list[dict[str, Any]],
    *,
    input: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    lookup: dict[str, dict[str, Any]] | None = None,
    kept: Any = ...,
    expected: list[dict[str, Any]] | None = None,
    pending: str | None = None,
) -> dict[str, Any]:
    made: dict[str, Any] = {"name": name, "about": about}
    if pending:
        made["pending"] = pending
    if input is not None:
        made["input"] = input
    if options:
        made["options"] = options
    if lookup is not None:
        made["lookup"] = lookup
    if kept is not ...:
        made["kept"] = kept
    made["events"] = canonical_events(events)
    if expected is None:
        expected = asyncio.run(cited(made))
    made["expected"] = expected
    return made


def citations(message_id: str, *entries: tuple[str | None, dict[str, Any]]) -> dict[str, Any]:
    """A moca.citations event written by hand."""
    value: dict[str, Any] = {"version": 1, "messageId": message_id}
    if entries:
        value["computedAt"] = "<time>"
    value["citations"] = [
        {"marker": marker, "record": rec} if marker else {"record": rec} for marker, rec in entries
    ]
    return {"type": "CUSTOM", "name": "moca.citations", "value": value}


def basics() -> list[dict[str, Any]]:
    return [
        case(
            "markers and a versioned ref",
            "[n] is the n-th source in the order the model saw them; a versioned ref cites its "
            "node; order of first mention; a record is sent as the Reader produced it.",
            run(
                call("c1", search(A, B)),
                call("c2", C, name="moca_get_node"),
                answer("m1", "Per [3] and [1], see also ", ref(B), "."),
            ),
        ),
        case(
            "parallel calls in reverse",
            "Two calls announced c1 then c2, their results arriving c2 first: [1] is still the "
            "first call's result.",
            run(
                start("c1"),
                start("c2"),
                result("c2", search(B)),
                result("c1", search(A)),
                answer("m1", "First [1], then [2]."),
            ),
        ),
        case(
            "chunks",
            "TEXT_MESSAGE_CHUNK and TOOL_CALL_CHUNK streams are followed as @ag-ui/client "
            "expands them; the event follows the chunked message's end.",
            run(
                {
                    "type": "TOOL_CALL_CHUNK",
                    "toolCallId": "c1",
                    "toolCallName": "moca_search",
                    "delta": '{"q":',
                },
                {"type": "TOOL_CALL_CHUNK", "delta": '"refunds"}'},
                result("c1", search(A, B)),
                {
                    "type": "TEXT_MESSAGE_CHUNK",
                    "messageId": "m1",
                    "role": "assistant",
                    "delta": "See ",
                },
                {"type": "TEXT_MESSAGE_CHUNK", "delta": "[2"},
                {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "]."},
            ),
        ),
        case(
            "invented markers and forged refs",
            "A marker past the sources, and a ref-like token no Reader result of this run has, "
            "name nothing: left out.",
            run(
                call("c1", search(A)),
                answer("m1", "Per [1] and [7]; also https://example.com/moca/test-kb@1.0.0#z.md."),
            ),
        ),
        case(
            "no source named",
            "An answer that names no source gets an event with no citations.",
            run(call("c1", search(A)), answer("m1", "I do not know.")),
        ),
        case(
            "two answers",
            "One event per answer, each after its end and before RUN_FINISHED, in the order "
            "the answers began.",
            run(
                call("c1", search(A, B)),
                answer("m1", "First [2]."),
                answer("m2", "Then [1]."),
            ),
        ),
        case(
            "other tools are data",
            "Only Reader tools' results are sources: a record a weather tool returns is not.",
            run(call("c1", search(B), name="weather"), call("c2", search(A)), answer("m1", "[1]")),
        ),
        case(
            "an MCP client's tool names",
            "mcp__<server>__moca_search is a Reader tool under any server's name.",
            run(call("c1", search(A), name="mcp__moca__moca_search"), answer("m1", "See [1].")),
        ),
        case(
            "spans of one node",
            "Two chunks of one node are two entries, each cited with its span; a versioned ref "
            "names the node's first entry when no whole-node record was returned.",
            run(call("c1", search(A1, A2)), answer("m1", "[2] and [1], and ", ref(A), ".")),
        ),
        case(
            "include_text false",
            "include_text=False drops each record's text, the one change the spec allows.",
            run(call("c1", search(A)), answer("m1", "[1]")),
            options={"include_text": False},
        ),
        case(
            "packages",
            "A record of a package whose digest is not in `packages` is left out.",
            run(
                call("c1", search(A, record("x.md", package_id="https://example.com/other"))),
                answer("m1", "[1] [2]"),
            ),
            options={"packages": [A["package"]["digest"]]},
        ),
        case(
            "max_event_bytes",
            "Over the budget, text is dropped from the largest records first.",
            run(
                call("c1", search(record("big.md", text="x" * 3000), record("small.md"))),
                answer("m1", "[1] [2]"),
            ),
            options={"max_event_bytes": 3000},
        ),
    ]


def stream_rules() -> list[dict[str, Any]]:
    return [
        case(
            "run error",
            "Nothing is sent after RUN_ERROR.",
            [
                {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"},
                *call("c1", search(A)),
                *answer("m1", "[1]"),
                {"type": "RUN_ERROR", "message": "boom"},
            ],
        ),
        case(
            "an answer never ended",
            "A message started and never ended gets no event.",
            run(
                call("c1", search(A)),
                {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "[1]"},
            ),
        ),
        case(
            "no RUN_FINISHED",
            "A stream that ends without RUN_FINISHED gets its events at its end.",
            [
                {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1"},
                *call("c1", search(A)),
                *answer("m1", "[1]"),
            ],
        ),
        case(
            "cited upstream",
            "An upstream that already sent moca.citations for an answer (a Python service "
            "behind an HttpAgent) is passed through, never cited twice.",
            run(
                call("c1", search(A)),
                answer("m1", "[1]"),
                {
                    "type": "CUSTOM",
                    "name": "moca.citations",
                    "value": {
                        "version": 1,
                        "messageId": "m1",
                        "citations": [{"marker": "[1]", "record": A}],
                    },
                },
            ),
        ),
        case(
            "not an assistant",
            "Only assistant messages are cited.",
            run(
                call("c1", search(A)),
                {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "user"},
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "[1]"},
                {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
            ),
        ),
        case(
            "two runs in one stream",
            "A second run in the same stream after a run that named sources: its model reads "
            "the first run's turn too, which it does not hold, so its markers are left out.",
            [
                *run(call("c1", search(A)), answer("m1", "[1]")),
                *run(call("c2", search(B)), answer("m2", "[1] [2] and ", ref(B)), run_id="run-2"),
            ],
        ),
        case(
            "a result of an unnamed call",
            "A TOOL_CALL_RESULT of a call the stream never named is no Reader result.",
            run(result("c9", search(A)), answer("m1", "[1]")),
        ),
        case(
            "an answer before its source",
            "An answer's markers number only what its model had been shown when it began: "
            "[1] written before the search returned a.md names nothing; the answer after "
            "the result cites it. A versioned ref names its node by itself.",
            run(
                answer("m0", "From memory, hives must be registered [1]. Let me check ", ref(B)),
                call("c1", search(A, B)),
                answer("m1", "Confirmed [1]."),
            ),
        ),
        case(
            "two answers, the first before the second source",
            "The first answer's [2] was written before b.md arrived: left out, not b.md.",
            run(
                call("c1", search(A)),
                answer("m0", "Per [1] and [2]."),
                call("c2", search(B)),
                answer("m1", "Per [2], then [1]."),
            ),
        ),
        case(
            "parallel calls, an answer between their results",
            "An answer that began after the first call's result and before the second's "
            "numbers over the first's: its [2] names nothing.",
            run(
                start("c1"),
                start("c2"),
                result("c1", search(A)),
                answer("m0", "Per [1] and [2]."),
                result("c2", search(B)),
                answer("m1", "Per [1] and [2]."),
            ),
        ),
        case(
            "parallel calls in reverse, an answer between their results",
            "An answer that began after the second call's result and before the first's: "
            "which sources its model had counted is not known, so its markers are left out; "
            "a versioned ref still names its node.",
            run(
                start("c1"),
                start("c2"),
                result("c2", search(B)),
                answer("m0", "Per [1], see ", ref(B)),
                result("c1", search(A)),
                answer("m1", "Per [1] and [2]."),
            ),
        ),
        case(
            "a chunked answer reopened after its sources arrived",
            "Text of a message reopened under its id numbers over what had arrived when it "
            "reopened; its earlier text, over what had arrived when it began: [2] before "
            "the search names nothing, [1] after it names a.md.",
            run(
                {
                    "type": "TEXT_MESSAGE_CHUNK",
                    "messageId": "m0",
                    "role": "assistant",
                    "delta": "Per [2]",
                },
                call("c1", search(A, B)),
                {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m0", "delta": " and [1]."},
            ),
        ),
        case(
            "an answer opened before its source, its text after",
            "An answer begins at its TEXT_MESSAGE_START, not at its first text: the "
            "search's a.md arrived after the start, so the [1] written after it names "
            "nothing.",
            run(
                start("c1"),
                {"type": "TEXT_MESSAGE_START", "messageId": "m0", "role": "assistant"},
                result("c1", search(A)),
                {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m0", "delta": "Per [1]."},
                {"type": "TEXT_MESSAGE_END", "messageId": "m0"},
            ),
        ),
    ]


def forged_ref(genuine: dict[str, Any], other: dict[str, Any]) -> str:
    """A search result of `genuine` whose node repeats its `ref` key, escaped, naming
    `other`'s node; its URLs escape their colons (`\\u003a`), so the text has no more
    colons than the value it reads as: a key twice, which parsers read two ways."""
    node = json.dumps(genuine["node"])[:-1] + ', "re\\u0066": ' + json.dumps(ref(other)) + "}"
    text = '{"results": [' + json.dumps({**genuine, "node": "@"}).replace('"@"', node) + "]}"
    return text.replace("https:", "https\\u003a")


def records() -> list[dict[str, Any]]:
    invalid = copy.deepcopy(B)
    del invalid["trust"]["stale"]
    extra = copy.deepcopy(C)
    extra["node"]["color"] = "red"
    broken = [copy.deepcopy(record(f"bad-{n}.md")) for n in range(8)]
    broken[0]["package"]["digest"] = "sha256:XYZ"
    broken[1]["concepts"] = ["not an iri"]
    broken[2]["span"] = {"start": -1, "end": 3}
    broken[3]["evidence"] = [{"note": "no source"}]
    broken[4]["retrieval"] = {"via": "guess"}
    broken[5]["extra"] = True
    broken[6]["trust"]["status"] = "final"
    broken[7]["score"] = "high"
    return [
        case(
            "hostile record",
            "A valid record whose fields carry markup and scripts is sent exactly as the Reader "
            "produced it: the client shows it as text.",
            run(call("c1", search(hostile_record())), answer("m1", "See [1].")),
        ),
        case(
            "invalid records",
            "An invalid record (a required field missing, a field the closed schema does not "
            "have) is left out, and keeps its number: [2] names no other source.",
            run(call("c1", search(A, invalid, extra, D)), answer("m1", "[1] [2] [3] [4]")),
        ),
        case(
            "records the schema refuses",
            "A bad digest, a concept that is no IRI, a negative span, evidence without a source, "
            "an unknown retrieval, a field the record schema lacks, an unknown status, a score "
            "that is no number: each left out by both implementations.",
            run(
                call("c1", search(*broken, A)),
                answer("m1", " ".join(f"[{n}]" for n in range(1, 10))),
            ),
        ),
        case(
            "a Reader error",
            "A Reader's error result holds no source; the sources after it keep their numbers.",
            run(call("c1", {"error": "no such node"}), call("c2", search(A)), answer("m1", "[1]")),
        ),
        case(
            "MCP content",
            "An MCP CallToolResult's text content holding the Reader's JSON is read.",
            run(
                call("c1", {"content": [{"type": "text", "text": json.dumps(search(A, B))}]}),
                answer("m1", "[2]"),
            ),
        ),
        case(
            "a result that cannot be read",
            "A Reader result of this run that is not JSON the layer can read: the default "
            "numbers after it are not known, markers are left out; versioned refs still count.",
            run(
                call("c1", search(A)),
                call("c2", '{"results": [ oops'),
                answer("m1", "[1] and ", ref(A)),
            ),
        ),
        case(
            "duplicate keys",
            "A result holding an object with a key twice reads two ways (parsers disagree on "
            "which wins): it cannot be read, and default markers are left out.",
            run(
                call("c1", '{"results": [' + json.dumps(A)[:-1] + ', "text": "other"}]}'),
                call("c2", search(B)),
                answer("m1", "[1] [2] and ", ref(B)),
            ),
        ),
        case(
            "a duplicate key escaped",
            "A key repeated in an escaped spelling (`re\\u0066` is `ref`), in a text that "
            "escapes colons (`\\u003a`), is the same key twice: the result cannot be read, "
            "and the forged ref is never cited.",
            run(
                call("c1", forged_ref(A, D)),
                call("c2", search(B)),
                answer("m1", "[1] [2] and ", ref(B)),
            ),
        ),
        case(
            "an escaped null in a string",
            "A string that spells `null` with an escape (`nul\\u006c`) is text like any other: "
            "the record is read and cited.",
            run(
                call("c1", json.dumps(search({**A, "text": "<>"})).replace("<>", "nul\\u006c")),
                answer("m1", "[1]"),
            ),
        ),
        case(
            "a number out of range",
            "1e999 is no plain JSON (JavaScript reads it as Infinity, and writes that as null): "
            "the result cannot be read.",
            run(
                call("c1", '{"results": [' + json.dumps(A)[:-1] + ', "score": 1e999}]}'),
                call("c2", search(B)),
                answer("m1", "[1] [2]"),
            ),
        ),
        case(
            "compact results and lookup",
            "A compact search result names a node; `lookup` gives its record.",
            run(call("c1", search(compact(A), compact(B))), answer("m1", "[2] then [1]")),
            lookup={ref(A): A, ref(B): B},
        ),
        case(
            "compact results without lookup",
            "Without `lookup` a compact result's node is left out (logged), and keeps its number.",
            run(call("c1", search(compact(A))), call("c2", search(B)), answer("m1", "[1] [2]")),
        ),
        case(
            "lookup returns another node",
            "A record `lookup` returns for another node is never cited.",
            run(call("c1", search(compact(A))), answer("m1", "[1]")),
            lookup={ref(A): B},
        ),
    ]


def threads() -> list[dict[str, Any]]:
    earlier = turn(1, ("t1", search(A)), answer_text="Per [1].")
    return [
        case(
            "thread numbering",
            "Markers count over the whole thread: turn 1 read A, this run reads C, so C is [2]; "
            "[1] names A, which the thread's records never give: left out without lookup.",
            run(call("c1", search(C)), answer("m1", "[2], as [1] said.")),
            input=thread(earlier),
        ),
        case(
            "thread numbering with lookup",
            "An earlier turn's source is cited with the record `lookup` gives now.",
            run(call("c1", search(C)), answer("m1", "[2], as [1] said.")),
            input=thread(earlier),
            lookup={ref(A): A},
        ),
        case(
            "a source read again",
            "A source the thread read and this run reads again keeps its number and is cited "
            "with this run's record.",
            run(call("c1", search(A, C)), answer("m1", "[1] and [2]")),
            input=thread(earlier),
        ),
        case(
            "earlier metadata ignored",
            "moca.citations already on earlier answers' metadata is ignored: only this run's "
            "Reader results count.",
            run(call("c1", search(C)), answer("m1", "[1] [2]")),
            input=thread(
                [
                    {"id": "user-1", "role": "user", "content": "Q?"},
                    {
                        "id": "answer-1",
                        "role": "assistant",
                        "content": "Per [1].",
                        "metadata": {
                            "moca.citations": {
                                "version": 1,
                                "messageId": "answer-1",
                                "citations": [{"marker": "[1]", "record": D}],
                            }
                        },
                    },
                ]
            ),
        ),
        case(
            "results listed out of order",
            "A turn whose results the thread lists in another order than their calls: which "
            "source its [1] and [2] named is not known, so those markers are left out; the "
            "sources after it keep their numbers.",
            run(call("c1", search(C)), answer("m1", "[1] [2] [3]")),
            input=thread(turn(1, ("t1", search(A)), ("t2", search(B)), results_order=[1, 0])),
            lookup={ref(A): A, ref(B): B},
        ),
        case(
            "a thread that cannot be read",
            "An item of the thread that is no message: the numbers are not known, every marker "
            "is left out, versioned refs are cited.",
            run(call("c1", search(A)), answer("m1", "[1] and ", ref(A))),
            input=thread([{"id": "x", "content": "no role"}]),
        ),
        case(
            "numbered views in the thread",
            "Where the thread shows the model numbers beside each source (moca_agui.numbered), "
            "those numbers are the markers.",
            run(call("c1", search(C)), answer("m1", "[5] and [1]")),
            input=thread(turn(1, ("t1", {"results": [{"marker": "[5]", "result": A}]}))),
            lookup={ref(A): A},
        ),
        case(
            "a thread the agent keeps",
            "Where the agent keeps the thread its model reads (Mastra with memory), that thread "
            "is numbered, then the request's messages it does not hold: turn 1 read A, so this "
            "run's C is [2] though the request carries the question alone.",
            run(call("c1", search(C)), answer("m1", "[2], as [1] said.")),
            input=thread(),
            kept=earlier,
            lookup={ref(A): A},
        ),
        case(
            "a kept thread not known",
            "Where the agent keeps a thread the layer cannot read, which source a number names "
            "is not known: markers are left out, versioned refs are cited.",
            run(call("c1", search(C)), answer("m1", "[1] and ", ref(C))),
            input=thread(),
            kept=None,
        ),
        case(
            "a kept thread, an answer only a snapshot carries",
            "A model that did not stream, in an agent that keeps its thread: the assistant "
            "message after the request's question in the snapshot is this run's answer.",
            run(
                call("c1", search(C)),
                snapshot(
                    *earlier,
                    {"id": "user-run-1", "role": "user", "content": "And then?"},
                    {"id": "final-1", "role": "assistant", "content": "[2], as [1] said."},
                ),
            ),
            input=thread(),
            kept=earlier,
            lookup={ref(A): A},
        ),
    ]


def cited_upstream(name: str, about: str, upstream: dict[str, Any], **given: Any) -> dict[str, Any]:
    """A case whose agent is a service with moca-agui: its events are what the core sends
    for the `upstream` case (dated), and it expects them unchanged."""
    sent = asyncio.run(cited({**upstream, "events": canonical_events(upstream["events"])}))
    return case(name, about, dated(sent), expected=sent, **given)


#: The `computedAt` a service upstream sent (any RFC 3339 time).
SENT_AT = "2026-01-01T00:00:00Z"


def dated(value: Any) -> Any:
    """`value` with each `computedAt` a fixed RFC 3339 time, as a service sends it."""
    if isinstance(value, list):
        return [dated(item) for item in value]
    if isinstance(value, dict):
        return {k: SENT_AT if k == "computedAt" else dated(v) for k, v in value.items()}
    return value


def snapshots() -> list[dict[str, Any]]:
    question = {"id": "user-run-1", "role": "user", "content": "And then?"}
    earlier = turn(1, ("t1", search(A)), answer_text="Per [1].")
    return [
        case(
            "snapshot metadata",
            "Each answer of this run a MESSAGES_SNAPSHOT holds carries its event's value on "
            "metadata['moca.citations']; the event is still sent.",
            run(
                call("c1", search(A)),
                answer("m1", "See [1]."),
                snapshot(question, {"id": "m1", "role": "assistant", "content": "See [1]."}),
            ),
            input=thread(),
        ),
        case(
            "snapshot renames",
            "An answer the snapshot holds under another id (same text) is cited under the "
            "snapshot's id.",
            run(
                call("c1", search(A)),
                answer("m1", "See [1]."),
                snapshot(question, {"id": "final-1", "role": "assistant", "content": "See [1]."}),
            ),
            input=thread(),
        ),
        case(
            "snapshot drops an answer",
            "An answer the snapshot leaves out gets no event.",
            run(
                call("c1", search(A)),
                answer("m1", "See [1]."),
                snapshot({"id": "other", "role": "assistant", "content": "Other."}, question),
            ),
            input=thread(),
        ),
        case(
            "an answer only a snapshot carries",
            "A model that did not stream: the assistant message after the question in the "
            "snapshot is this run's answer, cited from its own text.",
            run(
                call("c1", search(A)),
                snapshot(question, {"id": "final-1", "role": "assistant", "content": "See [1]."}),
            ),
            input=thread(),
        ),
        case(
            "snapshot tool messages are not results",
            "Reader results come from TOOL_CALL_RESULT events and the request's thread, never "
            "from a snapshot's tool messages.",
            run(
                answer("m1", "See [1]."),
                snapshot(
                    question,
                    {
                        "id": "calls",
                        "role": "assistant",
                        "toolCalls": [
                            {
                                "id": "s1",
                                "type": "function",
                                "function": {"name": "moca_search", "arguments": "{}"},
                            }
                        ],
                    },
                    {
                        "id": "tool-s1",
                        "role": "tool",
                        "toolCallId": "s1",
                        "content": json.dumps(search(A)),
                    },
                    {"id": "m1", "role": "assistant", "content": "See [1]."},
                ),
            ),
            input=thread(),
        ),
        case(
            "snapshot keeps other metadata",
            "The answer's other metadata keys are kept beside ours.",
            run(
                call("c1", search(A)),
                answer("m1", "See [1]."),
                snapshot(
                    question,
                    {
                        "id": "m1",
                        "role": "assistant",
                        "content": "See [1].",
                        "metadata": {"citations": ["kept"]},
                    },
                ),
            ),
            input=thread(),
        ),
        cited_upstream(
            "cited upstream, with a snapshot",
            "The agent is a service with moca-agui (behind an HttpAgent, records without "
            "text): it sends its snapshot, metadata['moca.citations'] on the answer, before "
            "its event. Its events pass through unchanged; the answer is never cited twice.",
            {
                "events": run(
                    call("c1", search(A)),
                    answer("m1", "See [1]."),
                    snapshot(question, {"id": "m1", "role": "assistant", "content": "See [1]."}),
                ),
                "input": thread(),
                "options": {"include_text": False},
            },
            input=thread(),
        ),
        cited_upstream(
            "cited upstream, with a snapshot, from a kept thread",
            "The service upstream numbers over a thread it keeps and looks turn 1's source up: "
            "its [2] and [1] pass through as it sent them, in the snapshot too, though the "
            "request's thread here holds the question alone.",
            {
                "events": run(
                    call("c1", search(C)),
                    answer("m1", "[2], as [1] said."),
                    snapshot(
                        *earlier,
                        question,
                        {"id": "m1", "role": "assistant", "content": "[2], as [1] said."},
                    ),
                ),
                "input": thread(),
                "kept": earlier,
                "lookup": {ref(A): A},
            },
            input=thread(),
            lookup={ref(A): A},
        ),
    ]


def shapes() -> list[dict[str, Any]]:
    """What a Reader result may look like, and how an answer may write a ref."""
    whole = record("w.md")
    part = {**record("w.md"), "span": {"start": 5, "end": 9}}
    floated = {**record("f.md"), "span": {"start": 7.0, "end": 12.0}}
    parts = [{"type": "text", "text": json.dumps(search(A, B))}]
    return [
        case(
            "content parts",
            "A TOOL_CALL_RESULT whose content is AG-UI content parts: its text parts are read.",
            run(
                *start("c1"),
                {
                    "type": "TOOL_CALL_RESULT",
                    "messageId": "t1",
                    "toolCallId": "c1",
                    "content": parts,
                },
                answer("m1", "[2] [1]"),
            ),
        ),
        case(
            "an MCP error result",
            "An MCP result with isError holds no source.",
            run(
                call("c1", {"isError": True, "content": [{"type": "text", "text": "boom"}]}),
                call("c2", search(A)),
                answer("m1", "[1]"),
            ),
        ),
        case(
            "an MCP error text",
            "The text of an MCP error (invalid arguments) holds no source.",
            run(
                call("c1", "MCP error -32602: invalid arguments"),
                call("c2", search(A)),
                answer("m1", "[1]"),
            ),
        ),
        case(
            "moca_structure",
            "A moca_structure result lists its records under `result`.",
            run(
                call("c1", {"op": "parts", "result": [A, B]}, name="moca_structure"),
                answer("m1", "[2]"),
            ),
        ),
        case(
            "a wrapped result",
            'A lone {"result": ...} wrapper (a tool\'s non-dict return) is read through.',
            run(call("c1", {"result": [A]}, name="moca_get_node"), answer("m1", "[1]")),
        ),
        case(
            "a record in metadata",
            "An object carrying a record in metadata['moca_citation'] (as text or as an object).",
            run(
                call(
                    "c1",
                    [
                        {"metadata": {"moca_citation": json.dumps(A)}},
                        {"metadata": {"moca_citation": B}},
                    ],
                ),
                answer("m1", "[1] [2]"),
            ),
        ),
        case(
            "a whole-node record",
            "A versioned ref cites the node's whole-node record where the Reader returned one, "
            "even after a span of it.",
            run(
                call("c1", search(part)),
                call("c2", whole, name="moca_get_node"),
                answer("m1", "See ", ref(whole), " and [1]."),
            ),
        ),
        case(
            "integer spans written as floats",
            "A span of 7.0 is the span 7, as JSON Schema reads it.",
            run(call("c1", search(floated, record("f.md"))), answer("m1", "[1] [2]")),
        ),
        case(
            "refs among punctuation and markup",
            "A ref is found between delimiters (CJK brackets too), trimmed of sentence "
            "punctuation and edge markup.",
            run(
                call("c1", search(A, B, C)),
                answer("m1", f"(**{ref(A)}**), 「{ref(B)}」. And {ref(C)}..."),
            ),
        ),
        case(
            "a compact result and a full record of one node",
            "A compact result keeps its place; a full record of the node that comes later "
            "gives its record.",
            run(
                call("c1", search(compact(A), compact(B))),
                call("c2", A, name="moca_get_node"),
                answer("m1", "[1] and [2]"),
            ),
        ),
        case(
            "numbered thread then new sources",
            "Once the thread showed numbers, they are the marker table: a source this run "
            "reads without a number is cited by its versioned ref only.",
            run(call("c1", search(C)), answer("m1", "[1], [2] and ", ref(C))),
            input=thread(turn(1, ("t1", {"results": [{"marker": "[1]", "result": A}]}))),
            lookup={ref(A): A},
        ),
    ]


def code() -> list[dict[str, Any]]:
    return [
        case(
            "code is never a marker",
            "Markers in code spans, fences, indented code, links, autolinks and HTML comments "
            "are not markers; [2] as text is.",
            run(
                call("c1", search(A, B, C)),
                answer(
                    "m1",
                    "Index `xs[1]`, a [3](https://x.org) link, <https://x.org/a[3]>, "
                    "<!-- [3] -->\n\n```\n[1]\n```\n\n    [3]\n\nBut [2] counts.",
                ),
            ),
        ),
        case(
            "a reference-style link",
            "[1] is a link where the answer defines the label [1]: its marker is left out.",
            run(call("c1", search(A, B)), answer("m1", "See [1] and [2].\n\n[1]: https://x.org\n")),
        ),
        case(
            "an unclosed fence",
            "A fence never closed runs to the end of the answer.",
            run(call("c1", search(A, B)), answer("m1", "First [1].\n\n```python\nxs[2]\n")),
        ),
        case(
            "a ref in code counts",
            "A versioned ref counts wherever it stands, code included.",
            run(call("c1", search(A, B)), answer("m1", "See `" + ref(B) + "`.")),
        ),
    ]


def marker_styles() -> list[dict[str, Any]]:
    source = run(call("c1", search(A, B, C)), answer("m1", "{}"))

    def styled(text: str) -> list[dict[str, Any]]:
        events = copy.deepcopy(source)
        events[-3]["delta"] = text
        return events

    return [
        case(
            "grouped markers",
            "[1, 3] names 1 and 3; each citation's marker is the group's text.",
            styled("See [1, 3]."),
            expected=[
                *canonical_events(styled("See [1, 3].")[:-1]),
                citations("m1", ("[1, 3]", A), ("[1, 3]", C)),
                canonical_events(styled("")[-1:])[0],
            ],
        ),
        case(
            "ranged markers",
            "[1-3] and [1\u20133] name 1, 2 and 3.",
            styled("See [1\u20133]."),
            expected=[
                *canonical_events(styled("See [1\u20133].")[:-1]),
                citations("m1", ("[1\u20133]", A), ("[1\u20133]", B), ("[1\u20133]", C)),
                canonical_events(styled("")[-1:])[0],
            ],
        ),
        case(
            "a range past the sources",
            "[1-9] names nothing when 9 names no source (logged); "
            "in a group, [2, 9] still cites 2.",
            styled("See [1-9] and [2, 9]."),
            expected=[
                *canonical_events(styled("See [1-9] and [2, 9].")[:-1]),
                citations("m1", ("[2, 9]", B)),
                canonical_events(styled("")[-1:])[0],
            ],
        ),
        case(
            "footnotes",
            "[^2] inline, and a footnote definition line [^1]: counts as a mention.",
            styled("See [^2].\n\n[^1]: The first source."),
            expected=[
                *canonical_events(styled("See [^2].\n\n[^1]: The first source.")[:-1]),
                citations("m1", ("[^2]", B), ("[^1]", A)),
                canonical_events(styled("")[-1:])[0],
            ],
        ),
        case(
            "full-width markers",
            "【1】 and 【3†source】 name 1 and 3; 【3:0†source】 names nothing.",
            styled("See 【1】, 【3†source】 and 【3:0†source】."),
            expected=[
                *canonical_events(styled("See 【1】, 【3†source】 and 【3:0†source】.")[:-1]),
                citations("m1", ("【1】", A), ("【3†source】", C)),
                canonical_events(styled("")[-1:])[0],
            ],
        ),
        case(
            "styles in code",
            "No style is a marker in code.",
            styled("`[1, 2]` and `【3】` and `[^1]`"),
        ),
    ]


def write_cases(folder: Path) -> list[Path]:
    """Write every group of cases to `folder`/<group>.json: the files written."""
    folder.mkdir(exist_ok=True)
    groups = {
        "basics": basics,
        "stream": stream_rules,
        "records": records,
        "threads": threads,
        "snapshots": snapshots,
        "code": code,
        "shapes": shapes,
        "marker-styles": marker_styles,
    }
    made = {name: make() for name, make in groups.items()}
    names = [each["name"] for group in made.values() for each in group]
    assert len(names) == len(set(names)), "a case name is used twice"
    written = []
    for name, group in made.items():
        path = folder / f"{name}.json"
        path.write_text(
            json.dumps({"cases": group}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        written.append(path)
    return written


def main() -> None:
    for path in write_cases(CASES):
        print(f"wrote {path.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    main()
