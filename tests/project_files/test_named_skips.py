"""With `CI` set (`.ci/run`, the GitHub CI) a skip fails the run unless its reason names
the nox session that runs the test instead; without `CI` a skip is a skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from named_skips import nox_sessions

from support import ROOT


def run_skipping(tmp_path: Path, reason: str, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest on one test that skips with `reason`, with only the skip rule loaded."""
    (tmp_path / "test_probe.py").write_text(
        f"import pytest\n\ndef test_probe():\n    pytest.skip({reason!r})\n", encoding="utf-8"
    )
    clean = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "named_skips", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), str(tmp_path / "test_probe.py")],
        cwd=tmp_path, env={**clean, "PYTHONPATH": str(ROOT / "tests"), **env},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_in_ci_a_skip_naming_no_session_fails_the_run(tmp_path: Path) -> None:
    done = run_skipping(tmp_path, "needs agno, not installed here", CI="true")
    assert done.returncode == 1, done.stdout
    assert "test_probe.py::test_probe: needs agno, not installed here" in done.stdout


def test_in_ci_a_skip_naming_a_session_that_does_not_exist_fails_the_run(
    tmp_path: Path,
) -> None:
    done = run_skipping(tmp_path, "runs in nox -s tests-nowhere", CI="true")
    assert done.returncode == 1, done.stdout


def test_in_ci_a_skip_naming_the_session_that_runs_the_test_passes(tmp_path: Path) -> None:
    done = run_skipping(tmp_path, "needs agno: runs in nox -s tests-agno", CI="true")
    assert done.returncode == 0, done.stdout
    done = run_skipping(tmp_path, "covered by nox -s tests-agent-framework(newest)", CI="1")
    assert done.returncode == 0, done.stdout


def test_without_ci_any_skip_is_a_skip(tmp_path: Path) -> None:
    done = run_skipping(tmp_path, "needs agno, not installed here")
    assert done.returncode == 0, done.stdout


def test_the_sessions_are_read_from_the_noxfile() -> None:
    assert {"tests", "tests-agno", "tests-agent-framework", "wheel", "lint"} <= nox_sessions()
