"""`moca-agui check`: each service rule broken on its own, named; the demo's streams pass."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from moca_agui.check import Finding, SourceError, check_events, parse_stream, read_source
from moca_agui.cli import main
from moca_agui.demo.frameworks.ag_ui import build_app
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import run_input, served
from support import record

QUESTION = "What does the handbook cover?"


def demo_stream(question: str = QUESTION) -> list[dict[str, Any]]:
    async def post() -> str:
        transport = httpx.ASGITransport(app=build_app(DemoReader()))
        async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
            return (await client.post("/", json=run_input(question))).text

    return parse_stream(asyncio.run(post()))


@pytest.fixture(scope="module")
def stream() -> list[dict[str, Any]]:
    return demo_stream()


def index_of(events: list[dict[str, Any]], kind: str, name: str | None = None) -> int:
    (found,) = [
        i for i, e in enumerate(events) if e["type"] == kind and (name is None or e["name"] == name)
    ]
    return found


def event_value(events: list[dict[str, Any]]) -> dict[str, Any]:
    value: dict[str, Any] = events[index_of(events, "CUSTOM", "moca.citations")]["value"]
    return value


def rules(findings: list[Finding]) -> list[tuple[str, str, str, int]]:
    return [(f.level, f.section, f.rule, f.event) for f in findings]


def broken(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return copy.deepcopy(stream)


# -- the demo's streams pass ---------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        QUESTION,
        "Do I need to register my hives?",
        "How do I treat varroa mites?",
        "What should I do about a swarm?",
        "Where can hives stand near a footpath?",
        "quantum chromodynamics",
    ],
)
def test_the_demo_streams_pass(question: str) -> None:
    assert check_events(demo_stream(question)) == []


def test_a_stream_of_sdk_events_is_checked_too(stream: list[dict[str, Any]]) -> None:
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    assert check_events([adapter.validate_python(event) for event in stream]) == []


# -- each rule broken on its own -----------------------------------------------------------


def test_placement_before_the_message_end(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    custom = events.pop(index_of(events, "CUSTOM", "moca.citations"))
    end = index_of(events, "TEXT_MESSAGE_END")
    events.insert(end, custom)
    assert rules(check_events(events)) == [("error", "§3", "placement", end)]


def test_placement_after_run_finished(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    events.append(events.pop(index_of(events, "CUSTOM", "moca.citations")))
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§3", "placement", len(events) - 1)]
    assert f"RUN_FINISHED is event {len(events) - 2}" in finding.message


def test_placement_after_run_error(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    events[-1] = {"type": "RUN_ERROR", "message": "boom"}
    at = index_of(events, "CUSTOM", "moca.citations")
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§3", "placement", at)]
    assert "the run has no RUN_FINISHED" in finding.message


def test_unknown_version(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    event_value(events)["version"] = 2
    at = index_of(events, "CUSTOM", "moca.citations")
    assert rules(check_events(events)) == [
        ("warning", "§3", "an event per message", at - 1),  # as a client ignores the event
        ("error", "§2", "version", at),
    ]


def test_message_id_not_of_this_run(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    event_value(events)["messageId"] = "msg-from-elsewhere"
    at = index_of(events, "CUSTOM", "moca.citations")
    assert ("error", "§2", "messageId", at) in rules(check_events(events))


def renamed_by_a_snapshot(stream: list[dict[str, Any]], *, event_names: str) -> list[dict]:
    """`stream` with a MESSAGES_SNAPSHOT before the event that gives the answer another id
    (as ag-ui-crewai does), the event naming `event_names`: "streamed" or "snapshot"."""
    events = broken(stream)
    start = events[index_of(events, "TEXT_MESSAGE_START")]
    text = "".join(
        e["delta"] for e in events
        if e["type"] == "TEXT_MESSAGE_CONTENT" and e["messageId"] == start["messageId"]
    )  # fmt: skip
    answer = {"id": "snapshot-id", "role": "assistant", "content": text}
    at = index_of(events, "CUSTOM", "moca.citations")
    events.insert(at, {"type": "MESSAGES_SNAPSHOT", "messages": [answer]})
    if event_names == "snapshot":
        event_value(events)["messageId"] = "snapshot-id"
    return events


def test_an_event_naming_an_answer_a_snapshot_renamed(stream: list[dict[str, Any]]) -> None:
    events = renamed_by_a_snapshot(stream, event_names="streamed")
    at = index_of(events, "CUSTOM", "moca.citations")
    [finding] = [f for f in check_events(events) if f.rule == "a message the client holds"]
    assert rules([finding]) == [("error", "§4", "a message the client holds", at)]
    assert f"left out by the MESSAGES_SNAPSHOT at event {at - 1}" in finding.message


def test_an_event_naming_the_snapshots_id_of_the_answer_passes(
    stream: list[dict[str, Any]],
) -> None:
    assert check_events(renamed_by_a_snapshot(stream, event_names="snapshot")) == []


def carrying(stream: list[dict[str, Any]], value: dict[str, Any]) -> list[dict[str, Any]]:
    """The renamed stream whose snapshot answer carries `value` on its metadata."""
    events = renamed_by_a_snapshot(stream, event_names="snapshot")
    [answer] = events[index_of(events, "MESSAGES_SNAPSHOT")]["messages"]
    answer["metadata"] = {"citations": "kept", "moca.citations": value}
    return events


def test_a_snapshot_answer_carrying_its_events_value_passes(
    stream: list[dict[str, Any]],
) -> None:
    events = renamed_by_a_snapshot(stream, event_names="snapshot")
    assert check_events(carrying(stream, copy.deepcopy(event_value(events)))) == []


def test_a_snapshot_answer_carrying_another_value_than_its_event(
    stream: list[dict[str, Any]],
) -> None:
    value = copy.deepcopy(event_value(renamed_by_a_snapshot(stream, event_names="snapshot")))
    value["citations"] = value["citations"][:-1]
    events = carrying(stream, value)
    at = index_of(events, "MESSAGES_SNAPSHOT")
    assert rules(check_events(events)) == [("error", "§2", "metadata", at)]


def test_a_snapshot_answer_carrying_another_messages_value(
    stream: list[dict[str, Any]],
) -> None:
    value = copy.deepcopy(event_value(renamed_by_a_snapshot(stream, event_names="snapshot")))
    value["messageId"] = "elsewhere"
    events = carrying(stream, value)
    at = index_of(events, "MESSAGES_SNAPSHOT")
    assert rules(check_events(events)) == [("error", "§2", "messageId", at)]


def test_metadata_citations_of_an_answer_with_no_event_are_checked_as_an_events(
    stream: list[dict[str, Any]],
) -> None:
    """An answer this run streamed whose sources only its metadata carries: a record no
    Reader returned there is an error, as in an event."""
    events = broken(stream)
    at = index_of(events, "CUSTOM", "moca.citations")
    value = events.pop(at)["value"]
    forged = copy.deepcopy(value)
    forged["citations"][0]["record"]["trust"]["stale"] = not forged["citations"][0]["record"][
        "trust"
    ]["stale"]
    answer = {"id": value["messageId"], "role": "assistant", "content": "x",
              "metadata": {"moca.citations": forged}}  # fmt: skip
    events.insert(at, {"type": "MESSAGES_SNAPSHOT", "messages": [answer]})
    assert ("error", "§3", "unchanged", at) in rules(check_events(events))


def test_message_id_of_a_user_message(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    user = [
        {"type": "TEXT_MESSAGE_START", "messageId": "u1", "role": "user"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "u1", "delta": QUESTION},
        {"type": "TEXT_MESSAGE_END", "messageId": "u1"},
    ]
    events[1:1] = user
    event_value(events)["messageId"] = "u1"
    at = index_of(events, "CUSTOM", "moca.citations")
    assert ("error", "§2", "messageId", at) in rules(check_events(events))


def test_an_invalid_record(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    event_value(events)["citations"][2]["record"]["trust"]["stale"] = "no"
    at = index_of(events, "CUSTOM", "moca.citations")
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§2", "record", at)]
    assert finding.message.startswith("citations[2]: not a valid citation record: trust.stale")


def test_a_node_no_reader_result_returned(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    invented = record("invented.md", package_id="https://example.org/moca/fernhollow-apiary")
    value = event_value(events)
    value["citations"].append({"record": invented})
    end = index_of(events, "TEXT_MESSAGE_END")
    events.insert(end, {"type": "TEXT_MESSAGE_CONTENT", "messageId": value["messageId"],
                        "delta": f" See also {invented['node']['ref']}."})  # fmt: skip
    (finding,) = check_events(events)
    at = index_of(events, "CUSTOM", "moca.citations")
    assert rules([finding]) == [("error", "§3", "returned by the Reader", at)]
    assert invented["node"]["ref"] in finding.message


def test_a_changed_record(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    event_value(events)["citations"][1]["record"]["trust"]["inForce"] = True  # was False
    at = index_of(events, "CUSTOM", "moca.citations")
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§3", "unchanged", at)]
    assert (
        "citations[1] (https://example.org/moca/fernhollow-apiary@3.0.0#drought" in finding.message
    )


def test_dropping_text_is_the_one_change_allowed(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    for citation in event_value(events)["citations"]:
        del citation["record"]["text"]
    assert check_events(events) == []


def test_dropping_anything_else_is_a_change(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    del event_value(events)["citations"][0]["record"]["node"]["tags"]
    assert [f.rule for f in check_events(events)] == ["unchanged"]


def test_order_of_first_mention(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    citations = event_value(events)["citations"]
    citations[3], citations[4] = citations[4], citations[3]
    at = index_of(events, "CUSTOM", "moca.citations")
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§3", "order of first mention", at)]


def test_one_entry_per_node_and_span(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    citations = event_value(events)["citations"]
    citations.insert(1, copy.deepcopy(citations[0]))
    at = index_of(events, "CUSTOM", "moca.citations")
    assert rules(check_events(events)) == [("error", "§3", "one entry per node and span", at)]


def test_the_same_node_with_another_span_is_another_entry(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    assert [f.rule for f in check_events(events)] == []
    citations = event_value(events)["citations"]
    other = copy.deepcopy(citations[0])
    other["record"]["span"] = {"start": 0, "end": 10}
    citations.insert(1, other)
    assert [f.rule for f in check_events(events)] == ["unchanged"]  # not returned with that span


def test_one_event_per_message(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    at = index_of(events, "CUSTOM", "moca.citations")
    events.insert(at + 1, copy.deepcopy(events[at]))
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§2", "one event per message", at + 1)]
    assert f"the first is event {at}" in finding.message


def test_a_citation_the_answer_does_not_mention(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    citations = event_value(events)["citations"]
    citations[0]["marker"] = "[99]"
    at = index_of(events, "CUSTOM", "moca.citations")
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§3", "cited by the answer", at)]


@pytest.mark.parametrize("code", ["~~~\nrows[99]\n~~~", "Code:\n\n    rows[99]", "```\nrows[99]"])
def test_a_marker_only_in_code_is_not_a_mention(stream: list[dict[str, Any]], code: str) -> None:
    """The checker reads code as the layer does: a tilde fence, an indented block and an
    open fence hide a marker."""
    events = broken(stream)
    citations = event_value(events)["citations"]
    citations[0]["marker"] = "[99]"
    end = index_of(events, "TEXT_MESSAGE_END")
    message_id = events[end]["messageId"]
    delta = {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": f"\n\n{code}\n"}
    events.insert(end, delta)
    at = index_of(events, "CUSTOM", "moca.citations")
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§3", "cited by the answer", at)]


def test_a_message_without_an_event_is_a_warning(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    finished = index_of(events, "RUN_FINISHED")
    events[finished:finished] = [
        {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "Anything else?"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
    ]
    assert rules(check_events(events)) == [("warning", "§3", "an event per message", finished + 2)]


def test_a_stream_without_any_event_is_a_warning(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    del events[index_of(events, "CUSTOM", "moca.citations")]
    assert rules(check_events(events)) == [("warning", "§3", "an event per message", 0)]


@pytest.mark.parametrize("mcp", [False, True], ids=["plain", "mcp-content"])
def test_compact_results_are_compared_with_the_record(mcp: bool) -> None:
    reader = DemoReader()
    ref = "https://example.org/moca/fernhollow-apiary@3.0.0#varroa-treatment.md"
    whole = reader.get(ref)
    assert whole is not None
    compact: dict[str, Any] = reader.moca_search("varroa", limit=1)
    if mcp:  # as an MCP CallToolResult carries it
        compact = {"content": [{"type": "text", "text": json.dumps(compact)}], "isError": False}
    events: list[dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "moca_search"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1",
         "content": json.dumps(compact)},
        *[{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
          {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Treat in winter [1]."},
          {"type": "TEXT_MESSAGE_END", "messageId": "m1"}],
        {"type": "CUSTOM", "name": "moca.citations",
         "value": {"version": 1, "messageId": "m1",
                   "citations": [{"marker": "[1]", "record": whole}]}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]  # fmt: skip
    assert check_events(events) == []
    whole["trust"]["stale"] = False  # the Reader said it is stale
    (finding,) = check_events(events)
    assert rules([finding]) == [("error", "§3", "unchanged", 7)]
    assert "stale differs from the Reader's compact result" in finding.message


def non_streaming_stream(cited: str = "m1") -> list[dict[str, Any]]:
    """A LangGraph run on a model that does not stream: its text only in MESSAGES_SNAPSHOT."""
    ref = "https://example.org/moca/fernhollow-apiary@3.0.0#hive-registration.md"
    whole = DemoReader().moca_get_node(ref)
    return [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "moca_get_node"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": json.dumps({"node_id": ref})},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "t1", "toolCallId": "c1",
         "content": json.dumps(whole)},
        {"type": "MESSAGES_SNAPSHOT", "messages": [
            {"id": "u1", "role": "user", "content": "Do I need to register my hives?"},
            {"id": "a0", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function",
             "function": {"name": "moca_get_node", "arguments": "{}"}}]},
            {"id": "t1", "role": "tool", "toolCallId": "c1", "content": json.dumps(whole)},
            {"id": "m1", "role": "assistant", "content": f"Yes, register them [1] ({ref})."},
        ]},
        {"type": "CUSTOM", "name": "moca.citations",
         "value": {"version": 1, "messageId": cited,
                   "citations": [{"marker": "[1]", "record": whole}]}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]  # fmt: skip


def test_a_message_only_a_snapshot_carries_is_a_message_of_the_run() -> None:
    assert check_events(non_streaming_stream()) == []
    events = non_streaming_stream()
    events.insert(5, events.pop(6))  # the event before the snapshot that carries the text
    assert rules(check_events(events)) == [("error", "§3", "placement", 5)]
    for cited in ("elsewhere", "a0", "u1"):  # in neither text nor snapshot, or without text
        findings = rules(check_events(non_streaming_stream(cited)))
        assert ("error", "§2", "messageId", 6) in findings, cited


def test_a_result_of_another_tool_is_not_a_source(stream: list[dict[str, Any]]) -> None:
    events = broken(stream)
    for event in events:
        if event["type"] == "TOOL_CALL_START":
            event["toolCallName"] = "web_search"
    findings = check_events(events)
    cited = len(event_value(events)["citations"])
    at = index_of(events, "CUSTOM", "moca.citations")
    assert rules(findings) == [("error", "§3", "returned by the Reader", at)] * cited
    assert all(
        "only 'web_search' returned, and 'web_search' is not a Reader tool" in f.message
        and f.message.endswith("pass --reader-tool web_search)")
        for f in findings
    )
    named = check_events(events, reader_tools=["web_search"])
    assert named == []


def test_a_readers_tool_under_a_name_a_plugin_reads_is_a_reader(
    stream: list[dict[str, Any]],
) -> None:
    """The checker asks the plugins which tools are Readers, as a citing run does: Claude
    Code names an MCP server's tool `mcp__<server>__<tool>`."""
    events = broken(stream)
    for event in events:
        if event["type"] == "TOOL_CALL_START":
            event["toolCallName"] = f"mcp__moca__{event['toolCallName']}"
    assert check_events(events) == []
    for event in events:
        if event["type"] == "TOOL_CALL_START":
            server, tool = event["toolCallName"].rsplit("__", 1)
            event["toolCallName"] = f"{server}__web_{tool}"
    cited = len(event_value(events)["citations"])
    assert len(check_events(events)) == cited  # mcp__moca__web_moca_...: no Reader's


def test_a_record_only_another_tool_returned_is_an_error_beside_a_reader(
    stream: list[dict[str, Any]],
) -> None:
    """A record forged by `web_search` does not pass because a Reader was called too."""
    events = broken(stream)
    value = event_value(events)
    forged = record("forged.md", package_id="https://example.org/moca/fernhollow-apiary")
    value["citations"].append({"record": forged})
    end = index_of(events, "TEXT_MESSAGE_END")
    events.insert(end, {"type": "TEXT_MESSAGE_CONTENT", "messageId": value["messageId"],
                        "delta": f" See {forged['node']['ref']}."})  # fmt: skip
    start = index_of(events, "TEXT_MESSAGE_START")
    events[start:start] = [
        {"type": "TOOL_CALL_START", "toolCallId": "w1", "toolCallName": "web_search"},
        {"type": "TOOL_CALL_END", "toolCallId": "w1"},
        {"type": "TOOL_CALL_RESULT", "messageId": "w1-r", "toolCallId": "w1",
         "content": json.dumps({"results": [forged]})},
    ]  # fmt: skip
    (finding,) = check_events(events)
    at = index_of(events, "CUSTOM", "moca.citations")
    assert rules([finding]) == [("error", "§3", "returned by the Reader", at)]
    assert forged["node"]["ref"] in finding.message
    assert "--reader-tool web_search" in finding.message


def test_a_reader_call_whose_result_the_stream_does_not_show_is_a_warning(
    stream: list[dict[str, Any]],
) -> None:
    events = [e for e in broken(stream) if e["type"] != "TOOL_CALL_RESULT"]
    findings = check_events(events)
    assert {(f.level, f.rule) for f in findings} == {("warning", "returned by the Reader")}
    assert "Reader results it cannot see" in findings[0].message


# -- reading sources -----------------------------------------------------------------------


def test_sse_and_json_lines_read_alike(stream: list[dict[str, Any]], tmp_path: Path) -> None:
    sse = "".join(f"data: {json.dumps(e)}\n\n" for e in stream)
    assert parse_stream(sse) == stream
    assert parse_stream(sse.replace("\n", "\r\n")) == stream
    assert parse_stream("\n".join(json.dumps(e) for e in stream) + "\n") == stream
    assert parse_stream(": comment\nevent: message\n" + sse) == stream


@pytest.mark.parametrize(
    ("text", "message"),
    [("{not json", "event 0 is not JSON"), ('{"a": 1}\n', "event 0 is not an AG-UI event"),
     ("[1]", "not an AG-UI event"), ("", "no events"),
     ("\n  \n", "no events")],
)  # fmt: skip
def test_unreadable_streams(text: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        parse_stream(text)


def test_the_command_lines_and_exit_codes(
    stream: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(json.dumps(e) for e in stream))
    assert main(["check", str(good)]) == 0
    assert capsys.readouterr().out == f"0 error(s), 0 warning(s) in {len(stream)} events: {good}\n"

    events = broken(stream)
    event_value(events)["version"] = 7
    bad = tmp_path / "bad.sse"
    bad.write_text("".join(f"data: {json.dumps(e)}\n\n" for e in events))
    at = index_of(events, "CUSTOM", "moca.citations")
    assert main(["check", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"event {at}: error: §2 version: version is 7, not 1"
    assert lines[-1] == f"1 error(s), 1 warning(s) in {len(events)} events: {bad}"

    assert main(["check", "--json", str(bad)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["errors"], report["warnings"], report["events"]) == (1, 1, len(events))
    assert report["findings"][1] == {
        "level": "error", "section": "§2", "rule": "version", "event": at,
        "message": "version is 7, not 1",
    }  # fmt: skip

    assert main(["check", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "junk").write_text("data: {oops\n\n")
    assert main(["check", str(tmp_path / "junk")]) == 2
    (tmp_path / "empty.jsonl").write_text("")
    capsys.readouterr()
    assert main(["check", str(tmp_path / "empty.jsonl")]) == 2
    empty = tmp_path / "empty.jsonl"
    assert capsys.readouterr().err == f"moca-agui check: cannot read {empty}: no events\n"


def test_stdin_through_the_installed_command(stream: list[dict[str, Any]]) -> None:
    text = "\n".join(json.dumps(e) for e in stream)
    command = [str(Path(sys.executable).with_name("moca-agui")), "check", "-"]
    done = subprocess.run(
        command, input=text, capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout.splitlines()[-1]) == (
        0, f"0 error(s), 0 warning(s) in {len(stream)} events: -"
    )  # fmt: skip


async def test_a_url_is_posted_a_run_and_its_answer_checked() -> None:
    app = build_app(DemoReader())
    async with served(app) as base_url:
        events = await asyncio.to_thread(
            read_source, base_url + "/", message="How do I treat varroa mites?", timeout=30
        )
    assert events[0]["type"] == "RUN_STARTED"
    assert check_events(events) == []
    with pytest.raises(SourceError, match="cannot read"):
        await asyncio.to_thread(read_source, base_url + "/", message="x", timeout=5)
