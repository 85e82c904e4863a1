"""The conformance corpus read and run by the Python core: what `make_cases.py` writes the
expected events with and `test_corpus.py` checks them against."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent, Event, RunAgentInput
from pydantic import TypeAdapter

import moca_agui
from moca_agui import CitationOptions
from moca_agui.adapter import CitationRun, CitationStream
from moca_agui.adapter import cited as cited_by

CASES = Path(__file__).parent / "cases"
#: What a runner writes in place of a `computedAt` (any RFC 3339 time).
TIME = "<time>"
_EVENT: TypeAdapter[BaseEvent] = TypeAdapter(Event)  # type: ignore[arg-type]


def cases() -> list[dict[str, Any]]:
    """Every case of the corpus, in file order."""
    found: list[dict[str, Any]] = []
    for path in sorted(CASES.glob("*.json")):
        found.extend(json.loads(path.read_text(encoding="utf-8"))["cases"])
    return found


def wire(event: BaseEvent) -> dict[str, Any]:
    """An event as it goes over the wire (camelCase, no nulls), parsed back."""
    loaded: dict[str, Any] = json.loads(event.model_dump_json(by_alias=True, exclude_none=True))
    return loaded


def canonical_events(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """`events` as ag-ui-protocol writes them: the form both runners pass on unchanged."""
    return [wire(_EVENT.validate_python(event)) for event in events]


def timeless(value: Any) -> Any:
    """`value` with each moca.citations value's `computedAt` written as `TIME`."""
    if isinstance(value, list):
        return [timeless(item) for item in value]
    if isinstance(value, dict):
        return {k: TIME if k == "computedAt" else timeless(v) for k, v in value.items()}
    return value


async def cited(case: dict[str, Any]) -> list[dict[str, Any]]:
    """What `moca_agui.cite` sends for the case's events, with its input, options and lookup."""
    options = dict(case.get("options", {}))
    table = case.get("lookup")
    if table is not None:

        async def lookup(ref: str) -> dict[str, Any] | None:
            found: dict[str, Any] | None = table.get(ref)
            return found

        options["lookup"] = lookup
    given = case.get("input")
    run_input = _run_input(given) if given is not None else None
    events = [_EVENT.validate_python(event) for event in case["events"]]
    if "kept" in case:  # the thread the agent keeps, as an adapter hands it to the run
        run = CitationRun(CitationOptions.from_kwargs(**options))
        sent_messages = run_input.messages if run_input is not None else []
        if case["kept"] is None:
            run.thread_unreadable("the agent's own thread is not known")
        else:
            run.read_history(sent_messages, kept=case["kept"])
        questions = [m.id for m in sent_messages if getattr(m, "role", None) == "user"]
        question_id = questions[-1] if questions else None  # as `cite` finds it in `input`
        sent = cited_by(_stream(events), CitationStream(run, question_id=question_id))
    else:
        sent = moca_agui.cite(_stream(events), input=run_input, **options)
    return timeless([wire(event) async for event in sent])


def _run_input(given: dict[str, Any]) -> RunAgentInput:
    """The case's input; one whose thread holds an item that is no message (which no
    `RunAgentInput` validates) keeps its messages as the wire dicts they are."""
    try:
        return RunAgentInput.model_validate(given)
    except ValueError:
        fields = {k: v for k, v in given.items() if k != "messages"}
        valid = RunAgentInput.model_validate({**fields, "messages": []})
        return valid.model_copy(update={"messages": given["messages"]})


async def _stream(events: list[BaseEvent]) -> AsyncIterator[BaseEvent]:
    for event in events:
        yield event
