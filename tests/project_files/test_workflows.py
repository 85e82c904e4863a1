"""The GitHub workflows: a release publishes only a commit on which the whole CI passed,
and CI runs every session of `python -m nox`."""

from __future__ import annotations

import ast
from typing import Any

import yaml

from support import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
CI = "./.github/workflows/ci.yml"
#: What a step uses or runs when it publishes: PyPI, npm, the docs site.
PUBLISHING = ("pypa/gh-action-pypi-publish", "npm publish", "actions/deploy-pages")


def workflow(name: str) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    return loaded


def triggers(flow: dict[Any, Any]) -> dict[str, Any]:
    on: dict[str, Any] = flow[True]  # YAML 1.1 reads the key `on` as True
    return on


def needed(jobs: dict[str, Any], name: str) -> set[str]:
    """Every job `name` waits for, directly or through another."""
    direct = jobs[name].get("needs", [])
    found = set([direct] if isinstance(direct, str) else direct)
    for job in list(found):
        found |= needed(jobs, job)
    return found


def publishes(job: dict[str, Any]) -> bool:
    steps = [f"{s.get('uses', '')} {s.get('run', '')}" for s in job.get("steps", [])]
    return any(what in step for step in steps for what in PUBLISHING)


def release_gaps(jobs: dict[str, Any]) -> list[str]:
    """The publishing jobs that could run without every CI job having passed."""
    tests = {name for name, job in jobs.items() if job.get("uses") == CI}
    gaps = []
    for name, job in jobs.items():
        path = {name} | needed(jobs, name)
        waits = bool(tests & needed(jobs, name))
        # `if: always()` and the like run a job whatever its needs did
        conditioned = any("if" in jobs[j] or jobs[j].get("continue-on-error") for j in path)
        if publishes(job) and (not waits or conditioned):
            gaps.append(name)
    return gaps


def test_a_release_publishes_only_after_the_whole_ci_passed_on_the_tagged_commit() -> None:
    release = workflow("release.yml")
    assert list(triggers(release)) == ["push"] and "tags" in triggers(release)["push"]
    jobs = release["jobs"]
    assert [name for name, job in jobs.items() if publishes(job)] == ["pypi", "npm", "docs"]
    assert release_gaps(jobs) == []
    assert "workflow_call" in triggers(workflow("ci.yml"))
    assert not any(
        "if" in job or job.get("continue-on-error") for job in workflow("ci.yml")["jobs"].values()
    )


def test_a_publishing_job_that_skips_the_tests_is_found() -> None:
    jobs = workflow("release.yml")["jobs"]
    assert release_gaps({**jobs, "build": {**jobs["build"], "needs": []}}) == [
        "pypi", "npm", "docs",
    ]  # fmt: skip
    assert release_gaps({**jobs, "npm": {**jobs["npm"], "if": "${{ always() }}"}}) == ["npm"]


def default_sessions() -> list[str]:
    """`nox.options.sessions` of noxfile.py."""
    for node in ast.walk(ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "nox.options.sessions":
            sessions: list[str] = ast.literal_eval(node.value)
            return sessions
    raise AssertionError("noxfile.py sets no nox.options.sessions")


def test_ci_runs_every_session_of_python_m_nox() -> None:
    matrix = workflow("ci.yml")["jobs"]["nox"]["strategy"]["matrix"]
    sessions = set(matrix["session"]) | {row["session"] for row in matrix["include"]}
    assert set(default_sessions()) <= sessions
