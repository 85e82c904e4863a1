"""`moca-agui demo --framework ag2`: AG2's own AGUIStream, its test model config driven
by the demo's scripted model, the demo Reader's tools, and CitationMiddleware around the
app. Every stream passes ag-ui-validate, the SDK's event models, the project's event
schema and `moca-agui check`."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from ag_ui.core import Event
from pydantic import TypeAdapter

import moca_agui
from moca_agui.check import check_events
from moca_agui.demo.model import KNOWN_QUESTIONS
from moca_agui.demo.server import ask, build
from support import HANDBOOK, assert_valid_stream, citation_events, demo_printed, types

EVENT = TypeAdapter(Event)


def stream(question: str) -> tuple[list[str], list[dict[str, Any]]]:
    async def run() -> list[str]:
        return [event async for event in ask(build("ag2"), question)]

    lines = asyncio.run(run())
    return lines, [json.loads(line) for line in lines]


@pytest.mark.parametrize("question", [*KNOWN_QUESTIONS, "Where can hives stand near a footpath?"])
def test_every_answer_passes_every_check(question: str) -> None:
    lines, events = stream(question)
    for line in lines:
        EVENT.validate_json(line)  # the SDK's own event models
    assert_valid_stream(events)  # ag-ui-validate, the event schema, the record schema
    assert check_events(events) == []
    assert types(events)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]
    (value,) = citation_events(events)
    (answer,) = {e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"}
    assert value["messageId"] == answer


def test_the_cli_prints_the_cited_ag2_stream() -> None:
    events = demo_printed("ag2", "Do I need to register my hives?")
    assert types(events) == [
        "RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
        "CUSTOM:moca.citations", "RUN_FINISHED",
    ]  # fmt: skip
    (value,) = citation_events(events)
    assert [(c["marker"], c["record"]["node"]["ref"]) for c in value["citations"]] == [
        ("[1]", HANDBOOK + "hive-registration.md"),
        ("[2]", HANDBOOK + "hive-placement.md"),
    ]
    assert "timestamp" in events[0]  # AG2's own events, as AG2 wrote them


def test_without_the_middleware_ag2_sends_no_citations() -> None:
    """The one line is what turns citations on: AG2's app alone sends none."""
    from moca_agui.demo.frameworks.ag2 import build_app
    from moca_agui.demo.reader import DemoReader

    async def run() -> list[dict[str, Any]]:
        app = build_app(DemoReader()).app  # the app CitationMiddleware wraps
        return [json.loads(e) async for e in ask(app, "Do I need to register my hives?")]

    events = asyncio.run(run())
    assert "CUSTOM" not in types(events) and types(events)[-1] == "RUN_FINISHED"


def test_instrument_on_ag2_takes_the_stream_and_names_it_for_the_agent() -> None:
    """AG2's `AGUIStream` is what is instrumented (its endpoint then cites); the agent
    and the class are refused with the one line."""
    from ag2 import Agent
    from ag2.ag_ui import AGUIStream

    from moca_agui.demo.frameworks.ag2 import ScriptedConfig

    agent = Agent("moca-demo", config=ScriptedConfig())
    assert moca_agui.uninstrument(moca_agui.instrument(AGUIStream(agent))) is not None
    for target in (agent, AGUIStream):
        with pytest.raises(TypeError, match=r"moca_agui.instrument\(AGUIStream\(agent\)\)"):
            moca_agui.instrument(target)
    with pytest.raises(TypeError) as refused:
        moca_agui.instrument(object())
    assert "an AG2 `AGUIStream` (ag2[ag-ui])" in str(refused.value)
    assert "any ASGI app streaming AG-UI as SSE" in str(refused.value)
