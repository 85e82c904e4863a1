"""Hostile Reader tool output, in real AG-UI streams through `moca_agui.cite`.

Every case: the hostile result is skipped and logged, every original event comes out in
order and encodes, the good record of the same run is still cited exactly, and the
memory `cite` allocates stays within a small multiple of the input.
"""

from __future__ import annotations

import copy
import enum
import json
import logging
import unicodedata
from collections.abc import Iterator
from typing import Any

import ag_ui.core
import pytest
from ag_ui.core import BaseEvent
from ag_ui.encoder import EventEncoder

import moca_agui
import moca_agui.adapter
from support import assert_valid_record, example_record, record, record_validator, ref

from .streams import (
    answer,
    assert_passed_through,
    cite_measured,
    cited_records,
    logged,
    reader_call,
    run,
)

#: Content parts exist from ag-ui-protocol 1.0 on; on 0.1.x their cases are skipped.
TextPart = getattr(ag_ui.core, "TextPart", None)
needs_parts = pytest.mark.skipif(
    TextPart is None, reason="ag-ui-protocol 0.1.x has no parts; 1.x: nox -s tests"
)

MB = 1024 * 1024
GOOD = record("good.md", text="The good node.")


def full_record() -> dict[str, Any]:
    """The support-kb record with every optional field of the schema filled in."""
    rec = example_record()
    rec["node"]["locale"] = "en"
    rec["concepts"] = ["https://example.com/concepts/refunds"]
    rec["profiles"] = ["okf"]
    rec["score"] = 0.83
    rec["retrieval"] = {"via": "search", "from": "https://example.com/concepts/refunds"}
    rec["trust"].update(
        supersededBy=["https://example.com/moca/support-kb-v5"],
        contestedBy=["https://example.com/moca/other#x.md"],
        validFrom="2026-01-01",
        validUntil="2027-01-01",
    )
    assert_valid_record(rec)
    return rec


BAD = full_record()
BAD_REF = ref(BAD)


def hostile_run(content: Any, *, tool: str = "moca_get_node", text: str = "") -> list[BaseEvent]:
    """A run whose Reader returns GOOD, then `content`; the answer cites both nodes."""
    return run(
        reader_call("call-good", json.dumps(GOOD)),
        reader_call("call-hostile", content, tool),
        answer(
            "answer-1", "Refunds: see ", f"{ref(GOOD)} and [{BAD_REF}].", *([text] if text else [])
        ),
    )


def size_of(content: Any) -> int:
    if isinstance(content, str):
        return len(content.encode("utf-8", "surrogatepass"))
    return sum(size_of(part.text) for part in content)


def assert_encodes(out: list[BaseEvent]) -> None:
    """What a server does with each event: encode it for the wire."""
    encoder = EventEncoder()
    for event in out:
        assert encoder.encode(event).startswith("data: ")


def same_json(records: list[dict[str, Any]], expected: list[dict[str, Any]]) -> bool:
    """Equal as JSON text, key order included."""
    return [json.dumps(r) for r in records] == [json.dumps(r) for r in expected]


async def assert_skipped(
    caplog: pytest.LogCaptureFixture, content: Any, *fragments: str, tool: str = "moca_get_node"
) -> list[BaseEvent]:
    """`content` is skipped with a warning holding `fragments`; the run goes on."""
    events = hostile_run(content, tool=tool)
    out, peak = await cite_measured(events)
    assert_passed_through(events, out)
    assert same_json(cited_records(out), [GOOD])
    if fragments:
        assert logged(caplog, logging.WARNING, *fragments), [m.getMessage() for m in caplog.records]
    assert not logged(caplog, logging.ERROR)
    assert peak < 4 * size_of(content) + 4 * MB
    assert_encodes(out)
    return out


async def test_the_unbroken_record_is_cited() -> None:
    """The control: unbroken, the record the hostile cases break is cited."""
    out, _ = await cite_measured(hostile_run(json.dumps(BAD)))
    assert same_json(cited_records(out), [GOOD, BAD])


# -- malformed and truncated JSON --------------------------------------------------------

WHOLE = json.dumps(BAD)


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("", id="empty"),
        pytest.param("not json", id="prose"),
        pytest.param("{'package': 1}", id="single-quotes"),
        pytest.param(WHOLE[: len(WHOLE) // 2], id="truncated-half"),
        pytest.param(WHOLE[:-1], id="truncated-last-brace"),
        pytest.param(WHOLE[:1], id="truncated-first-brace"),
        pytest.param(WHOLE + "}", id="trailing-brace"),
        pytest.param(WHOLE + WHOLE, id="two-documents"),
        pytest.param('{"results": [' + WHOLE + ",]}", id="trailing-comma"),
        pytest.param(WHOLE.replace('"stale": false', '"stale": fals'), id="bad-literal"),
        pytest.param(WHOLE.replace('"refund', '"\x00refund', 1), id="raw-control-char"),
        pytest.param(WHOLE.replace('"Policy"', '"Pol\\uZZZZ"'), id="bad-escape"),
    ],
)
async def test_malformed_json_is_skipped(caplog: pytest.LogCaptureFixture, content: str) -> None:
    await assert_skipped(caplog, content, "skipped a result of moca_get_node")


@needs_parts
async def test_malformed_json_in_content_parts_is_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parts = [TextPart(text=WHOLE[:-7])]
    await assert_skipped(caplog, parts, "skipped a result of moca_get_node")


async def test_malformed_json_inside_an_mcp_wrapper_is_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    wrapper = json.dumps({"content": [{"type": "text", "text": WHOLE[:-3]}]})
    await assert_skipped(caplog, wrapper, "skipped a result of moca_search", tool="moca_search")


# -- deep nesting ------------------------------------------------------------------------


def nested(depth: int, leaf: str = "{}") -> str:
    return '{"a": ' * depth + leaf + "}" * depth


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("[" * 10_000 + "]" * 10_000, id="lists"),
        pytest.param(nested(10_000), id="objects"),
        pytest.param('{"query": "q", "results": [' + nested(10_000) + "]}", id="in-results"),
        pytest.param(
            WHOLE.replace('"source": {', '"source": {"deep": ' + nested(10_000) + ", ", 1),
            id="in-a-record",
        ),
    ],
)
async def test_ten_thousand_levels_are_skipped(
    caplog: pytest.LogCaptureFixture, content: str
) -> None:
    await assert_skipped(caplog, content, "nested too deeply", tool="moca_search")


@pytest.mark.parametrize("depth", [201, 250, 300, 900])
async def test_a_record_too_deep_to_encode_is_skipped(
    caplog: pytest.LogCaptureFixture, depth: int
) -> None:
    """Valid JSON and schema-valid (evidence sources are open objects), but deeper than
    any wire encoder writes: sending it would break the stream at the encoder."""
    content = WHOLE.replace('"source": {', '"source": {"deep": ' + nested(depth) + ", ", 1)
    assert record_validator().is_valid(json.loads(content))
    await assert_skipped(caplog, content, "skipped an invalid record from moca_get_node")


@pytest.mark.parametrize(
    "inner",
    [
        pytest.param(WHOLE.replace('"Policy"', '"Pol\\ud800icy"', 1), id="lone-surrogate"),
        pytest.param(
            WHOLE.replace('"source": {', '"source": {"deep": ' + nested(300) + ", ", 1),
            id="300-levels",
        ),
    ],
)
@pytest.mark.parametrize(
    "wrap",
    [
        pytest.param(lambda text: json.dumps([{"type": "text", "text": text}]), id="mcp-parts"),
        pytest.param(lambda text: json.dumps({"result": text}), id="result-wrapper"),
    ],
)
async def test_a_broken_record_in_a_text_inside_a_text_is_skipped(
    caplog: pytest.LogCaptureFixture, inner: str, wrap: Any
) -> None:
    """The inner text is read on its own (here by the strict parse, which takes both),
    so its record is copied and refused, not kept as the outer text's plain JSON."""
    assert inner != WHOLE
    await assert_skipped(caplog, wrap(inner), "skipped an invalid record from moca_get_node")


async def test_records_as_deep_as_the_parser_reads_are_sent_and_encode(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Depth is bounded by pydantic's parser alone: every record it reads (read from the
    text, or copied through it) is sent, and its event encodes; one level deeper, the
    record is skipped with a warning. Both sides of that bound are met here."""
    sent, skipped = [], []
    for depth in range(190, 215):
        content = WHOLE.replace('"source": {', '"source": {"deep": ' + nested(depth) + ", ", 1)
        for result in (content, json.loads(content)):
            caplog.clear()
            out, _ = await cite_measured(hostile_run(result))
            assert_encodes(out)
            assert not logged(caplog, logging.ERROR)
            if len(cited_records(out)) == 2:
                sent.append(depth)
            else:
                assert logged(caplog, logging.WARNING, "nested too deeply")
                assert same_json(cited_records(out), [GOOD])
                skipped.append(depth)
    assert sent and skipped and max(sent) < min(skipped)


def chain(depth: int) -> dict[str, Any]:
    inner: dict[str, Any] = {"content": [{"type": "text", "text": WHOLE}]}
    for _ in range(depth):
        inner = {"content": [inner]}
    return inner


class Parts:
    """An object with MCP-style `content` parts, as a framework hands a tool result over."""

    def __init__(self, content: list[Any]) -> None:
        self.content = content


def object_chain(depth: int) -> Parts:
    inner = Parts([{"type": "text", "text": WHOLE}])
    for _ in range(depth):
        inner = Parts([inner])
    return inner


def cyclic() -> Parts:
    parts = Parts([])
    parts.content.append(parts)
    return parts


async def citable(citation_run: moca_agui.adapter.CitationRun) -> list[str]:
    """The refs a message citing BAD and GOOD gets from `citation_run`, in order."""
    citation_run.add_text("answer-1", f"{BAD_REF} and {ref(GOOD)}")
    event = await citation_run.events.event_for("answer-1")
    assert event is not None
    return [c["record"]["node"]["ref"] for c in event.value["citations"]]


async def assert_capture_skipped(
    caplog: pytest.LogCaptureFixture, result: object, *fragments: str
) -> None:
    """`result` handed to `CitationRun.capture` (the adapters' path) is skipped with a
    warning holding `fragments`; GOOD, captured beside it, is still cited."""
    citation_run = moca_agui.adapter.CitationRun()
    citation_run.capture("moca_get_node", GOOD)
    citation_run.capture("moca_get_node", result)
    assert await citable(citation_run) == [ref(GOOD)]
    assert logged(caplog, logging.WARNING, *fragments)
    assert not logged(caplog, logging.ERROR)


@pytest.mark.parametrize(
    "broken",
    [pytest.param("\ud800", id="lone-surrogate"), pytest.param("\\ud800", id="escaped")],
)
async def test_a_record_holding_a_lone_surrogate_is_skipped(
    caplog: pytest.LogCaptureFixture, broken: str
) -> None:
    """Not UTF-8, so no wire encoder writes it: in the result's str itself (as a Python
    tool may return it; no stream could carry that result), or escaped in its JSON."""
    content = WHOLE.replace('"Policy"', f'"Pol{broken}icy"', 1)
    assert content != WHOLE
    await assert_capture_skipped(caplog, content, "skipped an invalid record from", "JSON")


async def test_a_score_out_of_a_doubles_range_skips_that_record_alone(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An integer score of 400 digits once raised OverflowError out of the schema check,
    and the whole message lost its citations: in a stream's text, and as a tool's Python
    value (the adapters' path)."""
    content = {**BAD, "score": 10**400}
    skipped = ("skipped an invalid record from moca_get_node", "score")
    await assert_skipped(caplog, json.dumps(content), *skipped)
    caplog.clear()
    await assert_capture_skipped(caplog, content, *skipped)


@pytest.mark.parametrize(
    "result",
    [
        pytest.param(chain(10_000), id="dicts"),
        pytest.param(object_chain(10_000), id="objects"),
        pytest.param(cyclic(), id="cycle"),
    ],
)
async def test_python_objects_nested_ten_thousand_deep_are_skipped(
    caplog: pytest.LogCaptureFixture, result: object
) -> None:
    """The adapters' path: a tool's Python return value handed to `CitationRun.capture`."""
    await assert_capture_skipped(caplog, result, "skipped a result of moca_get_node", "too deeply")


# -- huge strings ------------------------------------------------------------------------

FIFTY_MB = 50 * MB


def huge_record() -> str:
    return json.dumps({**BAD, "text": "x" * FIFTY_MB})


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(huge_record, id="record-text"),
        pytest.param(lambda: "a" * FIFTY_MB, id="not-json"),
        pytest.param(lambda: '"' + "\\u00e9" * (FIFTY_MB // 6) + '"', id="json-string"),
        pytest.param(lambda: [TextPart(text=huge_record())], id="content-part", marks=needs_parts),
    ],
)
async def test_a_fifty_megabyte_result_is_skipped_without_copying_it(
    caplog: pytest.LogCaptureFixture, content: Any
) -> None:
    value = content()
    events = hostile_run(value)
    out, peak = await cite_measured(events)
    assert_passed_through(events, out)
    assert same_json(cited_records(out), [GOOD])
    assert logged(caplog, logging.WARNING, "skipped a result of moca_get_node", "characters")
    assert peak < 4 * MB  # nothing of the 50 MB was copied


async def test_a_large_record_under_the_parse_limit_is_cited_without_its_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """7 MB of text: parsed and cited, the text dropped to fit the event budget."""
    content = json.dumps({**BAD, "text": "y" * (7 * MB)})
    events = hostile_run(content)
    out, peak = await cite_measured(events)
    assert_passed_through(events, out)
    bad_without_text = {k: v for k, v in BAD.items() if k != "text"}
    assert same_json(cited_records(out), [GOOD, bad_without_text])
    event = next(e for e in out if e.type == "CUSTOM")
    assert len(EventEncoder().encode(event).encode()) < 256 * 1024
    assert peak < 8 * size_of(content)


# -- NaN and Infinity ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        pytest.param(WHOLE.replace('"score": 0.83', '"score": NaN'), "NaN is not JSON", id="NaN"),
        pytest.param(
            WHOLE.replace('"start": 753', '"start": Infinity'),
            "Infinity is not JSON",
            id="Infinity",
        ),
        pytest.param(
            WHOLE.replace('"score": 0.83', '"score": -Infinity'),
            "-Infinity is not JSON",
            id="-Infinity",
        ),
        pytest.param(
            '{"query": NaN, "results": [' + WHOLE + "]}", "NaN is not JSON", id="NaN-outside"
        ),
        pytest.param(
            WHOLE.replace('"score": 0.83', '"score": 1e999'), "not plain JSON", id="overflow"
        ),
        pytest.param(
            WHOLE.replace('"end": 1077', '"end": -1e999'), "not plain JSON", id="-overflow"
        ),
    ],
)
async def test_nan_and_infinity_are_skipped(
    caplog: pytest.LogCaptureFixture, content: str, fragment: str
) -> None:
    await assert_skipped(caplog, content, fragment)


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
async def test_nan_and_infinity_in_python_results_are_skipped(
    caplog: pytest.LogCaptureFixture, number: float
) -> None:
    citation_run = moca_agui.adapter.CitationRun()
    citation_run.capture("moca_search", {"query": "q", "results": [{**BAD, "score": number}, GOOD]})
    assert await citable(citation_run) == [ref(GOOD)]
    assert logged(caplog, logging.WARNING, "skipped an invalid record", "not plain JSON")


class _Unreadable(dict):  # type: ignore[type-arg]
    """A mapping that fails as it is read, the way a lazy or proxied value may."""

    def items(self) -> Any:
        raise RuntimeError("the backing store went away")


async def test_a_python_value_that_fails_as_it_is_read_skips_that_record_alone(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # What it holds is not JSON either, so the copy is made through `items()`, which fails.
    hostile = {**BAD, "trust": _Unreadable({**BAD["trust"], "note": object()})}
    result = {"query": "q", "results": [hostile]}
    await assert_capture_skipped(caplog, result, "skipped an invalid record", "the backing store")


async def test_a_dict_subclass_is_copied_from_what_it_holds() -> None:
    """pydantic's writer reads a dict subclass's own items, as the event's encoder would
    read the record: a copy of what it holds is cited, whatever its methods do."""
    held = _Unreadable(BAD["trust"])
    citation_run = moca_agui.adapter.CitationRun()
    citation_run.capture("moca_search", {"query": "q", "results": [{**BAD, "trust": held}]})
    citation_run.add_text("m1", f"See {BAD_REF}.")
    event = await citation_run.events.event_for("m1")
    assert event is not None
    [citation] = event.value["citations"]
    assert citation["record"] == BAD and type(citation["record"]["trust"]) is dict


class _Bound(enum.IntEnum):
    ZERO = 0
    FIVE = 5


async def test_a_python_records_entry_is_read_from_its_copy() -> None:
    """Span bounds that are int enum members are plain ints in the copy sent: the entry
    is read from the copy, so it is the same node and span as the plain record's, and
    the two are one citation."""
    spanned = {**GOOD, "span": {"start": _Bound.ZERO, "end": _Bound.FIVE}}
    plain = {**GOOD, "span": {"start": 0, "end": 5}}
    citation_run = moca_agui.adapter.CitationRun()
    citation_run.capture("moca_search", {"query": "q", "results": [spanned, plain]})
    citation_run.add_text("m1", "See [1] and [2].")
    event = await citation_run.events.event_for("m1")
    assert event is not None
    [citation] = event.value["citations"]
    assert citation["marker"] == "[1]" and citation["record"] == plain
    assert type(citation["record"]["span"]["start"]) is int


# -- wrong types in every record field -----------------------------------------------------

JSON_VALUES: list[Any] = [None, True, 0, -1, 1.5, "text", "", [], ["x"], {}, {"x": 1}]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside `value`, parents first."""
    if isinstance(value, dict):
        for key, field in value.items():
            yield (*prefix, key)
            yield from paths(field, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from paths(item, (*prefix, index))


def replaced(rec: dict[str, Any], path: tuple[Any, ...], new: Any) -> dict[str, Any]:
    copied = copy.deepcopy(rec)
    parent = copied
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = new
    return copied


def wrong_types(path: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Records with the value at `path` replaced by each JSON value the schema refuses."""
    variants = [replaced(BAD, path, value) for value in JSON_VALUES]
    return [v for v in variants if not record_validator().is_valid(v)]


FIELD_PATHS = list(paths(BAD))


@pytest.mark.parametrize("path", FIELD_PATHS, ids=[".".join(map(str, p)) for p in FIELD_PATHS])
async def test_a_wrong_type_in_any_record_field_is_skipped(
    caplog: pytest.LogCaptureFixture, path: tuple[Any, ...]
) -> None:
    variants = wrong_types(path)
    # Only inside the schema's open objects (evidence sources, selectors) is any value valid.
    assert variants or (path[0] == "evidence" and path[2] in {"source", "selector"})
    for variant in variants:
        caplog.clear()
        await assert_skipped(caplog, json.dumps(variant), "skipped an invalid record")


@pytest.mark.parametrize("field", ["package", "node", "trust", "span", "retrieval"])
async def test_an_unknown_field_in_a_closed_object_is_skipped(
    caplog: pytest.LogCaptureFixture, field: str
) -> None:
    variant = copy.deepcopy(BAD)
    variant[field]["onclick"] = "alert(1)"
    await assert_skipped(caplog, json.dumps(variant), "skipped an invalid record", "onclick")


@pytest.mark.parametrize(
    "path", [p for p in FIELD_PATHS if len(p) <= 2 and isinstance(p[-1], str)], ids=str
)
async def test_a_missing_required_field_is_skipped_when_the_schema_requires_it(
    caplog: pytest.LogCaptureFixture, path: tuple[Any, ...]
) -> None:
    variant = copy.deepcopy(BAD)
    parent = variant if len(path) == 1 else variant[path[0]]
    del parent[path[-1]]
    if record_validator().is_valid(variant):
        out, _ = await cite_measured(hostile_run(json.dumps(variant)))
        assert same_json(cited_records(out), [GOOD, variant])  # optional: still cited as is
    elif path in {("package",), ("node",), ("trust",)}:  # no longer shaped like a record
        await assert_skipped(caplog, json.dumps(variant), tool="moca_search")
        assert logged(caplog, logging.DEBUG, "no citation record in a result of moca_search")
    else:
        await assert_skipped(caplog, json.dumps(variant), "skipped an invalid record")


# -- duplicated keys -----------------------------------------------------------------------

FORGED_REF = "https://example.com/moca/support-kb@4.2.0#forged.md"


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(WHOLE.replace('"ref": ', f'"ref": "{FORGED_REF}", "ref": ', 1), id="node.ref"),
        pytest.param(WHOLE.replace('"status": ', '"status": "draft", "status": ', 1), id="status"),
        pytest.param(
            WHOLE.replace('"stale": false', '"stale": true, "stale": false', 1), id="stale"
        ),
        pytest.param(WHOLE.replace('{"package": ', '{"package": {}, "package": ', 1), id="package"),
        pytest.param('{"results": [], "results": [' + WHOLE + "]}", id="wrapper"),
    ],
)
async def test_duplicated_keys_are_skipped(caplog: pytest.LogCaptureFixture, content: str) -> None:
    """Which duplicate wins differs between JSON parsers: a record that reads two ways
    is not shown at all."""
    assert content != WHOLE
    await assert_skipped(caplog, content, "duplicate", tool="moca_search")


# -- unicode in refs -----------------------------------------------------------------------


def nfc_record(path: str, package_id: str = "https://example.com/moca/ünïcode") -> dict[str, Any]:
    return record(path, package_id=package_id)


async def cite_refs(rec: dict[str, Any], text: str) -> tuple[list[BaseEvent], list[BaseEvent]]:
    events = run(
        reader_call("call-good", json.dumps(GOOD)),
        reader_call("call-1", json.dumps(rec, ensure_ascii=False)),
        answer("answer-1", f"See {ref(GOOD)}; also ", text, "."),
    )
    out, _ = await cite_measured(events)
    assert_passed_through(events, out)
    assert_encodes(out)
    return events, out


CAFE_NFC = unicodedata.normalize("NFC", "café-crème.md")
CAFE_NFD = unicodedata.normalize("NFD", "café-crème.md")
RTL_PATH = "מדיניות-החזרים.md"


@pytest.mark.parametrize(
    ("path", "written"),
    [
        pytest.param(CAFE_NFC, CAFE_NFC, id="NFC-as-NFC"),
        pytest.param(CAFE_NFD, CAFE_NFD, id="NFD-as-NFD"),
        pytest.param(RTL_PATH, RTL_PATH, id="RTL"),
        pytest.param("a\u200db.md", "a\u200db.md", id="zero-width-joiner-kept"),
        pytest.param("سياسة.md", "سياسة.md", id="arabic"),
    ],
)
async def test_a_ref_written_exactly_as_the_reader_returned_it_is_cited(
    path: str, written: str
) -> None:
    rec = nfc_record(path)
    _, out = await cite_refs(rec, rec["node"]["ref"].replace(path, written))
    assert same_json(cited_records(out), [GOOD, rec])


@pytest.mark.parametrize(
    ("path", "written"),
    [
        pytest.param(CAFE_NFC, CAFE_NFD, id="NFC-written-NFD"),
        pytest.param(CAFE_NFD, CAFE_NFC, id="NFD-written-NFC"),
        pytest.param(RTL_PATH, "\u202e" + RTL_PATH, id="RTL-override-inside"),
        pytest.param(RTL_PATH, RTL_PATH[::-1], id="RTL-reversed"),
        pytest.param("ab.md", "a\u200bb.md", id="zero-width-space-inside"),
        pytest.param("ab.md", "a\u200db.md", id="zero-width-joiner-added"),
        pytest.param("a\u200db.md", "ab.md", id="zero-width-joiner-dropped"),
        pytest.param("ab.md", "ab\u00ad.md", id="soft-hyphen"),
        pytest.param("ab.md", "\u0430b.md", id="cyrillic-a"),
        pytest.param("ab.md", "\uff41b.md", id="fullwidth-a"),
    ],
)
async def test_a_ref_that_differs_by_any_code_point_is_left_out_and_logged(
    caplog: pytest.LogCaptureFixture, path: str, written: str
) -> None:
    """Refs are opaque: what differs by one code point, even an invisible one, is not the
    node the Reader returned, and is never shown as its source."""
    rec = nfc_record(path)
    written_ref = rec["node"]["ref"].replace(path, written)
    assert written_ref != rec["node"]["ref"]
    _, out = await cite_refs(rec, written_ref)
    assert same_json(cited_records(out), [GOOD])
    assert logged(caplog, logging.DEBUG, "left out", "no Reader result of this run has it")


@pytest.mark.parametrize(
    "around",
    [
        pytest.param("{}", id="bare"),
        pytest.param("`{}`", id="backticks"),
        pytest.param("[{}]", id="brackets"),
        pytest.param("[the policy]({})", id="markdown-link"),
        pytest.param("**{}**,", id="bold-comma"),
        pytest.param("({})", id="parentheses"),
    ],
)
async def test_a_ref_with_at_and_hash_in_its_package_id(
    caplog: pytest.LogCaptureFixture, around: str
) -> None:
    """A package id is any absolute URI: `@` in its user info, `#` in its fragment."""
    rec = record("a.md", package_id="https://mirror@example.com/moca/kb#main")
    other_version = rec["node"]["ref"].replace("@1.0.0#", "@2.0.0#")
    assert rec["node"]["ref"] == "https://mirror@example.com/moca/kb#main@1.0.0#a.md"
    text = around.format(rec["node"]["ref"]) + " and " + around.format(other_version)
    _, out = await cite_refs(rec, text + " and https://mirror@example.com/moca/kb#main")
    assert same_json(cited_records(out), [GOOD, rec])
    assert logged(caplog, logging.DEBUG, "left out", "@2.0.0#a.md")


async def test_tag_uri_package_ids_with_at_signs() -> None:
    """`tag:` URIs hold `@` before the version's `@`; refs sharing a prefix stay apart."""
    first = record("a.md", package_id="tag:alice@example.com,2026:kb")
    second = record("a.md#b.md", package_id="tag:alice@example.com,2026:kb")
    _, out = await cite_refs(first, f"{ref(second)} then {ref(first)}")
    assert same_json(cited_records(out), [GOOD, first])


# -- marker numbers ------------------------------------------------------------------------


def numbered_run(results: list[dict[str, Any]], *later: dict[str, Any]) -> list[BaseEvent]:
    """One search returning `results` (as the model saw them), then `later` get_node calls;
    the answer cites each result by its position, `[1]` to `[n]`."""
    markers = " ".join(f"[{n}]" for n in range(1, len(results) + 1))
    return run(
        reader_call("call-1", json.dumps({"query": "q", "results": results}), "moca_search"),
        *(reader_call(f"call-{n}", json.dumps(rec)) for n, rec in enumerate(later, start=2)),
        answer("answer-1", f"Sources: {markers}."),
    )


def marked(out: list[BaseEvent]) -> list[tuple[str | None, str]]:
    [value] = [e for e in out if e.type == "CUSTOM"]
    return [(c.get("marker"), c["record"]["node"]["ref"]) for c in value.value["citations"]]


A, B, C = record("a.md"), record("b.md"), record("c.md")
BROKEN_A = {**A, "trust": {**A["trust"], "status": "unknown"}}


async def test_a_skipped_record_keeps_its_number_so_no_marker_names_another_node(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The model numbered what it saw, the skipped record included: `[1]` means that
    record, and must never be sent as B, the first valid one."""
    out, _ = await cite_measured(numbered_run([BROKEN_A, B, C]))
    assert marked(out) == [("[2]", ref(B)), ("[3]", ref(C))]
    assert logged(caplog, logging.WARNING, "skipped an invalid record", "trust.status")


async def test_a_record_of_an_unloaded_package_keeps_its_number() -> None:
    other = record("a.md", package_id="https://example.com/moca/not-loaded")
    out, _ = await cite_measured(numbered_run([other, B]), packages=[B["package"]["digest"]])
    assert marked(out) == [("[2]", ref(B))]


async def test_a_valid_record_returned_later_for_a_skipped_node_is_cited_by_its_number() -> None:
    out, _ = await cite_measured(numbered_run([BROKEN_A, B], A))
    assert marked(out) == [("[1]", ref(A)), ("[2]", ref(B))]
    assert cited_records(out) == [A, B]
