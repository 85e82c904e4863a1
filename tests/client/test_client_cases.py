"""moca_agui.client against the case table it shares with the npm package (js/test/cases.test.js):
trust badges, safe URLs and record validity. The two clients cannot drift apart."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import moca_agui
import moca_agui.adapter
from moca_agui.client import read_value, safe_url, trust_badges
from support import ROOT

CASES = json.loads((ROOT / "tests/client/client-cases.json").read_text(encoding="utf-8"))


def case_record(case: dict[str, Any]) -> Any:
    """The case's own `record`, or the table's `base` with the case's `set` applied."""
    if "record" in case:
        return case["record"]
    record = copy.deepcopy(CASES["base"])
    for path, value in case["set"].items():
        *parents, key = path.split(".")
        target = record
        for parent in parents:
            target = target[parent]
        if value == "__delete__":
            del target[key]
        else:
            target[key] = value
    return record


@pytest.mark.parametrize("case", CASES["trustBadges"], ids=lambda c: c["name"])
def test_trust_badges(case: dict[str, Any]) -> None:
    badges = trust_badges(case_record(case))
    shown = [{"key": b.key, "label": b.label, "tone": b.tone, "detail": b.detail} for b in badges]
    assert shown == case["badges"]


@pytest.mark.parametrize("case", CASES["safeUrl"], ids=lambda c: repr(c["value"]))
def test_safe_url(case: dict[str, Any]) -> None:
    assert safe_url(case["value"]) == (case["value"] if case["safe"] else None)


@pytest.mark.parametrize("case", CASES["records"], ids=lambda c: c["name"])
def test_record_validity(case: dict[str, Any]) -> None:
    try:
        moca_agui.adapter.as_record(case_record(case))
    except moca_agui.adapter.InvalidRecord:
        assert not case["valid"]
    else:
        assert case["valid"]


@pytest.mark.parametrize("case", CASES["rfc3339"], ids=lambda c: repr(c["value"]))
def test_computed_at(case: dict[str, Any]) -> None:
    value = {"version": 1, "messageId": "m", "computedAt": case["value"], "citations": []}
    read, problems = read_value(value)
    assert read is not None
    assert read.computed_at == (case["value"] if case["valid"] else None)
    assert [p.rule for p in problems] == ([] if case["valid"] else ["computedAt"])


def test_the_table_covers_every_badge_and_both_answers() -> None:
    keys = {b["key"] for case in CASES["trustBadges"] for b in case["badges"]}
    assert keys == {
        "deprecated", "not-in-force", "superseded", "stale", "contested", "draft",
        "attested-review", "declared-verification", "signed-package", "unsigned-package",
        "generated", "evidence-matched", "evidence-not-matched", "evidence-unchecked",
    }  # fmt: skip
    assert {c["safe"] for c in CASES["safeUrl"]} == {True, False}
    assert {c["valid"] for c in CASES["records"]} == {True, False}
    assert {c["valid"] for c in CASES["rfc3339"]} == {True, False}
