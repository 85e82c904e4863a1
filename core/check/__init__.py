"""`moca-agui check SOURCE`: check an AG-UI stream against the service rules of MOCA
citations over AG-UI 0.6.0, as far as the stream shows them.

SOURCE is a file of JSON lines (one wire event per line) or an SSE capture, `-` for
stdin, or an http(s) URL: the checker POSTs a RunAgentInput with one user message and
reads the SSE answer. One line per finding names the event (0-based index in the stream),
the spec section and rule, and what is wrong. Exit 0: no errors (warnings allowed);
1: errors; 2: the source cannot be read.

One job a module: reading a source (`_source`), reading its stream into runs
(`_reading`), the rules (`_rules`), their findings (`_findings`), the command
(`_command`). The stream is followed as `cite` and `moca_agui.client` follow it.
"""

from ._command import add_arguments, run
from ._findings import Finding, Level
from ._rules import check_events
from ._source import SourceError, parse_stream, read_source

__all__ = [
    "Finding",
    "Level",
    "SourceError",
    "add_arguments",
    "check_events",
    "parse_stream",
    "read_source",
    "run",
]
