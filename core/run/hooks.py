"""The hooks a run asks, each failure logged: a plugin never breaks an answer."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from operator import attrgetter
from typing import Any

from ..markers import MarkerStyle
from ..options import CitationOptions
from ..plugins import builtin, get_plugin_manager
from ..plugins.manager import builtin_only, marker_styles
from ..records.entry import Entry
from ..records.extract import ReaderItem
from ..records.references import Mention

__all__ = ["Hooks", "as_marker", "calls_in_model_order"]

logger = logging.getLogger("moca_agui")

_START = attrgetter("start")  # a mention's start, read in C (an answer has one per marker)


def as_marker(marker: object) -> str | None:
    """A plugin's marker if it is text; else None, logged (a marker is a non-empty string)."""
    if marker is None or (isinstance(marker, str) and marker):
        return marker
    logger.warning("moca_agui: dropped a marker that is not text: %.80r", marker)
    return None


def calls_in_model_order(scope: Mapping[str, Any], endpoint: object) -> bool:
    """Whether `endpoint`, answering `scope`, announces a model's parallel calls in the
    order the model issued them, as the plugins say; False if one fails (logged): then no
    marker that depends on that order is guessed."""
    hook = get_plugin_manager().hook
    try:
        return bool(hook.moca_calls_in_model_order(scope=scope, endpoint=endpoint))
    except Exception:
        logger.exception("moca_agui: a plugin failed in moca_calls_in_model_order")
        return False


class Hooks:
    """The plugin hooks as one run calls them, with its options."""

    __slots__ = (
        "_builtin_references",
        "_hook",
        "_options",
        "_reader_tools",
        "builtin_marker_table",
        "marker_styles",
    )

    def __init__(self, options: CitationOptions) -> None:
        self._hook: Any = get_plugin_manager().hook
        self._options = options
        self._reader_tools: dict[str, bool] = {}
        #: Whether only the built-in plugin answers `moca_marker_table` (the run may then
        #: read its table marker by marker instead of asking for the whole of it).
        self.builtin_marker_table = builtin_only(self._hook.moca_marker_table)
        #: Whether only the built-in plugin finds references: it is then called directly
        #: (the look-ahead asks once for each stretch of an answer naming a source).
        self._builtin_references = builtin_only(self._hook.moca_find_references)
        #: Every style of marker the answers are read in (`moca_marker_styles`).
        self.marker_styles: tuple[MarkerStyle, ...] = marker_styles()

    def is_reader_tool(self, tool_name: str) -> bool:
        """Whether results of `tool_name` are Reader results (asked once per name)."""
        known = self._reader_tools.get(tool_name)
        if known is None:
            try:
                answer = self._hook.moca_is_reader_tool(tool_name=tool_name, options=self._options)
            except Exception:
                logger.exception("moca_agui: a plugin failed in moca_is_reader_tool")
                answer = False
            known = self._reader_tools[tool_name] = bool(answer)
        return known

    def reader_items(self, tool_name: str, result: object) -> list[ReaderItem] | None:
        """What a Reader tool's result holds, or None (not a Reader, or unreadable)."""
        if not self.is_reader_tool(tool_name):
            return None
        try:
            items = self.read_items(tool_name, result)
        except ValueError as exc:
            logger.warning("moca_agui: skipped a result of %s: %s", tool_name, exc)
            return None
        except Exception:
            logger.exception("moca_agui: skipped a result of %s: a plugin failed", tool_name)
            return None
        if not items:  # e.g. concepts, an error, or a shape no plugin knows
            logger.debug("moca_agui: no citation record in a result of %s", tool_name)
        return items or []

    def read_items(self, tool_name: str, result: object) -> list[ReaderItem] | None:
        """What a Reader tool's result holds, as the plugins read it; raises what they
        raise (ValueError: a result no one can read)."""
        items: list[ReaderItem] | None = self._hook.moca_reader_items(
            tool_name=tool_name, result=result, options=self._options
        )
        return items

    def marker_table(
        self, entries: Sequence[Entry], shown: Mapping[Entry, str]
    ) -> Mapping[str, Entry]:
        """marker -> entry: the shown numbers, the default numbering, or a plugin's table."""
        table: Mapping[str, Entry] | None = self._hook.moca_marker_table(
            entries=entries, shown=shown
        )
        return table or {}

    def find_references(
        self, text: str, refs: AbstractSet[str], markers: Mapping[str, str]
    ) -> list[Mention]:
        """Every plugin's mentions in `text`, in the order they stand."""
        if self._builtin_references:
            found = builtin.references(text, refs, markers, self.marker_styles)
        else:
            found = [
                mention
                for mentions in self._hook.moca_find_references(
                    text=text, refs=refs, markers=markers
                )
                if mentions
                for mention in mentions
            ]
        found.sort(key=_START)
        return found
