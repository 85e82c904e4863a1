"""The contract tests that read the official record schema: skipped, naming how to get it,
when the spec is not there; failed instead in CI, where every one of them must run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from contract import CAPTURES, EXAMPLE_EVENT

from support import ROOT

ONE_CONTRACT_TEST = "tests/demo/test_demo_kb.py::test_record_is_valid_against_the_official_schema"


def run_without_spec(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """One contract test, `MOCA_SPEC_DIR` naming an empty directory, `CI` unset."""
    clean = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", ONE_CONTRACT_TEST, "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=ROOT, env={**clean, "MOCA_SPEC_DIR": str(tmp_path), **env},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def summary(done: subprocess.CompletedProcess[str]) -> str:
    """pytest's last line without its time: `9 skipped`, `9 failed`."""
    return done.stdout.splitlines()[-1].rsplit(" in ", 1)[0]


def test_without_the_spec_a_contract_test_is_skipped_saying_how_to_get_it(
    tmp_path: Path,
) -> None:
    done = run_without_spec(tmp_path)
    assert done.returncode == 0, done.stdout
    assert summary(done).endswith(" skipped")
    assert "https://github.com/openmoca/moca-spec" in done.stdout
    assert "MOCA_SPEC_DIR" in done.stdout


def test_in_ci_a_contract_test_without_the_spec_fails(tmp_path: Path) -> None:
    done = run_without_spec(tmp_path, CI="true")
    assert done.returncode == 1, done.stdout
    assert summary(done).endswith(" failed")


def test_the_reference_readers_captures_and_the_example_event_are_in_the_repository() -> None:
    assert CAPTURES.is_relative_to(ROOT) and EXAMPLE_EVENT.is_relative_to(ROOT)
    assert len(list(CAPTURES.glob("*.json"))) >= 20 and EXAMPLE_EVENT.is_file()
    notice = (CAPTURES.parent / "NOTICE").read_text(encoding="utf-8")
    assert "Apache License, Version 2.0" in notice
