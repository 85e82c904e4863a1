"""examples/pydantic_ai/app.py runs offline, reaches the demo Reader over MCP, and prints
the sources its answer cites, and only those."""

from __future__ import annotations

import subprocess
import sys

from support import ROOT

EXAMPLE = ROOT / "examples/pydantic_ai/app.py"
HANDBOOK = "https://example.org/moca/fernhollow-apiary"


def run_example(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_example_prints_the_answer_and_its_sources_with_their_trust():
    lines = run_example()
    assert lines[0].startswith("Yes. Register every apiary with the town clerk")
    assert lines[0].endswith("from a public footpath as well [2].")
    assert lines[2].startswith("Sources (trust as of 20")
    assert lines[3] == f"  [1] Registering your hives  {HANDBOOK}@3.0.0#hive-registration.md"
    assert lines[4].startswith(
        "      Reviewed: accurate (signed), Verified, as declared, Signed package"
    )
    assert lines[5] == f"  [2] Where hives may stand  {HANDBOOK}@3.0.0#hive-placement.md"
    assert len(lines) == 7


def test_a_ref_the_reader_never_returned_is_not_a_source():
    lines = run_example("--question", "How do I treat varroa mites?")
    assert f"{HANDBOOK}@2.1.0#varroa-treatment.md no longer applies." in lines[0]
    assert lines[3:] == [
        f"  * Treating varroa mites  {HANDBOOK}@3.0.0#varroa-treatment.md",
        "      Stale, Verified, as declared, Signed package, Evidence matched (1)",
    ]


def test_the_example_turns_citations_on_with_one_line():
    source = EXAMPLE.read_text(encoding="utf-8")
    assert "AGUIAdapter = moca_agui.instrument(AGUIAdapter)  # the one line" in source
