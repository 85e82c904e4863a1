"""moca-agui: show the MOCA sources an agent's answer cites, in any AG-UI user interface.

`cite(events)` wraps any stream of `ag_ui.core` events; `instrument(agent)` turns a
framework's agent into one that sends `moca.citations`, through that framework's adapter.
"""

from importlib.metadata import version as _version

from ._citations import EVENT_NAME, EVENT_VERSION, Citation
from ._extract import CompactResult
from ._instrument import instrument, uninstrument
from ._ledger import Entry
from ._lookup import reader_lookup
from ._numbered import numbered, numbered_result
from ._options import DEFAULT_READER_TOOLS, CitationOptions
from ._records import InvalidRecord, as_record
from ._references import Mention
from ._run import CitationRun
from ._stream import cite, tap
from ._variants import citing_class, citing_copy, citing_factory, options_of
from .hookspecs import hookimpl

__version__ = _version("moca-agui")

__all__ = [
    "DEFAULT_READER_TOOLS",
    "EVENT_NAME",
    "EVENT_VERSION",
    "Citation",
    "CitationOptions",
    "CitationRun",
    "CompactResult",
    "Entry",
    "InvalidRecord",
    "Mention",
    "__version__",
    "as_record",
    "cite",
    "citing_class",
    "citing_copy",
    "citing_factory",
    "hookimpl",
    "instrument",
    "numbered",
    "numbered_result",
    "options_of",
    "reader_lookup",
    "tap",
    "uninstrument",
]
