"""moca_agui.client: reading moca.citations events, trust badges, safe rendering."""

from __future__ import annotations

import copy
import html
import logging
import re
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest
from ag_ui.core import CustomEvent, TextMessageContentEvent, TextMessageStartEvent

from moca_agui.client import (
    Conversation,
    read_value,
    render_record,
    safe_url,
    trust_badges,
)
from moca_agui.demo.frameworks.ag_ui import build_app
from moca_agui.demo.reader import DemoReader, load_records
from support import example_record, hostile_record, parse_sse, record, run_input

HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
RECORDS = {r["node"]["path"]: r for r in load_records()[1]}


def text_message(message_id: str, text: str, role: str = "assistant") -> list[dict[str, Any]]:
    return [
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": role},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": text},
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
    ]


def citations(message_id: str, *entries: dict[str, Any], **extra: Any) -> dict[str, Any]:
    value = {"version": 1, "messageId": message_id, "citations": list(entries), **extra}
    return {"type": "CUSTOM", "name": "moca.citations", "value": value}


def fed(*events: dict[str, Any] | list[dict[str, Any]]) -> Conversation:
    conversation = Conversation()
    for part in events:
        for event in part if isinstance(part, list) else [part]:
            conversation.feed(event)
    return conversation


# -- reading events ------------------------------------------------------------------------


async def test_a_demo_run_attaches_its_sources_to_its_message() -> None:
    transport = httpx.ASGITransport(app=build_app(DemoReader()))
    async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
        response = await client.post("/", json=run_input("Do I need to register my hives?"))
    conversation = fed(parse_sse(response.text))
    (message,) = conversation.messages()
    assert message.text.startswith("Yes. Register every apiary")
    assert [(c.marker, c.ref) for c in message.citations or ()] == [
        ("[1]", HANDBOOK + "hive-registration.md"),
        ("[2]", HANDBOOK + "hive-placement.md"),
    ]
    assert list(message.sources) == [
        HANDBOOK + "hive-registration.md",
        HANDBOOK + "hive-placement.md",
    ]
    assert message.sources[HANDBOOK + "hive-registration.md"].record["score"] == 7.0
    assert message.computed_at is not None


def test_sdk_event_objects_are_read_too() -> None:
    rec = record("a.md")
    conversation = Conversation()
    conversation.feed(TextMessageStartEvent(message_id="m1", role="assistant"))
    conversation.feed(TextMessageContentEvent(message_id="m1", delta="See [1]."))
    conversation.feed(
        CustomEvent(
            name="moca.citations",
            value={
                "version": 1,
                "messageId": "m1",
                "citations": [{"marker": "[1]", "record": rec}],
            },
        )
    )
    (message,) = conversation.messages()
    assert message.text == "See [1]." and message.citations is not None
    assert message.citations[0].record == rec


@pytest.mark.parametrize("version", [2, 0, "1", True, None])
def test_an_unknown_version_is_ignored(version: object, caplog: pytest.LogCaptureFixture) -> None:
    event = citations("m1", {"record": record("a.md")})
    event["value"]["version"] = version
    conversation = fed(text_message("m1", "a"), event)
    assert conversation.messages()[0].citations is None
    assert "version" in caplog.text


def test_an_event_for_a_message_the_stream_does_not_have_is_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    conversation = fed(
        text_message("m1", "a"),
        text_message("u1", "question", role="user"),
        citations("m2", {"record": record("a.md")}),
        citations("u1", {"record": record("a.md")}),  # a user message is not an answer
    )
    assert [m.id for m in conversation.messages()] == ["m1"]
    assert conversation.messages()[0].citations is None
    assert caplog.text.count("no such assistant message") == 2


def test_unknown_custom_events_and_a_second_event_are_ignored() -> None:
    first, second = record("a.md"), record("b.md")
    conversation = fed(
        text_message("m1", "a"),
        {"type": "CUSTOM", "name": "acme.sources", "value": {"messageId": "m1"}},
        {"type": "CUSTOM", "name": "moca.citations.v2", "value": {"version": 1, "messageId": "m1"}},
        citations("m1", {"record": first}),
        citations("m1", {"record": second}),
    )
    assert [c.record for c in conversation.messages()[0].citations or ()] == [first]


def test_an_invalid_record_is_skipped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    bad = record("bad.md")
    bad["trust"]["stale"] = "no"
    good = record("good.md")
    with caplog.at_level(logging.WARNING, logger="moca_agui"):
        conversation = fed(
            text_message("m1", "a"),
            citations("m1", {"record": bad}, {"marker": "", "record": good}, "junk"),
        )
    message = conversation.messages()[0]
    assert [(c.ref, c.marker) for c in message.citations or ()] == [(good["node"]["ref"], None)]
    assert "citation record: trust.stale" in caplog.text
    assert "marker is not a non-empty string" in caplog.text


def test_snapshot_and_chunk_messages_are_messages() -> None:
    conversation = fed(
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "c1", "role": "assistant", "delta": "Hel"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": "lo"},
        {
            "type": "MESSAGES_SNAPSHOT",
            "messages": [
                {"id": "c1", "role": "assistant", "content": "Hello again"},
                {"id": "s1", "role": "assistant", "content": "x"},
                {"id": "s2", "role": "assistant", "toolCalls": []},  # no text: not an answer
            ],
        },
        citations("s1", {"record": record("a.md")}),
        citations("s2", {"record": record("a.md")}),
    )
    assert [(m.id, m.text) for m in conversation.messages()] == [("c1", "Hello"), ("s1", "x")]
    assert conversation.message("s1").citations  # type: ignore[union-attr]


def test_sources_are_keyed_by_node_ref() -> None:
    old = record("a.md", version="1.0.0")
    new = record("a.md", version="2.0.0")  # same node id, another version
    spanned = {**new, "span": {"start": 0, "end": 3}}
    conversation = fed(
        text_message("m1", "a"),
        citations("m1", {"record": old}, {"record": new}, {"record": spanned}),
    )
    sources = conversation.messages()[0].sources
    assert list(sources) == [old["node"]["ref"], new["node"]["ref"]]
    assert sources[new["node"]["ref"]].span is None


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"version": 1, "messageId": "", "citations": []}, "messageId"),
        ({"version": 1, "messageId": "m", "citations": {}}, "citations"),
        (
            {"version": 1, "messageId": "m", "citations": [], "computedAt": "yesterday"},
            "computedAt",
        ),
        ({"version": 1, "messageId": "m", "citations": [], "extra": 1}, "value"),
        ([], "value"),
    ],
)
def test_read_value_names_the_problem(value: object, problem: str) -> None:
    _, problems = read_value(value)
    assert [p.rule for p in problems] == [problem]


# -- trust badges --------------------------------------------------------------------------

EXPECTED_BADGES = {
    "hive-registration.md": [
        "attested-review", "declared-verification", "signed-package", "evidence-matched"
    ],
    "hive-placement.md": [
        "declared-verification", "signed-package", "evidence-matched", "evidence-not-matched",
        "evidence-unchecked",
    ],
    "varroa-treatment.md": [
        "stale", "declared-verification", "signed-package", "evidence-matched"
    ],
    "autumn-feeding.md": ["contested", "declared-verification", "signed-package"],
    "drought-watering-order.md": ["not-in-force", "signed-package"],
    "queen-marking.md": ["draft", "signed-package", "generated"],
    "smoker-fuel.md": ["deprecated", "signed-package"],
    "swarm-collection.md": ["signed-package"],
    "swarm-calls.md": ["superseded", "unsigned-package"],
}  # fmt: skip


@pytest.mark.parametrize("path", EXPECTED_BADGES)
def test_badges_of_the_demo_records(path: str) -> None:
    assert [b.key for b in trust_badges(RECORDS[path])] == EXPECTED_BADGES[path]


def test_a_declared_verification_is_never_shown_as_a_review() -> None:
    badges = trust_badges(RECORDS["hive-placement.md"])
    declared = [b for b in badges if b.key == "declared-verification"]
    assert declared and all("review" not in (b.label + b.detail).lower() for b in declared)
    assert "Not signed, not checked" in declared[0].detail
    reviewed = [b for b in trust_badges(RECORDS["hive-registration.md"]) if "review" in b.key]
    assert [(b.label, b.tone) for b in reviewed] == [("Reviewed: accurate (signed)", "good")]
    assert "human:ines.haddad" in reviewed[0].detail and "Signed by" in reviewed[0].detail


def reviewed(*outcomes: str) -> dict[str, Any]:
    """A record with one signed review per outcome."""
    rec = record("a.md")
    rec["trust"]["attestedReviews"] = [
        {"reviewer": "human:r", "reviewedAt": "2026-01-01", "outcome": o, "signer": "key:k"}
        for o in outcomes
    ]
    return rec


def test_a_signed_review_shows_its_outcome_and_is_good_only_when_positive() -> None:
    rec = reviewed("rejected", "Approved", "correct", "needs changes", "accurate")
    badges = [(b.label, b.tone) for b in trust_badges(rec) if b.key == "attested-review"]
    assert badges == [
        ("Reviewed: rejected (signed)", "warning"),
        ("Reviewed: Approved (signed)", "good"),
        ("Reviewed: correct (signed)", "good"),
        ("Reviewed: needs changes (signed)", "warning"),
        ("Reviewed: accurate (signed)", "good"),
    ]


def test_badge_details_name_what_the_flags_point_at() -> None:
    details = {b.key: b.detail for r in RECORDS.values() for b in trust_badges(r)}
    assert details["superseded"] == "Superseded by https://example.org/moca/fernhollow-apiary."
    assert details["not-in-force"] == (
        "Not in force (valid from 2026-07-01T00:00:00Z until 2026-09-30T23:59:59Z)."
    )
    assert details["stale"] == "Past its review date (2026-02-10T00:00:00Z)."
    assert "regional-bee-health" in details["contested"]
    assert trust_badges(example_record())[0].key == "attested-review"


# -- rendering -----------------------------------------------------------------------------


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def elements(fragment: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(fragment)
    return parser.tags


def test_a_hostile_record_renders_inert() -> None:
    rec = hostile_record()
    fragment = render_record(rec, marker="[1]", computed_at="2026-11-30T09:00:00Z")
    tags = elements(fragment)
    assert {tag for tag, _ in tags} <= {
        "article", "header", "span", "h3", "p", "code", "ul", "li", "a", "q", "details",
        "summary", "pre",
    }  # fmt: skip
    assert not any(name.startswith("on") for _, attrs in tags for name in attrs)
    assert [attrs["href"] for tag, attrs in tags if tag == "a"] == ["https://example.org/notices"]
    assert html.escape(rec["node"]["title"]) in fragment  # shown, as text
    assert html.escape(rec["text"]) in fragment
    assert "Trust as of 2026-11-30T09:00:00Z" in fragment


def test_the_rendered_record_shows_package_version_ref_and_badges() -> None:
    rec = RECORDS["hive-placement.md"]
    fragment = render_record(rec)
    assert f'data-ref="{rec["node"]["ref"]}"' in fragment
    assert "https://example.org/moca/fernhollow-apiary" in fragment and "version 3.0.0" in fragment
    assert re.findall(r'data-badge="([^"]+)"', fragment) == EXPECTED_BADGES["hive-placement.md"]
    # each badge's detail is visible text, not a tooltip
    details = re.findall(r'<li data-detail="([^"]+)">([^<]*)</li>', fragment)
    assert details == [(b.key, html.escape(b.detail)) for b in trust_badges(rec)]
    assert "title=" not in fragment
    assert [a["href"] for t, a in elements(fragment) if t == "a"] == [
        "https://example.org/fernhollow/neighbours-guide.html"
    ]
    assert ">not matched<" in fragment and ">matched<" in fragment and ">not checked<" in fragment


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://example.org/a?b=c#d", True),
        ("http://example.org", True),
        ("HTTPS://example.org/x", True),
        ("javascript:alert(1)", False),
        ("JavaScript:alert(1)", False),
        (" javascript:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("data:text/html,<script>", False),
        ("vbscript:x", False),
        ("//example.org/x", False),
        ("../sources/refund-policy-2026.txt", False),
        ("https://", False),
        ('https://example.org/"onmouseover="x', False),
        ("https://exa mple.org", False),
        ("https://example.org/a\x7fb", False),  # DEL, a control character
        ("https://example.org/\x00", False),
        ("https://example.org/\x1f", False),
        ("https://example.org/caf\u00e9", True),
        (None, False),
        (42, False),
    ],
)
def test_only_absolute_http_urls_are_links(url: object, safe: bool) -> None:
    assert safe_url(url) == (url if safe else None)


def test_a_field_of_300000_characters_is_cut_whole_on_hover_and_badges_follow_the_title() -> None:
    long = "W" * 300_000
    rec = copy.deepcopy(RECORDS["hive-placement.md"])
    rec["node"]["title"] = rec["package"]["id"] = long
    rec["trust"]["attestedReviews"] = [
        {"reviewer": "r", "reviewedAt": "2026-01-01", "outcome": long, "signer": "s"}
    ]
    rec["evidence"] = [{"source": {"title": long}, "selector": {"exact": long}, "note": long}]
    fragment = render_record(rec, marker=long)
    cut = "W" * 160 + "\u2026"
    assert fragment.startswith(
        f'<article class="source" data-ref="{rec["node"]["ref"]}"><header>'
        f'<span class="marker" title="{long}">{cut}</span> '
        f'<h3 class="title" title="{long}">{cut}</h3></header><ul class="badges">'
        f'<li class="badge warning" data-badge="attested-review" '
        f'title="Reviewed: {long} (signed)">Reviewed: {"W" * 38}\u2026WWW (signed)</li>'
    )
    assert f'<p class="package"><span class="id" title="{long}">{cut}</span> ' in fragment
    assert f'<span class="source-name" title="{long}">{cut}</span>' in fragment
    assert f'<q title="{long}">{cut}</q>' in fragment
    assert f'<span class="note" title="{long}">{cut}</span>' in fragment
