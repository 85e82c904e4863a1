"""`RunFeed`: what an adapter tells a run, the whole of a run an adapter's quirks use;
`request_run()`: the run of the request being served, for a hook handed no run id."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from .citation_run import CitationRun

__all__ = ["RunFeed", "request_run"]


class RunFeed(Protocol):
    """The adapter-facing side of a `CitationRun`: the thread the model reads, the order
    of its calls, and the tools' results. Each is documented on `CitationRun`."""

    def __hash__(self) -> int:
        """By identity: a run is a key of the registry of what an adapter keeps for it."""

    def is_reader_tool(self, tool_name: str) -> bool:
        """Whether results of `tool_name` are Reader results."""

    def read_history(
        self,
        messages: Iterable[object],
        *,
        kept: Iterable[object] | None = None,
        only_answers: bool = False,
    ) -> None:
        """Take in the thread the model reads, once: the framework's `kept` thread, if it
        keeps one, then the client's `messages` it does not hold (`only_answers`: only the
        client's answers to calls the kept thread left open)."""

    def thread_unreadable(self, why: str) -> None:
        """The thread the model reads cannot be read whole: markers are left out."""

    def call_made(self, tool_call_id: str, tool_name: str) -> None:
        """The model issued a call, in this order."""

    def calls_out_of_order(self, *, this_run: bool = True) -> None:
        """The emitter sends the model's calls in an order of its own."""

    def results_announced(self) -> None:
        """The emitter's calls have ids of its own: results are announced by their text."""

    def result_read(self, tool_name: str, content: str) -> None:
        """The model read this result of `tool_name` next, in this order."""

    def order_not_known(self, why: str) -> None:
        """The model's order of this run's calls is not known, for the reason `why`."""

    def results_captured(self) -> None:
        """The adapter captures each tool's own result from now on: TOOL_CALL_RESULT is not read."""

    def capture(
        self,
        tool_name: str,
        result: object,
        *,
        tool_call_id: str | None = None,
        failed: bool = False,
    ) -> None:
        """Take in one tool's result (a `failed` call's holds no source)."""


def request_run() -> RunFeed | None:
    """The run whose stream this context runs in (its engine entered it, per request), or
    None. For a hook its framework hands no id that one run owns, only its client's run id
    (which runs in flight may share): as OpenInference follows the context where a
    framework hands no run id. A hook handed the framework's own run id, or a per-run
    object, finds its run in a `RunRegistry` or `RunObjectRegistry` instead."""
    return CitationRun.current()
