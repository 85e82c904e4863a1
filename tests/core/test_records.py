"""The project's record validation agrees with the official citation-record schema."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moca_agui.adapter import InvalidRecord, as_record
from support import example_record, record, record_validator

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
    allow_infinity=False) | st.text(max_size=8)  # fmt: skip
JSON = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)  # fmt: skip


def ours(value: Any) -> bool:
    try:
        as_record(value)
    except InvalidRecord:
        return False
    return True


def official(value: Any) -> bool:
    return bool(record_validator().is_valid(value))


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside `value` (dict keys and list indexes)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A valid record with one or two parts replaced, removed or added."""
    value = copy.deepcopy(draw(st.sampled_from([example_record(), record("a.md")])))
    for _ in range(draw(st.integers(1, 2))):
        path = draw(st.sampled_from(paths(value)))
        if not path:
            continue
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "remove", "add", "suffix"]))
        if action == "replace":
            parent[path[-1]] = draw(JSON | st.just(1.0) | st.just("sha256:" + "a" * 64))
        elif action == "remove" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = draw(JSON)
        elif action == "suffix" and isinstance(parent[path[-1]], str):
            parent[path[-1]] += draw(st.sampled_from(["\n", " ", "\ufeff", "\x1c", "A", ""]))
    return value


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_agrees_with_the_official_schema_on_mutated_records(value: Any) -> None:
    assert ours(value) == official(value)


TEXT = st.text(max_size=12)
DIGEST = st.text("0123456789abcdef", min_size=64, max_size=64).map(lambda h: "sha256:" + h)
IRI = st.from_regex(r"\A[A-Za-z][A-Za-z0-9+.-]{0,5}:[!-~]{1,10}\Z")
BY = st.fixed_dictionaries({"by": TEXT}, optional={"at": TEXT})
REVIEW = st.fixed_dictionaries(
    {"reviewer": TEXT, "reviewedAt": TEXT, "outcome": TEXT, "signer": TEXT},
    optional={"scope": TEXT},
)
VALID = st.fixed_dictionaries(
    {
        "package": st.fixed_dictionaries(
            {"id": TEXT, "version": TEXT, "digest": DIGEST, "signed": st.booleans()},
            optional={"signers": st.lists(TEXT, max_size=2)},
        ),
        "node": st.fixed_dictionaries(
            {"id": TEXT, "path": TEXT, "type": TEXT, "ref": st.text(min_size=1, max_size=12)},
            optional={"locale": TEXT, "title": TEXT, "description": TEXT,
                      "tags": st.lists(TEXT, max_size=2), "digest": DIGEST},
        ),
        "trust": st.fixed_dictionaries(
            {"status": st.sampled_from(["draft", "stable", "deprecated"]),
             "declaredVerified": st.lists(BY, max_size=2),
             "attestedReviews": st.lists(REVIEW, max_size=2),
             "stale": st.booleans(), "inForce": st.booleans(),
             "superseded": st.booleans(), "contested": st.booleans()},
            optional={"generated": BY | st.none(), "staleAfter": TEXT, "validFrom": TEXT,
                      "validUntil": TEXT, "supersededBy": st.lists(TEXT, max_size=2),
                      "contestedBy": st.lists(TEXT, max_size=2)},
        ),
    },
    optional={
        "span": st.fixed_dictionaries({"start": st.integers(0), "end": st.integers(0)}),
        "text": st.text(max_size=40),
        "evidence": st.lists(st.fixed_dictionaries(
            {"source": st.dictionaries(TEXT, TEXT, max_size=2)},
            optional={"selector": st.dictionaries(TEXT, TEXT, max_size=2), "note": TEXT,
                      "matched": st.booleans()}), max_size=2),
        "concepts": st.lists(IRI, max_size=2),
        "audience": TEXT,
        "profiles": st.lists(TEXT, max_size=2),
        "score": st.integers() | st.floats(allow_nan=False, allow_infinity=False),
        "retrieval": st.fixed_dictionaries(
            {"via": st.sampled_from(["search", "requires", "parts", "narrower", "related"])},
            optional={"from": TEXT}),
    },
)  # fmt: skip


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(VALID)
def test_accepts_every_valid_record_unchanged(value: Any) -> None:
    assert official(value)
    assert as_record(value) == value


def test_known_disagreements_of_python_regexes_are_settled_as_ecma_262() -> None:
    # jsonschema's default `pattern` uses Python's re, where `$` also matches before "\n".
    value = record("a.md")
    value["package"]["digest"] += "\n"
    assert not ours(value) and not official(value)


@pytest.mark.parametrize("score", [10**400, -(10**309)])
def test_a_score_javascript_reads_as_infinity_is_refused(score: int) -> None:
    """A JSON number all the same, but a client reads it as Infinity (and writes null)."""
    value = {**record("a.md"), "score": score}
    with pytest.raises(InvalidRecord, match=r"^score: "):
        as_record(value)


@pytest.mark.parametrize("start", [1.5, True, -1, -1.0, "1", None])
def test_a_span_offset_is_an_integer_of_at_least_0(start: Any) -> None:
    value = {**record("a.md"), "span": {"start": start, "end": 2}}
    with pytest.raises(
        InvalidRecord, match=r"^span\.start: Input should be an integer of at least 0$"
    ):
        as_record(value)
    assert not official(value)


def test_the_copy_is_private_and_in_the_readers_key_order() -> None:
    original = example_record()
    copied = as_record(original)
    assert copied == original and copied is not original and type(copied) is dict
    assert json.dumps(copied) == json.dumps(original)
    copied["node"]["title"] = "changed"
    assert original["node"]["title"] != "changed"


def test_members_an_open_object_allows_pass_through_unchanged() -> None:
    """The check leaves out of its own output what open objects allow beyond their
    fields: the record returned is the Reader's, those members included."""
    value = example_record()
    value["trust"]["generated"] = {"by": "acme-drafter/2.1", "model": {"name": "d", "n": [1]}}
    value["trust"]["declaredVerified"] = [{"by": "human:sam", "team": "docs"}]
    value["trust"]["attestedReviews"][0]["ticket"] = {"id": 7}
    value["evidence"][0]["page"] = 3
    value["evidence"][0]["source"]["nested"] = {"deep": [{"x": None}]}
    assert official(value)
    assert as_record(value) == value
    assert json.dumps(as_record(value)) == json.dumps(value)


@pytest.mark.parametrize("field", ["source", "selector"])
@pytest.mark.parametrize("bad", [[], "terms-7", None, 1])
def test_an_evidence_source_or_selector_must_be_an_object(field: str, bad: Any) -> None:
    value = example_record()
    value["evidence"][0][field] = bad
    assert not official(value)
    with pytest.raises(InvalidRecord, match=rf"^evidence\.0\.{field}: "):
        as_record(value)
