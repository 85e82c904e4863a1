"""The conformance corpus (`cases/*.json`), run by the Python core: the TypeScript
middleware runs the same cases (js/test/conformance.test.js). A case either fails is a bug
in that implementation. A `pending` case names a rule the core has yet to follow: it must
fail until it passes (strict), and then loses its mark.

On ag-ui-protocol 0.1 (`nox -s tests-ag-ui-0.1`), whose messages have no `metadata`, each
snapshot is expected as the agent sent it; a case whose events 0.1 cannot read (content
parts) is skipped."""

from __future__ import annotations

from typing import Any

import pytest
from corpus import canonical_events, cases, cited, timeless
from pydantic import ValidationError

from support import MESSAGES_CARRY_METADATA


def _param(case: dict[str, Any]) -> Any:
    pending = case.get("pending")
    marks = [pytest.mark.xfail(reason=pending, strict=True)] if pending else []
    try:
        canonical_events(case["events"])
    except ValidationError as error:
        reason = (
            f"this ag-ui-protocol cannot read the case's events ({error.errors()[0]['msg']}); "
            "`nox -s tests` runs it on 1.x"
        )
        marks.append(pytest.mark.skip(reason=reason))
    return pytest.param(case, id=case["name"], marks=marks)


def expected(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's expected events as this ag-ui-protocol sends them: on 0.1, each snapshot
    as the agent sent it (its messages carry no citations)."""
    if MESSAGES_CARRY_METADATA:
        return list(case["expected"])
    events = timeless(canonical_events(case["events"]))
    sent = iter([e for e in events if e["type"] == "MESSAGES_SNAPSHOT"])
    return [next(sent) if e["type"] == "MESSAGES_SNAPSHOT" else e for e in case["expected"]]


@pytest.mark.parametrize("case", [_param(case) for case in cases()])
async def test_case(case: dict[str, Any]) -> None:
    assert await cited(case) == expected(case)


def test_every_case_is_named_once() -> None:
    names = [case["name"] for case in cases()]
    assert len(names) == len(set(names)) and len(names) >= 40
