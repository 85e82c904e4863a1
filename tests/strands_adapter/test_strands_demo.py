"""`moca-agui demo --framework strands`: the demo served through ag-ui-strands, with the
demo's scripted model as an offline Strands model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from moca_agui.check import check_events
from support import assert_valid_stream, citation_events

MOCA_AGUI = str(Path(sys.executable).with_name("moca-agui"))
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
QUESTION = "Do I need to register my hives?"


def test_one_question_prints_the_stream_with_its_citations() -> None:
    done = subprocess.run(
        [MOCA_AGUI, "demo", "--framework", "strands", "--question", QUESTION],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["type"] for e in events] == [
        "RUN_STARTED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT",
        "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "MESSAGES_SNAPSHOT",
        "TOOL_CALL_RESULT", "MESSAGES_SNAPSHOT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "MESSAGES_SNAPSHOT",
        "STATE_SNAPSHOT", "CUSTOM", "RUN_FINISHED",
    ]  # fmt: skip
    assert_valid_stream(events)
    assert check_events(events) == []
    (value,) = citation_events(events)
    [answer] = [e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START"]
    assert value["messageId"] == answer
    assert [(c["marker"], c["record"]["node"]["ref"]) for c in value["citations"]] == [
        ("[1]", HANDBOOK + "hive-registration.md"),
        ("[2]", HANDBOOK + "hive-placement.md"),
    ]
