"""A third-party plugin that raises: the agent's events flow on unchanged, the failure is
logged, and no partial or guessed citation is sent."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest

import moca_agui
import moca_agui.adapter
from moca_agui.plugins import get_plugin_manager
from support import record, ref

from .streams import (
    answer,
    assert_passed_through,
    citation_values,
    cite_all,
    cited_records,
    logged,
    reader_call,
    run,
)

RESOLUTION_HOOKS = {"moca_marker_table", "moca_find_references"}
HOOKS = [
    "moca_is_reader_tool",
    "moca_reader_items",
    "moca_marker_table",
    "moca_find_references",
]


class Broken(Exception):
    pass


class RaisingPlugin:
    """A third-party plugin that raises in each hook of `broken`, first of all plugins."""

    def __init__(self, broken: list[str]) -> None:
        self.broken = set(broken)

    def _maybe_raise(self, hook: str) -> None:
        if hook in self.broken:
            raise Broken(f"{hook} of a third-party plugin failed")

    @moca_agui.adapter.hookimpl(tryfirst=True)
    def moca_instrument(self, target: object, options: object) -> None:
        self._maybe_raise("moca_instrument")

    @moca_agui.adapter.hookimpl(tryfirst=True)
    def moca_is_reader_tool(self, tool_name: str, options: object) -> None:
        self._maybe_raise("moca_is_reader_tool")

    @moca_agui.adapter.hookimpl(tryfirst=True)
    def moca_reader_items(self, tool_name: str, result: object) -> None:
        self._maybe_raise("moca_reader_items")

    @moca_agui.adapter.hookimpl(tryfirst=True)
    def moca_marker_table(self, entries: object) -> None:
        self._maybe_raise("moca_marker_table")

    @moca_agui.adapter.hookimpl(tryfirst=True)
    def moca_find_references(self, text: str, refs: object, markers: object) -> None:
        self._maybe_raise("moca_find_references")


@pytest.fixture
def broken_hooks(request: pytest.FixtureRequest) -> Iterator[list[str]]:
    hooks: list[str] = request.param
    manager = get_plugin_manager()
    plugin = RaisingPlugin(hooks)
    manager.register(plugin, name="raising-plugin")
    try:
        yield hooks
    finally:
        manager.unregister(plugin)
    assert manager.get_plugin("raising-plugin") is None


A, B = record("a.md"), record("b.md")


def events() -> list[Any]:
    return run(
        reader_call("call-1", json.dumps(A)),
        answer("answer-1", f"See {ref(A)}."),
        reader_call("call-2", json.dumps({"query": "q", "results": [B]}), "moca_search"),
        answer("answer-2", "Also [2] and ", ref(B)),
    )


async def test_without_a_broken_plugin_both_messages_are_cited() -> None:
    out = await cite_all(events())
    assert [v["messageId"] for v in citation_values(out)] == ["answer-1", "answer-2"]
    assert cited_records(out) == [A, B]


@pytest.mark.parametrize("broken_hooks", [[hook] for hook in HOOKS] + [HOOKS], indirect=True)
async def test_a_plugin_raising_in_a_hook_breaks_nothing(
    caplog: pytest.LogCaptureFixture, broken_hooks: list[str]
) -> None:
    stream = events()
    out = await cite_all(stream)
    assert_passed_through(stream, out)
    failures = [r for r in logged(caplog, logging.ERROR) if r.exc_info]
    assert failures and all(isinstance(r.exc_info[1], Broken) for r in failures)  # type: ignore[index]
    values = citation_values(out)
    if set(broken_hooks) & RESOLUTION_HOOKS:
        assert values == []  # resolution failed: no event rather than a partial one
    else:
        # Nothing was read from the Reader: each message says it cites nothing it can resolve.
        assert values == [
            {"version": 1, "messageId": mid, "citations": []} for mid in ("answer-1", "answer-2")
        ]


@pytest.mark.parametrize("broken_hooks", [["moca_instrument"]], indirect=True)
async def test_a_plugin_raising_in_moca_instrument_fails_at_setup_not_in_a_run(
    broken_hooks: list[str],
) -> None:
    """`instrument` is a setup call: the error surfaces there, before any run; `cite`,
    which asks no adapter, is unaffected."""
    stream = events()

    async def agent() -> Any:
        for event in stream:
            yield event

    with pytest.raises(Broken):
        moca_agui.instrument(agent)
    out = await cite_all(stream)
    assert cited_records(out) == [A, B]


class _RaisingStyle:
    opener, closer = "[", "]"
    pattern = re.compile(r"\[\^[0-9]\]")  # as the footnote style's, tried first

    def items(self, marker: str) -> tuple[int, ...]:
        raise Broken("a marker style's items failed")


class _NoNumbersStyle(_RaisingStyle):
    def items(self, marker: str) -> tuple[int, ...]:
        return ("2",)  # type: ignore[return-value]


class StylesPlugin:
    """A third-party plugin answering `moca_marker_styles` with `styles`, or raising."""

    def __init__(self, styles: list[object] | None) -> None:
        self.styles = styles

    @moca_agui.adapter.hookimpl(tryfirst=True)
    def moca_marker_styles(self) -> list[object]:
        if self.styles is None:
            raise Broken("moca_marker_styles of a third-party plugin failed")
        return self.styles


@pytest.mark.parametrize(
    "styles",
    [None, [_RaisingStyle()], [_NoNumbersStyle()], ["[n]", object()]],
    ids=["hook raises", "items raises", "items not numbers", "not styles"],
)
async def test_a_broken_marker_style_leaves_the_built_in_styles_citing(
    caplog: pytest.LogCaptureFixture, styles: list[object] | None
) -> None:
    manager = get_plugin_manager()
    plugin = StylesPlugin(styles)
    manager.register(plugin, name="styles-plugin")
    stream = run(
        reader_call("call-1", json.dumps({"query": "q", "results": [A, B]}), "moca_search"),
        answer("answer-1", "See [^2] and [1, 2]."),
    )
    try:
        out = await cite_all(stream)
    finally:
        manager.unregister(plugin)
    assert_passed_through(stream, out)
    assert cited_records(out) == [B, A]
    assert logged(caplog, logging.WARNING) or logged(caplog, logging.ERROR)
