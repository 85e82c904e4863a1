"""examples/llama_index/app.py runs offline and shows the sources its answer cites."""

from __future__ import annotations

import subprocess
import sys

from support import ROOT

HANDBOOK = "https://example.org/moca/fernhollow-apiary"


def test_the_example_prints_its_answer_and_only_the_sources_the_reader_returned():
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples/llama_index/app.py")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "events: RUN_STARTED STATE_SNAPSHOT TOOL_CALL_CHUNK MESSAGES_SNAPSHOT STATE_SNAPSHOT "
        "MESSAGES_SNAPSHOT TEXT_MESSAGE_CHUNK MESSAGES_SNAPSHOT CUSTOM RUN_FINISHED"
    )
    assert f"{HANDBOOK}@2.1.0#hive-registration.md no longer applies." in lines[1]
    assert lines[3:] == [
        f"  [1] Registering your hives: {HANDBOOK}@3.0.0#hive-registration.md (Reviewed: "
        "accurate (signed); Verified, as declared; Signed package; Evidence matched (2))",
        f"  (ref) Where hives may stand: {HANDBOOK}@3.0.0#hive-placement.md (Verified, as "
        "declared; Signed package; Evidence matched (1); Evidence not matched (1); Evidence "
        "not checked (1))",
    ]
    message_id = lines[1].split()[1].rstrip(":")
    assert lines[2] == f"sources of {message_id}:"
