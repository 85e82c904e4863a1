"""The demo's scripted model: deterministic, offline, and it cites what the Reader returned.

`next_step(question, results)` says what to do next: call a Reader tool, or answer. A few
known questions have scripted plans; any other question gets one `moca_search` and an
answer that lists what came back. Answers cite in both styles the spec allows: markers
(`[n]` is the n-th node the run received, in the order it first received each, which is
moca_agui's default marker table; or the marker a numbered tool showed beside the node)
and versioned refs (`<package id>@<version>#<path>`).
Some answers also name a ref the Reader never returned, as a real model may: moca_agui
must leave it out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .steps import Answer, ToolCall, ToolResult

__all__ = ["DEMO_QUESTION", "KNOWN_QUESTIONS", "next_step", "received_nodes"]

_HANDBOOK = "https://example.org/moca/fernhollow-apiary"
_LEAFLET_REF = "https://example.org/moca/fernhollow-swarm-leaflet@1.2.0#swarm-calls.md"
_TOP_CONCEPT = f"{_HANDBOOK}/concepts#keeping-bees"


@dataclass(frozen=True, slots=True)
class _Plan:
    calls: tuple[ToolCall, ...]
    #: `{m:path}` becomes the node's marker, `{r:path}` its versioned ref, `{x:ref}` is
    #: written as is (a ref the Reader never returned).
    template: str


_PLANS: dict[str, _Plan] = {
    "what does the handbook cover?": _Plan(
        (
            ToolCall(
                "moca_structure",
                {"op": "nodes", "iri": _TOP_CONCEPT, "include": "narrower", "detail": "full"},
            ),
            ToolCall("moca_get_node", {"node_id": _LEAFLET_REF}),
        ),
        "The Fernhollow Apiary Handbook covers:\n"
        "- feeding heavy syrup in autumn {m:autumn-feeding.md}\n"
        "- the 2026 drought order on water stations {m:drought-watering-order.md}\n"
        "- where hives may stand, eight metres from footpaths {m:hive-placement.md}\n"
        "- registering hives with the town clerk before 1 April {m:hive-registration.md}\n"
        "- queen marking colours {m:queen-marking.md}\n"
        "- smoker fuel ({r:smoker-fuel.md})\n"
        "- collecting swarms {m:swarm-collection.md}\n"
        "- treating varroa in early winter {m:varroa-treatment.md}\n"
        "The swarm procedure replaces the 2024 leaflet's advice {m:swarm-calls.md}.",
    ),
    "do i need to register my hives?": _Plan(
        (ToolCall("moca_search", {"query": "register hives", "limit": 3, "detail": "full"}),),
        "Yes. Register every apiary with the town clerk before 1 April each year; it is "
        "free for up to four hives {m:hive-registration.md}. Keep each hive at least eight "
        "metres from a public footpath as well {m:hive-placement.md}.",
    ),
    "how do i treat varroa mites?": _Plan(
        (ToolCall("moca_search", {"query": "varroa mites", "limit": 3, "detail": "full"}),),
        "Treat with oxalic acid in early winter, when the colony has no sealed brood, and "
        "count the mite drop for a week before and after (see {r:varroa-treatment.md}). "
        "That guide is past its review date. The older advice in "
        "{x:" + _HANDBOOK + "@2.1.0#varroa-treatment.md} no longer applies.",
    ),
    "what should i do about a swarm?": _Plan(
        (
            ToolCall(
                "moca_search",
                {"query": "swarm", "limit": 3, "detail": "full", "include_all": True},
            ),
        ),
        "Follow the swarm rota procedure: shake the cluster into a ventilated box and "
        "leave it open until dusk {m:swarm-collection.md}. The 2024 leaflet's advice to "
        "spray swarms with water (see {r:swarm-calls.md}) has been replaced by the handbook.",
    ),
}
#: The question the demo page suggests: its answer cites every trust state of the demo.
DEMO_QUESTION = "What does the handbook cover?"
#: The questions with scripted plans (case and spacing do not matter).
KNOWN_QUESTIONS = (
    DEMO_QUESTION,
    "Do I need to register my hives?",
    "How do I treat varroa mites?",
    "What should I do about a swarm?",
)
_PLACEHOLDER = re.compile(r"\{([mrx]):([^{}]+)\}")


def next_step(question: str, results: list[ToolResult]) -> ToolCall | Answer:
    """The next step for `question`, given the Reader results received so far, in order."""
    plan = _PLANS.get(" ".join(question.casefold().split()))
    if plan is not None:
        if len(results) < len(plan.calls):
            return plan.calls[len(results)]
        return Answer(_fill(plan.template, received_nodes(results)))
    if not results:
        return ToolCall("moca_search", {"query": question, "limit": 5, "detail": "full"})
    return Answer(_generic_answer(received_nodes(results)))


def received_nodes(results: list[ToolResult]) -> dict[str, tuple[dict[str, Any], str]]:
    """ref -> (record or compact result, its marker) of every node in `results`, in
    first-received order: the marker a numbered tool showed beside it, else `[n]`."""
    nodes: dict[str, tuple[dict[str, Any], str]] = {}
    for result in results:
        for item, shown in _items(_json(result.value)):
            ref = item["node"]["ref"] if "node" in item else item["ref"]
            if ref not in nodes:
                nodes[ref] = (item, shown or f"[{len(nodes) + 1}]")
    return nodes


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _items(value: Any) -> list[tuple[dict[str, Any], str | None]]:
    """The records and compact results in one Reader result of the reference shapes (or
    a numbered tool's view of one), each with the marker shown beside it, if any."""
    if not isinstance(value, Mapping) or "error" in value:
        return []
    if "node" in value and "package" in value:  # moca_get_node
        return [(dict(value), None)]
    listed = value.get("results", value.get("result"))  # moca_search, moca_structure
    if not isinstance(listed, list):
        return []
    found: list[tuple[dict[str, Any], str | None]] = []
    for entry in listed:
        shown = entry.get("marker") if isinstance(entry, Mapping) else None
        if isinstance(shown, str):  # a numbered tool's view: {"marker": ..., "result": ...}
            found.extend((item, shown) for item, _ in _items({"results": [entry.get("result")]}))
        elif isinstance(entry, Mapping) and (
            isinstance(entry.get("ref"), str) or isinstance(entry.get("node"), Mapping)
        ):
            found.append((dict(entry), None))
    return found


def _fill(template: str, nodes: dict[str, tuple[dict[str, Any], str]]) -> str:
    def replace(match: re.Match[str]) -> str:
        kind, value = match.groups()
        if kind == "x":
            return value
        ref = next((r for r in nodes if r.endswith("#" + value)), None)
        if ref is None:
            return ""
        return nodes[ref][1] if kind == "m" else ref

    return _PLACEHOLDER.sub(replace, template)


def _generic_answer(nodes: dict[str, tuple[dict[str, Any], str]]) -> str:
    if not nodes:
        return "The loaded packages say nothing about that, so I cannot answer from them."
    lines = ["Here is what the loaded packages say:"]
    for ref, (item, marker) in nodes.items():
        title = item["node"].get("title", ref) if "node" in item else item.get("title") or ref
        lines.append(f"- {title} {marker}")
    first = next(iter(nodes))
    package = first.rsplit("#", 1)[0]
    lines.append(f"Start with {first}. For more, see {package}#further-reading.md.")
    return "\n".join(lines)
