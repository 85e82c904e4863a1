"""`moca-agui demo --framework adk --question ...`: the demo on ADK prints its stream."""

from __future__ import annotations

from moca_agui.check import check_events
from support import HANDBOOK, assert_valid_stream, citation_events, demo_printed


def test_the_adk_demo_prints_the_wire_stream_of_one_question() -> None:
    events = demo_printed("adk", "Do I need to register my hives?")
    assert [e["type"] for e in events] == [
        "RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
        "STATE_SNAPSHOT", "CUSTOM", "RUN_FINISHED",
    ]  # fmt: skip
    assert_valid_stream(events)
    assert check_events(events) == []
    (value,) = citation_events(events)
    assert [(c["marker"], c["record"]["node"]["ref"]) for c in value["citations"]] == [
        ("[1]", HANDBOOK + "hive-registration.md"),
        ("[2]", HANDBOOK + "hive-placement.md"),
    ]
