"""Citation records: the project's own model of `citation-record.schema.json` (v1).

The model only checks. What is sent is the record exactly as the Reader produced it, as
plain JSON no one else holds (`as_record`), never a re-serialised model.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, NotRequired, TypeGuard

from pydantic import ConfigDict, Field, GetPydanticSchema, TypeAdapter
from pydantic import ValidationError as _ValidationError
from pydantic_core import core_schema, from_json, to_json
from typing_extensions import TypedDict

__all__ = [
    "InvalidRecord",
    "WireText",
    "as_record",
    "check",
    "looks_like_record",
    "private_record",
]

# Patterns follow ECMA-262, as JSON Schema requires: `$` ends the text, and `\s` is
# ECMA's white space (not Python's nor Rust's, which differ on a few code points).
_ECMA_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_DIGEST = r"^sha256:[a-f0-9]{64}\z"
_IRI = rf"^[A-Za-z][A-Za-z0-9+.-]*:[^{_ECMA_SPACE}]+\z"

_CLOSED = ConfigDict(extra="forbid", strict=True)
#: An open object: other members are allowed, and left out of the check's output, which
#: is thrown away (copying them there costs 0.6 us a record, a tenth of the check).
_OPEN = ConfigDict(extra="ignore", strict=True)


def _require_integer(value: float) -> float:
    if not value.is_integer():
        raise ValueError("not an integer")
    return value


Digest = Annotated[str, Field(pattern=_DIGEST)]
Iri = Annotated[str, Field(pattern=_IRI)]
#: JSON Schema's integer, here at least 0: 1.0 is one, true is not. One error for both
#: branches, so that it names the field alone.
Integer = Annotated[
    int,
    GetPydanticSchema(
        lambda _type, _handler: core_schema.union_schema(
            [
                core_schema.int_schema(ge=0, strict=True),
                core_schema.no_info_after_validator_function(
                    _require_integer, core_schema.float_schema(ge=0, strict=True)
                ),
            ],
            mode="left_to_right",
            custom_error_type="non_negative_integer",
            custom_error_message="Input should be an integer of at least 0",
        )
    ),
]
#: Any JSON object. The records checked are plain JSON already (`private_record`), so
#: being a dict is the whole rule: a `dict[str, Any]` would copy it, for nothing.
JsonObject = Annotated[
    dict[str, Any], GetPydanticSchema(lambda _type, _handler: core_schema.is_instance_schema(dict))
]
#: A number JavaScript reads as a number: 1e999, or an integer of 400 digits, it reads as
#: Infinity, which its JSON writer sends as null.
Number = Annotated[float, Field(allow_inf_nan=False)]


class _Package(TypedDict):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    id: str
    version: str
    digest: Digest
    signed: bool
    signers: NotRequired[list[str]]


class _Node(TypedDict):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    id: str
    path: str
    type: str
    ref: Annotated[str, Field(min_length=1)]
    locale: NotRequired[str]
    title: NotRequired[str]
    description: NotRequired[str]
    tags: NotRequired[list[str]]
    digest: NotRequired[Digest]


class _Span(TypedDict):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    start: Integer
    end: Integer


class _By(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    by: str
    at: NotRequired[str]


class _Review(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    reviewer: str
    reviewedAt: str
    outcome: str
    signer: str
    scope: NotRequired[str]


class _Trust(TypedDict):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    status: Literal["draft", "stable", "deprecated"]
    declaredVerified: list[_By]
    attestedReviews: list[_Review]
    stale: bool
    inForce: bool
    superseded: bool
    contested: bool
    generated: NotRequired[_By | None]
    staleAfter: NotRequired[str]
    validFrom: NotRequired[str]
    validUntil: NotRequired[str]
    supersededBy: NotRequired[list[str]]
    contestedBy: NotRequired[list[str]]


class _Evidence(TypedDict):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    source: JsonObject
    selector: NotRequired[JsonObject]
    note: NotRequired[str]
    matched: NotRequired[bool]


_Retrieval = TypedDict(
    "_Retrieval",
    {
        "via": Literal["search", "requires", "parts", "narrower", "related"],
        "from": NotRequired[str],
    },
)
_Retrieval.__pydantic_config__ = _CLOSED  # type: ignore[attr-defined]


class CitationRecord(TypedDict):
    """`citation-record.schema.json` v1, field for field."""

    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    package: _Package
    node: _Node
    trust: _Trust
    span: NotRequired[_Span]
    text: NotRequired[str]
    evidence: NotRequired[list[_Evidence]]
    concepts: NotRequired[list[Iri]]
    audience: NotRequired[str]
    profiles: NotRequired[list[str]]
    score: NotRequired[Number]
    retrieval: NotRequired[_Retrieval]


#: The record schema's check, called on pydantic-core's validator itself: TypeAdapter's
#: own `validate_python` adds 3.4 k instructions a call in Python.
_validate = TypeAdapter(CitationRecord).validator.validate_python


class InvalidRecord(ValueError):
    """A value that is not a valid citation record; the message says which rule it breaks."""


def looks_like_record(value: object) -> TypeGuard[dict[str, Any]]:
    """True for a mapping with the three required top-level keys of a citation record."""
    return isinstance(value, dict) and "package" in value and "node" in value and "trust" in value


class WireText:
    """A JSON text records were read from: `size` is its bytes as compact UTF-8 JSON
    (None: not measured). The records read from it are parts of it, so their sizes,
    together, are at most that. Hashed by identity: two texts are two, whatever their
    sizes."""

    __slots__ = ("size",)

    def __init__(self, size: int | None) -> None:
        self.size = size


#: One encoder for every record: its settings are all it holds. Compact, as `to_json`
#: writes, so the length of what it writes is the record's size on the wire.
_JSON = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, check_circular=False, separators=(",", ":")
)


def as_record(value: object) -> dict[str, Any]:
    """Return a private JSON copy of `value` if it is a valid citation record; else raise.

    The copy is what the Reader produced, key for key and in order. Making it also proves
    the value is plain JSON: no NaN, no lone surrogate, nothing a wire encoder chokes on.
    """
    record, _ = private_record(value)
    check(record)
    return record


def private_record(value: object) -> tuple[dict[str, Any], WireText]:
    """`value` as plain JSON that no one else holds (a copy made through its JSON text),
    unchecked otherwise, and the text it was read from; raises `InvalidRecord` if it has
    none. A run keeps such copies and checks only those an answer cites.

    The copy is read back by pydantic's parser: a value deeper than it reads (about 200
    levels, well within the 255 the event's encoder writes) is refused.
    """
    copied = _as_written(value)
    if copied is not None:
        return copied
    return _copied(value), WireText(None)


def check(record: dict[str, Any]) -> None:
    """Raise `InvalidRecord`, saying which rule it breaks, unless `record` (plain JSON, as
    `private_record` makes or a Reader's text reads) is a valid citation record."""
    try:
        _validate(record)
    except _ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "record"
        raise InvalidRecord(f"{where}: {first['msg']}") from None


def _as_written(value: object) -> tuple[dict[str, Any], WireText] | None:
    """A private copy of a Python value read back from what the event's encoder writes
    of it, and that text; None if the copy is not equal to the value (`_copied` then
    decides, and words why).

    pydantic's writer also writes values that are not JSON (a datetime, a tuple, a set,
    an int key, NaN) in some JSON form: their copies are not equal to them, or fail to
    read back. A copy equal to the value proves it was plain JSON, and costs half of
    Python's JSON writer; the text's size is then the record's on the wire. A dict
    subclass is read by the items it holds (not through its methods), as pydantic reads
    any dict; an object that says it equals the JSON form pydantic writes of it (a str
    or int enum member, or any `__eq__` that says so) is taken as that form.
    """
    try:
        written = to_json(value)
        record = from_json(written, cache_strings="keys", allow_inf_nan=False)
        if type(record) is dict and record == value:
            return record, WireText(len(written))
    except Exception:  # anything it cannot write or read back: the strict copy decides
        return None
    return None


def _copied(value: object) -> dict[str, Any]:
    """A private copy of a Python value made through Python's own JSON text, which
    refuses what is not JSON."""
    try:
        encoded = _JSON.encode(value).encode("utf-8")
    except Exception as exc:  # a mapping of the result's own may fail as it is read
        raise InvalidRecord(f"not plain JSON: {exc}") from None
    try:
        # Keys only in its process-wide string cache, as `parse_json` reads a text.
        record = from_json(encoded, cache_strings="keys", allow_inf_nan=False)
    except ValueError as exc:  # an overflowed number (1e999) was written as Infinity
        reason = "nested too deeply to send" if "recursion" in str(exc) else "not plain JSON"
        raise InvalidRecord(f"{reason}: {exc}") from None
    if not isinstance(record, dict):
        raise InvalidRecord("not a JSON object")
    return record
