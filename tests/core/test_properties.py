"""Properties over generated runs: the stream is untouched, and only what this run's
Reader returned and the answer cites is sent, exactly as the Reader produced it."""

from __future__ import annotations

import asyncio
from typing import Any

from ag_ui.core import TextMessageChunkEvent
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic_core import to_json

import moca_agui
import moca_agui.adapter
from moca_agui.records.event import citations_event
from streams import message, run, source, tool_call
from support import citation_events, collect, record, ref, types, wire, without_citations

POOL = [record(f"{name}.md") for name in ("a", "b", "c", "d")]
NEVER_RETURNED = record("e.md")
INVENTED = "https://example.com/moca/test-kb@1.0.0#invented.md"

reader_call = st.tuples(
    st.sampled_from(["moca_search", "moca_get_node", "web_search"]),
    st.lists(st.sampled_from([*POOL, NEVER_RETURNED]), min_size=1, max_size=3),
)
fragment = st.one_of(
    st.sampled_from([*[ref(r) for r in [*POOL, NEVER_RETURNED]], INVENTED]).map(
        lambda r: ("ref", r)
    ),
    st.integers(1, 6).map(lambda n: ("marker", f"[{n}]")),
    st.sampled_from(["refunds", "see", "and", "(", ")", "."]).map(lambda w: ("word", w)),
)
answer = st.tuples(
    st.sampled_from(["m1", "m2", "m3"]),
    st.lists(fragment, max_size=8),
    st.sampled_from(["pairs", "chunks"]),
    st.integers(1, 3),  # deltas
)
step = st.one_of(reader_call.map(lambda c: ("tool", c)), answer.map(lambda a: ("answer", a)))


def build(steps: list[Any]) -> tuple[list[Any], dict[str, list[Any]]]:
    """The events of a run, and per message its fragments in order."""
    parts: list[Any] = []
    texts: dict[str, list[Any]] = {}
    for index, (kind, body) in enumerate(steps):
        if kind == "tool":
            name, records = body
            result = records[0] if name == "moca_get_node" else {"query": "q", "results": records}
            parts.append(tool_call(f"call-{index}", name, result))
            continue
        message_id, fragments, style, deltas = body
        message_id = f"{message_id}-{style}"  # one id is never both chunked and paired
        text = " ".join(word for _, word in fragments)
        texts.setdefault(message_id, []).extend(fragments)
        size = max(1, len(text) // deltas + 1)
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        # A reopened id continues its text on a new line. A space would pile up: four
        # stretches of no words would indent the fifth's markers into a code block.
        if style == "pairs":
            parts.append(message(message_id, "\n", *pieces))
        else:
            parts.append([TextMessageChunkEvent(message_id=message_id, role="assistant",
                                                delta=p) for p in ["\n", *pieces]])  # fmt: skip
    return run(*parts), texts


def expected(steps: list[Any], texts: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """An oracle written from the spec, not from the implementation: a marker numbers
    only the sources returned before its part of the message was written."""
    returned: dict[str, dict[str, Any]] = {}
    shown: dict[str, list[int]] = {}  # message id -> for each fragment, the sources shown
    for kind, body in steps:
        if kind == "tool" and body[0] != "web_search":
            records = body[1][:1] if body[0] == "moca_get_node" else body[1]
            for rec in records:
                returned.setdefault(ref(rec), rec)
        elif kind == "answer":
            shown.setdefault(f"{body[0]}-{body[2]}", []).extend([len(returned)] * len(body[1]))
    numbered = list(returned)
    result: dict[str, list[Any]] = {}
    for message_id, fragments in texts.items():
        if not " ".join(w for _, w in fragments).strip():
            continue
        cited: dict[str, str | None] = {}
        for (kind, word), count in zip(fragments, shown[message_id], strict=True):
            markers = {f"[{n}]": r for n, r in enumerate(numbered[:count], start=1)}
            target = word if kind == "ref" else markers.get(word) if kind == "marker" else None
            if target in returned:
                if target not in cited:
                    cited[target] = word if kind == "marker" else None
                elif cited[target] is None and kind == "marker":
                    cited[target] = word
        result[message_id] = [
            {"marker": m, "record": returned[r]} if m else {"record": returned[r]}
            for r, m in cited.items()
        ]
    return result


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, max_size=8), st.booleans())
@example(  # once four stretches of spaces, which indented the marker into code
    steps=[
        ("tool", ("moca_search", POOL[:1])),
        *[("answer", ("m2", [], "pairs", 1))] * 3,
        ("answer", ("m2", [("marker", "[1]")], "pairs", 1)),
    ],
    include_text=False,
)
def test_generated_runs(steps: list[Any], include_text: bool) -> None:
    events, texts = build(steps)
    stream = asyncio.run(collect(moca_agui.cite(source(events), include_text=include_text)))

    # The agent's own events, untouched and in order.
    assert without_citations(stream) == [wire(e) for e in events]

    # Exactly one event per assistant message with text, between its last text event
    # and RUN_FINISHED.
    values = citation_events(stream)
    want = expected(steps, texts)
    assert [v["messageId"] for v in values] == list(want)
    names = types(stream)
    assert names[-1] == "RUN_FINISHED"
    first_event = names.index("CUSTOM:moca.citations") if values else len(names) - 1
    assert all(n == "CUSTOM:moca.citations" for n in names[first_event:-1])

    # Only cited nodes this run's Reader returned, first mention first, unchanged but text.
    for value in values:
        got = value["citations"]
        wanted = want[value["messageId"]]
        if not include_text:
            wanted = [{**c, "record": {k: v for k, v in c["record"].items() if k != "text"}}
                      for c in wanted]  # fmt: skip
        assert got == wanted


@given(
    st.text(min_size=1, max_size=40),
    st.lists(st.one_of(st.none(), st.text(min_size=1, max_size=12)), min_size=1, max_size=4),
)
@settings(max_examples=300, deadline=None)
def test_an_event_over_its_budget_is_never_sent_whole(message_id: str, markers: list[Any]) -> None:
    """The event is measured unless what bounds its size shows it within the budget: a
    message id and markers of any characters (six bytes each, escaped) never slip past."""
    records = [record(f"{i}.md", text="x" * 40) for i in range(len(markers))]
    citations = [
        moca_agui.adapter.Citation(r, marker) for r, marker in zip(records, markers, strict=True)
    ]
    records_bytes = sum(len(to_json(r)) for r in records)
    whole = citations_event(
        message_id, citations, include_text=True, max_event_bytes=10**9, records_bytes=records_bytes
    )
    size = len(to_json(whole.value))
    cut = citations_event(
        message_id,
        citations,
        include_text=True,
        max_event_bytes=size - 1,
        records_bytes=records_bytes,
    )
    assert len(to_json(cut.value)) <= size - 1  # measured, and a text dropped
