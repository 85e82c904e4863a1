"""With `CI` set a skip fails the run unless its reason names the nox session that runs
the test instead (`nox -s tests-agno`, `nox -s tests-agent-framework(newest)`): CI runs
every default session, so a test skipped in one must run in another. Loaded by
conftest.py; `pytest -p named_skips` loads it alone."""

from __future__ import annotations

import ast
import os
import re
from functools import cache
from pathlib import Path

import pytest

NOXFILE = Path(__file__).resolve().parents[1] / "noxfile.py"
NAMED_SESSION = re.compile(r"nox -s ([\w.-]+)")


@cache
def nox_sessions() -> frozenset[str]:
    """The session names noxfile.py defines (`name=` or the function's name)."""
    names = set()
    for node in ast.walk(ast.parse(NOXFILE.read_text(encoding="utf-8"))):
        for decorator in getattr(node, "decorator_list", []):
            if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) == "nox.session":
                named = [k.value for k in decorator.keywords if k.arg == "name"]
                names.add(ast.literal_eval(named[0]) if named else getattr(node, "name", ""))
    return frozenset(names)


def skip_reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def names_a_session(reason: str) -> bool:
    return any(name in nox_sessions() for name in NAMED_SESSION.findall(reason))


class NamedSkips:
    """Notes each skip whose reason names no session of noxfile.py; fails the run on any."""

    def __init__(self) -> None:
        self.unnamed: list[str] = []

    def _note(self, report: pytest.CollectReport | pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = skip_reason(report)
            if not names_a_session(reason):
                self.unnamed.append(f"{report.nodeid}: {reason}")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.unnamed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.unnamed:
            terminalreporter.section("skips that name no nox session (CI runs everything)")
            for line in self.unnamed:
                terminalreporter.line(line)


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("CI"):
        config.pluginmanager.register(NamedSkips(), "named-skips")
