"""The built-in plugin: the reference Reader's tools and shapes, numbered markers, refs.

Registered like any third-party plugin; a plugin of yours can answer first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from ..markers import MarkerStyle, builtin_styles
from ..markers.style import canonical
from ..options import CitationOptions
from ..records.entry import Entry
from ..records.extract import ReaderItem, reader_items
from ..records.references import Mention, find_markers, find_refs
from .hookspecs import hookimpl
from .numbered import numbered_function


@hookimpl(trylast=True)
def moca_numbered(target: object, name: str | None) -> object | None:
    if callable(target) and not isinstance(target, type):
        return numbered_function(target, name)
    return None


@hookimpl(trylast=True)
def moca_calls_in_model_order(scope: Mapping[str, Any], endpoint: object) -> bool:
    return True


@hookimpl(trylast=True)
def moca_is_reader_tool(tool_name: str, options: CitationOptions) -> bool:
    return tool_name in options.reader_tools


@hookimpl(trylast=True)
def moca_reader_items(tool_name: str, result: object, options: CitationOptions) -> list[ReaderItem]:
    return reader_items(result)


@hookimpl(trylast=True)
def moca_marker_table(entries: Sequence[Entry], shown: Mapping[Entry, str]) -> Mapping[str, Entry]:
    if shown:  # the numbers the model read beside each result
        return {marker: entry for entry, marker in shown.items()}
    return {canonical(number): entry for number, entry in enumerate(entries, start=1)}


@hookimpl(trylast=True)
def moca_marker_styles() -> Sequence[MarkerStyle]:
    return builtin_styles()


@hookimpl
def moca_find_references(
    text: str, refs: AbstractSet[str], markers: Mapping[str, str]
) -> list[Mention]:
    from .manager import marker_styles  # the manager registers this module

    return references(text, refs, markers, marker_styles())


def references(
    text: str, refs: AbstractSet[str], markers: Mapping[str, str], styles: Sequence[MarkerStyle]
) -> list[Mention]:
    """The built-in `moca_find_references`, reading the marker `styles` a run asked for once."""
    return [*find_refs(text, refs), *find_markers(text, markers, styles)]
