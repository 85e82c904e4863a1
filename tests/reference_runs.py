"""The reference Reader's captured answers replayed through a framework's real agent: its
scripted model calls `OTHER_TOOL` (no Reader tool), then the captured call (over MCP, to
`reference_replay.py`), then answers naming every node it was shown; the stream must cite
exactly `reference_calls.expected`, under each of `OPTIONS`. The control: with
`OTHER_TOOL` among the Reader tools, its record is cited (so the agent did show it)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from reference_calls import CALLS, LOOKUP, answer, expected, items, named, ref_of

import moca_agui
from moca_agui.check import check_events
from support import Call

#: A tool that is no Reader tool: it answers a whole record as the Reader sent it, which
#: the answer names too, and it is never cited.
OTHER_TOOL = "web_search"


def web_search(query: str) -> str:
    """Search the web."""
    return str(named("get_node_shipping_ref")["result"]["content"][0]["text"])


def script(capture: dict[str, Any]) -> list[list[Call | str]]:
    """The scripted model's turns for a capture (each framework's test model plays them):
    `OTHER_TOOL`, the captured call, then an answer naming every node it was shown."""
    other = ref_of(json.loads(web_search("shipping")))
    return [
        [Call(OTHER_TOOL, {"query": "shipping"}, "call-other")],
        [Call(capture["tool"], capture["arguments"], "call-reader")],
        [f"{answer(capture)} Also {other}."],
    ]


#: The captures whose results list nodes: the ones the options change.
WITH_NODES = [capture for capture in CALLS if items(capture)]
#: Each replay, by id: its `cite` options, the `expected` arguments they ask for, and the
#: captures it plays (an error or an empty result is cited alike under every option).
OPTIONS: dict[str, tuple[dict[str, Any], dict[str, bool], list[dict[str, Any]]]] = {
    "as-sent": ({}, {"lookup": False}, CALLS),
    "lookup-no-text": (
        {"lookup": LOOKUP, "include_text": False},
        {"lookup": True, "include_text": False},
        WITH_NODES,
    ),
}


#: The control's `reader_tools`: `OTHER_TOOL` counts as a Reader tool.
WITH_OTHER = (*moca_agui.DEFAULT_READER_TOOLS, OTHER_TOOL)
#: The control's capture: a Reader error, so the one record shown is `OTHER_TOOL`'s.
CONTROL = named("get_node_missing")


def assert_cited_as_sent(
    stream: list[dict[str, Any]], capture: dict[str, Any], **expect: bool
) -> None:
    """The stream passes `moca-agui check`, and its one citation event, on the last answer,
    holds `expected(capture, **expect)` byte for byte: every record with its keys in the
    Reader's order and its values of the Reader's JSON types."""
    name = f"{capture['tool']} {json.dumps(capture['arguments'], sort_keys=True)}"
    _assert_cites(stream, expected(capture, **expect), moca_agui.DEFAULT_READER_TOOLS, name)


def assert_control_cites_other(stream: list[dict[str, Any]]) -> None:
    """The control run of `CONTROL`, with `reader_tools=WITH_OTHER`, cites `OTHER_TOOL`'s
    record byte for byte."""
    _assert_cites(stream, [{"record": json.loads(web_search("shipping"))}], WITH_OTHER, "control")


_TEXT = ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK")


def _assert_cites(
    stream: list[dict[str, Any]],
    citations: list[dict[str, Any]],
    readers: Iterable[str],
    name: str,
) -> None:
    errors = [str(f) for f in check_events(stream, reader_tools=readers) if f.level == "error"]
    assert errors == [], (name, errors)
    (value,) = [
        e["value"] for e in stream if e["type"] == "CUSTOM" and e["name"] == moca_agui.EVENT_NAME
    ]
    texts = [e["messageId"] for e in stream if e["type"] in _TEXT and e.get("messageId")]
    assert value["messageId"] == texts[-1], name  # on the answer: the last text
    sent = json.dumps(citations, ensure_ascii=False)
    assert json.dumps(value["citations"], ensure_ascii=False) == sent, name
