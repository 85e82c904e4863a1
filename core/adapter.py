"""The kit for writing a plugin or an adapter: everything a framework's adapter uses.

A plugin is a module (or object) of functions marked `@hookimpl`, registered under the
entry-point group `moca_agui` (the hooks: `moca_agui.plugins.hookspecs`). An adapter's
plugin module declares what it claims with `Adapter`, and its modules that import the
framework make citing objects with `citing_variant` and drive a `CitationRun` through
`CitationStream` (or `cite(events, run=run)`). CONTRIBUTING.md walks through one.

The kit owns the machinery, so an adapter holds only its framework's quirks: an adapter
tells its run what it knows through `RunFeed`; builds the thread its framework keeps
with `calls_message`, `result_message` and `turn_message`; passes a failed call's result
as `capture(..., failed=True)`; and finds a run from a hook that knows only the
framework's run id in a `RunRegistry` its citing object holds (by the framework's per-run
object in a `RunObjectRegistry`, where its hooks reach no run id), or, where the
framework hands its hooks neither (only the client's run id), as `request_run()`.
"""

from .markers import MarkerStyle
from .plugins.declared import Adapter
from .plugins.hookspecs import hookimpl
from .plugins.imported import instance_of, instance_or_subclass_of, subclass_of
from .plugins.install import pip_install, require
from .plugins.numbered import numbered_result
from .plugins.variants import (
    citing_class,
    citing_copy,
    citing_factory,
    citing_variant,
    options_of,
)
from .records.content import content_parts
from .records.entry import Entry
from .records.event import Citation
from .records.extract import MAX_RESULT_CHARS, CompactResult, ReaderItem
from .records.references import Mention
from .records.schema import InvalidRecord, as_record
from .records.thread import ThreadMessage, calls_message, result_message, turn_message
from .run import CitationRun
from .run.feed import RunFeed, request_run
from .run.registry import RunObjectRegistry, RunRegistry
from .stream.citation_stream import CitationStream
from .stream.cite import cited, tap

__all__ = [
    "MAX_RESULT_CHARS",
    "Adapter",
    "Citation",
    "CitationRun",
    "CitationStream",
    "CompactResult",
    "Entry",
    "InvalidRecord",
    "MarkerStyle",
    "Mention",
    "ReaderItem",
    "RunFeed",
    "RunObjectRegistry",
    "RunRegistry",
    "ThreadMessage",
    "as_record",
    "calls_message",
    "cited",
    "citing_class",
    "citing_copy",
    "citing_factory",
    "citing_variant",
    "content_parts",
    "hookimpl",
    "instance_of",
    "instance_or_subclass_of",
    "numbered_result",
    "options_of",
    "pip_install",
    "request_run",
    "require",
    "result_message",
    "subclass_of",
    "tap",
    "turn_message",
]
