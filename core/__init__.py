"""moca-agui: show the MOCA sources an agent's answer cites, in any AG-UI user interface.

`cite(events)` wraps any stream of `ag_ui.core` events; `instrument(agent)` turns a
framework's agent into one that sends `moca.citations`, through that framework's adapter.

The data path, one module each:
  tool result  -> `_extract` reads a Reader result's records and compact results
               -> `_run.CitationRun.capture` keeps them for this run only
  run ledger   -> `_ledger` numbers each entry (node and span) in the order the model saw it
  resolution   -> `_references` finds refs and markers in the answer; `_run` resolves
                  them to records the run captured (`lookup` for compact results)
  event        -> `_citations` builds one `moca.citations` event per assistant message
  placement    -> `_follow` reads the stream as @ag-ui/client does; `_stream.cite` sends
                  each event after its message ends and before RUN_FINISHED
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
