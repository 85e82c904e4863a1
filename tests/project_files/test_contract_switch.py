"""The contract tests that read the official record schema: skipped, naming how to get it,
when the spec is not there; failed instead in CI, where every one of them must run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from contract import CAPTURES, CITATION_RECORD_SCHEMA, EXAMPLE_EVENT, SPEC_COMMIT

from support import ROOT

ONE_CONTRACT_TEST = "tests/demo/test_demo_kb.py::test_record_is_valid_against_the_official_schema"
#: A test that checks a stream's records, not itself a contract test.
ONE_STREAM_TEST = "tests/core/test_http.py"


def run(
    test: str, spec_dir: Path | str, cwd: Path = ROOT, **env: str
) -> subprocess.CompletedProcess[str]:
    """One test file or test, `MOCA_SPEC_DIR` naming `spec_dir`, `CI` unset unless given."""
    clean = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", str(ROOT / test), "-q", "-rs", "-p", "no:cacheprovider",
         "--rootdir", str(ROOT)],
        cwd=cwd, env={**clean, "MOCA_SPEC_DIR": str(spec_dir), **env},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def run_without_spec(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """One contract test, `MOCA_SPEC_DIR` naming an empty directory."""
    return run(ONE_CONTRACT_TEST, tmp_path, **env)


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


def test_in_ci_a_stream_check_without_the_spec_fails_rather_than_holds_records_to_less(
    tmp_path: Path,
) -> None:
    """Outside CI a stream's records are held to the core's rules without the spec; in CI
    the official schema is required, so a wrong `MOCA_SPEC_DIR` cannot pass quietly."""
    assert run(ONE_STREAM_TEST, tmp_path).returncode == 0
    done = run(ONE_STREAM_TEST, tmp_path, CI="true")
    assert done.returncode == 1, done.stdout
    assert "no official record schema" in done.stdout


def test_a_relative_spec_dir_is_read_from_the_repository_root(tmp_path: Path) -> None:
    """As the `wheel` session runs the tests: from a directory outside the checkout."""
    if not CITATION_RECORD_SCHEMA.is_file():  # the default spec dir, as CI has it
        pytest.skip(f"needs the spec at {CITATION_RECORD_SCHEMA}; CI has it: nox -s tests")
    relative = os.path.relpath(CITATION_RECORD_SCHEMA.parents[2], ROOT)
    done = run(ONE_CONTRACT_TEST, relative, cwd=tmp_path, CI="true")
    assert done.returncode == 0, done.stdout
    assert summary(done).endswith(" passed")  # none skipped


def test_a_schema_other_than_the_pinned_commits_fails_naming_that_commit(
    tmp_path: Path,
) -> None:
    schema = tmp_path / "schemas" / "v1" / "citation-record.schema.json"
    schema.parent.mkdir(parents=True)
    schema.write_text('{"type": "object"}', encoding="utf-8")
    done = run(ONE_CONTRACT_TEST, tmp_path)
    assert done.returncode == 1, done.stdout
    assert f"not the citation-record schema of moca-spec commit {SPEC_COMMIT}" in done.stdout
