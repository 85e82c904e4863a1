"""What the demo's scripted model can do next: call a Reader tool, or answer.

Every framework's offline model in `moca_agui.demo.frameworks` wraps the same
`next_step` (see `model.py`), so the four demo services answer alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolCall:
    """Call the Reader tool `name` (e.g. "moca_search") with `arguments`."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Answer:
    """Write `text` as the assistant's answer (it cites with `[n]` markers or node refs)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A Reader tool's result as the model saw it: the tool's name and its JSON value."""

    name: str
    value: Any


Step = ToolCall | Answer
