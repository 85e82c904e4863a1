"""The command line of `moca-agui check`: its arguments, its report, its exit code."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from ..options import DEFAULT_READER_TOOLS
from ._rules import check_events
from ._source import SourceError, read_source

__all__ = ["add_arguments", "run"]


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
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for a URL")


def run(args: argparse.Namespace) -> int:
    """Run `moca-agui check`; 0: no errors, 1: errors, 2: the source cannot be read."""
    try:
        events = read_source(args.source, message=args.message, timeout=args.timeout)
    except SourceError as exc:
        print(f"moca-agui check: {exc}", file=sys.stderr)
        return 2
    findings = check_events(events, reader_tools=args.reader_tools or DEFAULT_READER_TOOLS)
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
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        for finding in findings:
            print(finding)
        print(f"{errors} error(s), {warnings} warning(s) in {len(events)} events: {args.source}")
    return 1 if errors else 0
