"""`parse_json` reads a text with pydantic's parser where that reads it as a strict parse
does, and with the strict parse elsewhere: the two never disagree.

The oracle here is Python's own parser refusing what plain JSON readers disagree on (a
duplicated key, a number out of a double's range, NaN and Infinity).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from moca_agui.records.extract import _parsed_and_wire, parse_json
from support import record


def strict(text: str) -> Any:
    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        value = dict(pairs)
        if len(value) != len(pairs):
            raise ValueError("duplicate key")
        return value

    def finite(number: str) -> float:
        value = float(number)
        if math.isinf(value):
            raise ValueError("out of range")
        return value

    def constant(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, object_pairs_hook=unique, parse_float=finite, parse_constant=constant)


def outcome(parse: Any, text: str) -> tuple[str, str]:
    """What `parse` makes of `text`: its value as JSON text (1 and 1.0 told apart), or
    that it refused it."""
    try:
        value = parse(text)
    except (ValueError, RecursionError):
        return ("refused", "")
    return ("read", json.dumps(value))


def assert_agree(text: str) -> None:
    assert outcome(parse_json, text) == outcome(strict, text), text[:200]


CASES = [
    # duplicated keys, at any depth, however spelled
    '{"a": 1, "a": 2}',
    '{"a": 1, "a": 1}',
    '{"x": {"a": 1, "a": 2}}',
    '[{"a": 1}, {"b": [{"c": 1, "c": {}}]}]',
    '{"a": 1, "\\u0061": 2}',
    '{"": 1, "": 2}',
    '{"a:b": 1, "a:b": 2}',
    '{"a": "x:y:z", "a": "w"}',
    '{"a": {"k": "v:w"}, "a": 0}',
    # an escaped colon would hide a dropped key from a count of colons
    '{"k": "\\u003a", "a": 1, "a": 2}',
    '{"k": "\\u003A", "a": 1, "a": 2}',
    '{"k": "\\u003a"}',
    # numbers out of a double's range, and strings that spell Infinity
    "[1e999]",
    "[-1e999]",
    '{"a": 1e400}',
    '["Infinity", 1e999]',
    '["Infinit\\u0079", 1e999]',
    '{"a": "Infinity", "a": 1e999}',
    '["Infinity", "-Infinity"]',
    "[1e308, -1e308, 2.2e-308, 5e-324, 1e-400]",
    "[" + "1" * 400 + "]",
    "[" + "1" * 400 + ".0]",
    "[NaN]",
    "[Infinity]",
    "[-Infinity]",
    # numbers, literals and whitespace
    "[0, -0, -0.0, 1.0, 1E5, 1e+5, 1.5e-7, 123456789012345678901234567890]",
    "[01]",
    "[1.]",
    "[.5]",
    "[+1]",
    "[-]",
    "[1e]",
    "[0x10]",
    "[true, false, null]",
    "[tru]",
    ' \t\n\r{"a" : 1 } \r\n',
    "\x0c{}",
    "\ufeff{}",
    "{} x",
    "{}{}",
    "[1,]",
    '{"a": 1,}',
    "",
    " ",
    # strings and escapes
    '"a\\/b\\n\\t\\"\\\\"',
    '"a\x01b"',
    '"\\ud83d\\ude00"',
    '["\\ud800"]',
    '["a\ud800"]',  # the lone surrogate in the str itself, as a Python tool may return it
    '["\\udc00x"]',
    '"\\ud83d\\u0041"',
    '"\\uZZZZ"',
    '"é \u2013 ☃ 😀"',
    '"\\u00e9"',
    # depth: past what pydantic's parser reads, within what Python's does
    "[" * 300 + "]" * 300,
    '{"a": ' * 250 + "{}" + "}" * 250,
    "[" * 5000 + "]" * 5000,
]


@pytest.mark.parametrize("text", CASES)
def test_agrees_with_a_strict_parse(text: str) -> None:
    assert_agree(text)


# -- generated texts: objects with keys from a small alphabet, so keys repeat ---------------

NUMBERS = ["0", "-0", "1", "1.5", "1e5", "1E-7", "1e308", "1e309", "-1e999", "1" * 320 + ".5"]
KEYS = st.sampled_from(["a", "b", ":", "a:b", "Infinity", "\\u0061", "\\u003a", ""])
STRINGS = st.lists(
    st.sampled_from(["x", ":", "Infinity", "\\u003a", "\\u003A", "\\n", "\\\\", "é", "\\u00e9"]),
    max_size=4,
).map("".join)
SCALARS = st.one_of(
    st.sampled_from(NUMBERS),
    st.sampled_from(["true", "false", "null"]),
    STRINGS.map(lambda s: f'"{s}"'),
)


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f'"{key}": {value}' for key, value in pairs) + "}"


TEXTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda items: "[" + ",".join(items) + "]"),
        st.lists(st.tuples(KEYS, inner), max_size=4).map(_object),
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_agrees_with_a_strict_parse_on_generated_texts(text: str) -> None:
    assert_agree(text)


# -- which parser reads what ----------------------------------------------------------------


def test_a_reader_result_is_read_by_pydantics_parser() -> None:
    """A Reader's usual text, compact or indented, is read in one pass in Rust, and its
    size as compact JSON is known (every record read from it is part of it)."""
    result = {"query": "refunds", "results": [record("a.md"), record("b.md")]}
    compact = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
    for text in (compact, json.dumps(result, indent=2)):
        value, wire = _parsed_and_wire(text)
        assert value == result
        assert wire is not None and wire.size == len(compact.encode())


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        "[1e999]",
        '{"k": "\\u003a"}',
        '["\\ud800"]',
        '["a\ud800"]',
        "[" * 300 + "]" * 300,
    ],
)
def test_texts_it_may_misread_go_to_the_strict_parse(text: str) -> None:
    try:
        _, wire = _parsed_and_wire(text)
    except ValueError:
        return
    assert wire is None
