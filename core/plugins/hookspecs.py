"""The hooks of moca_agui, in the order a run meets them.

Implement any of them in a plugin (a module or an object with functions marked
`@moca_agui.adapter.hookimpl`) and declare it under the entry-point group `moca_agui`:

    [project.entry-points.moca_agui]
    my-framework = "my_package.moca_plugin"

The built-in behaviour is itself a plugin (`moca_agui.plugins.builtin`), and each
adapter is one too (a `moca_agui.adapter.Adapter` declaration). Hooks are called with
keyword arguments and are synchronous. An exception in a hook is logged; the agent's
events flow on unchanged and no citation is guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from ..markers import MarkerStyle
    from ..options import CitationOptions
    from ..records.entry import Entry
    from ..records.extract import ReaderItem
    from ..records.references import Mention

hookspec = pluggy.HookspecMarker("moca_agui")
#: Marks a plugin's implementation of a hook: `@moca_agui.adapter.hookimpl`.
hookimpl = pluggy.HookimplMarker("moca_agui")


@hookspec(firstresult=True)
def moca_instrument(target: object, options: CitationOptions) -> object | None:
    """Return `target` instrumented to send `moca.citations` events, or None if not yours.

    Called by `moca_agui.instrument(target, **options)`, once. An adapter checks whether
    `target` is of its framework (without importing the framework when it is not) and
    returns the object to use in its place.

    firstresult: the first non-None answer wins.
    """


@hookspec
def moca_install_hint() -> str | None:
    """Return one line naming what this adapter instruments and the install that brings it.

    Called only when `moca_agui.instrument(target)` finds no adapter for `target`: the
    TypeError it raises lists every plugin's line, so core names no framework, e.g.
    "a LangGraph LangGraphAgent: pip install -e '.[langgraph]' in a clone of moca-agui
    (once released: pip install 'moca-agui[langgraph]')".

    Not firstresult: every non-None answer is listed.
    """


@hookspec(firstresult=True)
def moca_numbered(target: object, name: str | None) -> object | None:
    """Return `target` (a Reader tool or toolset) numbering its results, or None if not yours.

    Called by `moca_agui.numbered(target)` for each tool. The returned tool calls the
    original and returns what `moca_agui.adapter.numbered_result(tool_name, result)` gives for its
    result: the text the model reads, each source beside the marker the active run
    assigned it. `name` is the tool name the caller gave, if any. The built-in answer
    wraps a plain function (sync or async), known by `name` or its `__name__`.

    firstresult: the first non-None answer wins.
    """


@hookspec(firstresult=True)
def moca_calls_in_model_order(scope: Mapping[str, Any], endpoint: object) -> bool | None:
    """Say whether `endpoint` announces a model's parallel tool calls in the order the
    model issued them.

    Called by `CitationMiddleware` when a response to a POST turns out to be an SSE stream
    (before its first event), with the request's ASGI `scope` and the `endpoint` that
    answers it: the one a Starlette or FastAPI router chose (`scope["endpoint"]`), else the
    app the middleware wraps. An endpoint that sends them in an order of its own (as each
    finishes or starts) answers False: the run then leaves out, logged, each default
    marker whose source depends on the model's order, in this run and in the earlier
    turns the client recorded from that wire (numbered tools keep theirs).

    firstresult: the first non-None answer wins; the built-in answer is True.
    """


@hookspec(firstresult=True)
def moca_is_reader_tool(tool_name: str, options: CitationOptions) -> bool | None:
    """Say whether results of the tool `tool_name` are Reader results.

    Called the first time a run sees a result of that tool. Only Reader results are
    sources: a record-shaped result of any other tool is data. The built-in answer is
    `tool_name in options.reader_tools`.

    firstresult: the first non-None answer wins.
    """


@hookspec(firstresult=True)
def moca_reader_items(
    tool_name: str, result: object, options: CitationOptions
) -> list[ReaderItem] | None:
    """Return the citation records and compact results a Reader tool result holds.

    Called for each result of a Reader tool, with the run's `options` (an implementation
    may leave out any argument it does not use): `result` is the tool's return value as the
    framework hands it over (a Python object), or the TOOL_CALL_RESULT content (a JSON
    string, or content parts). Return the candidate records (plain dicts, as the Reader
    produced them; they are validated after this hook) and `CompactResult`s, in the order
    the result gives them; an empty list for a Reader error. Raise ValueError for a
    result that cannot be read; it is logged and skipped.

    firstresult: the first non-None answer wins; the built-in plugin reads the
    reference Reader's shapes.
    """


@hookspec(firstresult=True)
def moca_marker_table(
    entries: Sequence[Entry], shown: Mapping[Entry, str]
) -> Mapping[str, Entry] | None:
    """Map marker texts (such as `"[1]"`) to the entries they cite, for one run.

    Called when a message's citations are resolved, with every entry the run captured
    (one per `node.ref` and span) in the order the model saw them (the order it issued
    its calls, then position in each result), and the markers the model was shown
    (`moca_agui.numbered`; empty if none). A marker naming an entry the run does not hold
    names nothing. The built-in table is `shown` if the model was shown markers, else
    `{"[1]": entries[0], ...}`.

    firstresult: the first non-None answer wins.
    """


@hookspec
def moca_marker_styles() -> Sequence[MarkerStyle] | None:
    """Return the marker styles this plugin reads, e.g. `[1, 2]` or `[^1]`.

    Called once per run (and by `moca-agui check`), before any answer is read. Each
    `moca_agui.adapter.MarkerStyle` says what text may be a marker of it (its `pattern`,
    at most 64 characters, beginning with its `opener`) and which numbers a marker names
    (`items`); the number n names what the marker table gives `[n]`. The run reads every
    style in the answer (where CommonMark shows text), in the look-ahead and the final
    read, and `moca-agui check` does too.

    Not firstresult: the styles of every plugin are read; the built-in plugin gives one
    style for each module of `moca_agui.markers`.
    """


@hookspec
def moca_find_references(
    text: str, refs: AbstractSet[str], markers: Mapping[str, str]
) -> list[Mention] | None:
    """Return the places in an answer's `text` that refer to a node.

    Called once per assistant message with text, with the refs this run captured (a
    set-like view in first-capture order: `ref in refs` is cheap) and the marker table.
    Each `Mention(start, end, ref, marker)` names a ref; mentions of refs not in `refs`
    are left out by the caller whatever a plugin says. `marker` is the marker's text as
    written; where that is not a key of `markers` (`[1, 2]` names `[1]` and `[2]`), the
    mention's `key` is the key it names, and the citation still carries `marker`.

    All answers are merged: citations follow the first mention of each entry (a marker
    names the entry the table maps it to; a ref names the entry a versioned ref cites).
    """
