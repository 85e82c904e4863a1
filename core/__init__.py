"""moca-agui: show the MOCA sources an agent's answer cites, in any AG-UI user interface.

What a service author calls: `instrument(agent)` turns a framework's AG-UI agent into one
that sends `moca.citations` (through that framework's adapter), `cite(events)` wraps any
stream of `ag_ui.core` events, `moca_agui.asgi.CitationMiddleware` any ASGI service that
streams SSE; `numbered(tools)` shows the model each source's marker, `reader_lookup`
turns compact search results into whole records. Writing a plugin or an adapter:
`moca_agui.adapter`.

The data path, one folder each (CONTRIBUTING.md draws it):
  records/  what a Reader result holds, which records are valid, what an answer names,
            the event built from them (no state)
  plugins/  the hooks, the plugin manager, the built-in plugin, `instrument`, `numbered`
  run/      one run's state: results in the order the model saw them, answers, resolution
  stream/   where the events go: the stream followed as the client reads it
"""

from importlib.metadata import version as _version

from .options import DEFAULT_READER_TOOLS, CitationOptions, Lookup, OptionKeywords
from .plugins.verbs import instrument, numbered, uninstrument
from .records.event import EVENT_NAME, EVENT_VERSION, METADATA_KEY
from .run.lookups import reader_lookup
from .stream.cite import cite

__version__ = _version("moca-agui")

__all__ = [
    "DEFAULT_READER_TOOLS",
    "EVENT_NAME",
    "EVENT_VERSION",
    "METADATA_KEY",
    "CitationOptions",
    "Lookup",
    "OptionKeywords",
    "__version__",
    "cite",
    "instrument",
    "numbered",
    "reader_lookup",
    "uninstrument",
]
