"""`moca-agui demo --framework adk --question ...`: the demo on ADK prints its stream."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from moca_agui.check import check_events
from support import assert_valid_stream, citation_events

MOCA_AGUI = str(Path(sys.executable).with_name("moca-agui"))
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"


def test_the_adk_demo_prints_the_wire_stream_of_one_question() -> None:
    done = subprocess.run(
        [MOCA_AGUI, "demo", "--framework", "adk", "--question", "Do I need to register my hives?"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
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
