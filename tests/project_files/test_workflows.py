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
PUBLISHING = ("pypa/gh-action-pypi-publish", "twine upload", "npm publish", "actions/deploy-pages")


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


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = job.get("steps", [])
    return found


def publishes(job: dict[str, Any]) -> bool:
    texts = [f"{s.get('uses', '')} {s.get('run', '')}" for s in steps(job)]
    return any(what in text for text in texts for what in PUBLISHING)


def conditioned(job: dict[str, Any]) -> bool:
    """`if:` (`always()` and the like run a job whatever its needs did) or
    `continue-on-error` (a failure that counts as a pass)."""
    return "if" in job or bool(job.get("continue-on-error"))


def release_gaps(jobs: dict[str, Any]) -> list[str]:
    """The jobs that could run without every CI job having passed: each job but the tests
    must wait for them, with no condition on its way, whatever it does."""
    tests = {name for name, job in jobs.items() if job.get("uses") == CI}
    gaps = []
    for name in jobs:
        path = {name} | needed(jobs, name)
        if name not in tests and (not tests & path or any(conditioned(jobs[j]) for j in path)):
            gaps.append(name)
    return gaps


def checkout_refs(jobs: dict[str, Any]) -> list[str]:
    """The jobs that check out something other than the tagged commit the tests ran on."""
    return [
        name
        for name, job in jobs.items()
        for step in steps(job)
        if step.get("uses", "").startswith("actions/checkout") and "ref" in step.get("with", {})
    ]


def grants_id_token(flow_or_job: dict[str, Any]) -> bool:
    permissions = flow_or_job.get("permissions", {})
    return permissions == "write-all" or (
        isinstance(permissions, dict) and permissions.get("id-token") == "write"
    )


def publishing_outside_release(flows: dict[str, dict[Any, Any]]) -> list[str]:
    """What a workflow other than release.yml does of a release: a tag or release trigger,
    an OIDC token (trusted publishing), a publishing step."""
    found = []
    for name, flow in flows.items():
        if name == "release.yml":
            continue
        on = triggers(flow)
        push = on.get("push") or {} if isinstance(on, dict) else {}
        if "release" in on or "create" in on or "tags" in push:
            found.append(f"{name}: a tag or release trigger")
        if grants_id_token(flow) or any(grants_id_token(j) for j in flow["jobs"].values()):
            found.append(f"{name}: id-token: write")
        found += [f"{name}: {job} publishes" for job, j in flow["jobs"].items() if publishes(j)]
    return found


def all_workflows() -> dict[str, dict[Any, Any]]:
    return {path.name: workflow(path.name) for path in sorted(WORKFLOWS.glob("*.yml"))}


def conditioned_test_runs(ci: dict[Any, Any]) -> list[str]:
    """The jobs of ci.yml, and their steps that run nox, that could pass without the
    tests passing (or running)."""
    found = []
    for name, job in ci["jobs"].items():
        if conditioned(job):
            found.append(name)
        found += [
            f"{name}: {step.get('name', step['run'])}"
            for step in steps(job)
            if "nox" in step.get("run", "") and conditioned(step)
        ]
    return found


def test_a_release_publishes_only_after_the_whole_ci_passed_on_the_tagged_commit() -> None:
    release = workflow("release.yml")
    assert list(triggers(release)) == ["push"] and "tags" in triggers(release)["push"]
    jobs = release["jobs"]
    assert [name for name, job in jobs.items() if publishes(job)] == ["pypi", "npm", "docs"]
    assert [name for name, job in jobs.items() if job.get("uses") == CI] == ["tests"]
    assert release_gaps(jobs) == []
    assert checkout_refs(jobs) == []
    assert "workflow_call" in triggers(workflow("ci.yml"))
    assert conditioned_test_runs(workflow("ci.yml")) == []
    assert publishing_outside_release(all_workflows()) == []


def test_a_job_that_skips_the_tests_is_found() -> None:
    jobs = workflow("release.yml")["jobs"]
    assert release_gaps({**jobs, "build": {**jobs["build"], "needs": []}}) == [
        "build", "pypi", "npm", "docs",
    ]  # fmt: skip
    assert release_gaps({**jobs, "npm": {**jobs["npm"], "if": "${{ always() }}"}}) == ["npm"]
    assert release_gaps({**jobs, "docs": {**jobs["docs"], "continue-on-error": True}}) == ["docs"]
    # a job that publishes nothing the test knows of must wait too
    assert release_gaps({**jobs, "notify": {"runs-on": "ubuntu-latest", "steps": []}}) == ["notify"]


def test_a_release_checkout_of_another_ref_is_found() -> None:
    jobs = workflow("release.yml")["jobs"]
    [checkout, *rest] = jobs["npm"]["steps"]
    moved = {**checkout, "with": {"ref": "main"}}
    assert checkout_refs({**jobs, "npm": {**jobs["npm"], "steps": [moved, *rest]}}) == ["npm"]


def test_a_release_from_another_workflow_is_found() -> None:
    flows = all_workflows()
    ci, release = flows["ci.yml"], flows["release.yml"]
    tagged = {**ci, True: {**triggers(ci), "push": {"tags": ["v*"]}}}
    assert publishing_outside_release({"ci.yml": tagged}) == ["ci.yml: a tag or release trigger"]
    released = {**ci, True: {**triggers(ci), "release": {"types": ["published"]}}}
    assert publishing_outside_release({"ci.yml": released}) == ["ci.yml: a tag or release trigger"]
    token = {**ci, "permissions": {"id-token": "write"}}
    assert publishing_outside_release({"ci.yml": token}) == ["ci.yml: id-token: write"]
    copied = {**ci, "jobs": {**ci["jobs"], "pypi": release["jobs"]["pypi"]}}
    assert publishing_outside_release({"ci.yml": copied}) == [
        "ci.yml: id-token: write",
        "ci.yml: pypi publishes",
    ]


def test_a_ci_test_run_that_may_fail_or_not_run_is_found() -> None:
    ci = workflow("ci.yml")
    nox_job = ci["jobs"]["nox"]
    assert conditioned_test_runs({"jobs": {"nox": {**nox_job, "continue-on-error": True}}}) == [
        "nox"
    ]
    runs = [s for s in steps(nox_job) if "nox -s" in s.get("run", "")]
    assert len(runs) == 1
    skipped = [{**s, "if": "false"} if s in runs else s for s in steps(nox_job)]
    assert conditioned_test_runs({"jobs": {"nox": {**nox_job, "steps": skipped}}}) == [
        f"nox: {runs[0]['name']}"
    ]


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
