"""What the checker reports: one finding per thing a stream does that the spec does not
allow or advise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Finding", "Findings", "Level"]

Level = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the stream does that the spec does not allow (error) or advise (warning)."""

    level: Level
    section: str
    rule: str
    event: int
    message: str

    def __str__(self) -> str:
        return f"event {self.event}: {self.level}: {self.section} {self.rule}: {self.message}"


class Findings:
    """The findings of one stream, in the order they were found."""

    __slots__ = ("found",)

    def __init__(self) -> None:
        self.found: list[Finding] = []

    def add(self, level: Level, section: str, rule: str, event: int, message: str) -> None:
        self.found.append(Finding(level, section, rule, event, message))
