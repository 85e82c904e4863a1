"""The command line of `moca-agui check`: its arguments, its report, its exit code."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import asdict

from ..options import DEFAULT_READER_TOOLS
from ._rules import check_events
from ._source import SourceError, read_source

__all__ = ["MAX_TIMEOUT", "add_arguments", "printable", "run", "seconds"]

#: What a terminal could act on or reorder: C0 and C1 controls, DEL, and the bidirectional
#: controls. Record text holding `\x1b[2K` would erase the line the checker printed.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with each control character escaped (`\\x1b`, `\\u202e`): safe to print."""
    return _UNPRINTABLE.sub(_escaped, text)


#: What JSON leaves raw (it escapes C0 controls itself): DEL, C1 and bidirectional controls.
_JSON_UNPRINTABLE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _json_escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match[0]):04x}"


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


#: The longest `--timeout`: a socket takes no timeout past what a time_t holds (1e10 s).
MAX_TIMEOUT = 1_000_000.0


def seconds(text: str) -> float:
    """An argparse type: seconds above 0 and at most `MAX_TIMEOUT` (not inf, nan or 1e309)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds above 0 and at most {MAX_TIMEOUT:.0f}"
        )
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `moca-agui check`."""
    parser.add_argument("source", metavar="SOURCE", help="a JSON-lines or SSE file, - or a URL")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument(
        "--message",
        default="What do your sources say? Cite them.",
        help="the user message to POST when SOURCE is a URL",
    )
    parser.add_argument(
        "--reader-tool",
        action="append",
        dest="reader_tools",
        metavar="NAME",
        help="a Reader tool name (repeat; default: moca_search, moca_get_node, moca_structure)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=60.0,
        help="seconds for the whole answer of a URL (default: 60)",
    )


def run(args: argparse.Namespace) -> int:
    """Run `moca-agui check`; 0: no errors, 1: errors, 2: the source cannot be read."""
    try:
        events = read_source(args.source, message=args.message, timeout=args.timeout)
    except SourceError as exc:
        print(printable(f"moca-agui check: {exc}"), file=sys.stderr)
        return 2
    try:
        findings = check_events(events, reader_tools=args.reader_tools or DEFAULT_READER_TOOLS)
    except RecursionError:  # read_source keeps events within MAX_DEPTH: a last guard
        print(printable(f"moca-agui check: cannot check {args.source}: nested too deep"),
              file=sys.stderr)  # fmt: skip
        return 2
    errors = sum(1 for finding in findings if finding.level == "error")
    warnings = len(findings) - errors
    if args.json:
        report = {
            "source": args.source,
            "events": len(events),
            "errors": errors,
            "warnings": warnings,
            "findings": [asdict(finding) for finding in findings],
        }
        # JSON escapes C0 controls itself; C1 controls and bidi controls it would print raw.
        text = json.dumps(report, indent=2, ensure_ascii=False)
        print(_JSON_UNPRINTABLE.sub(_json_escaped, text))
    else:
        for finding in findings:
            print(printable(str(finding)))
        summary = f"{errors} error(s), {warnings} warning(s) in {len(events)} events: "
        print(printable(summary + args.source))
    return 1 if errors else 0
