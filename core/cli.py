"""The `moca-agui` command."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="moca-agui",
        description="MOCA citations over AG-UI: run the offline demo, check a service's stream.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_demo(commands)
    _add_check(commands)
    return parser


def _add_demo(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = commands.add_parser(
        "demo",
        help="run the offline demo: one question's event stream, or the chat page",
        description="The offline demo on 127.0.0.1: an example MOCA package, a Reader over "
        "it and a scripted model behind an AG-UI endpoint with citations on.",
    )
    demo.add_argument("--question", help="ask this, print the event stream as JSON lines and exit")
    demo.add_argument(
        "--framework",
        default="ag-ui",
        choices=["ag-ui", "langgraph", "pydantic-ai", "llama-index"],
        help="the agent framework of the service (default: ag-ui, the bare SDK)",
    )
    demo.add_argument(
        "--port", type=int, default=8000, help="port of the chat page (default: 8000)"
    )
    demo.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    try:  # the demo needs the demo extra (fastapi, uvicorn, httpx, mcp): import it here
        server = importlib.import_module("moca_agui.demo.server")
    except ImportError as exc:
        print(f"moca-agui demo: {exc}; pip install 'moca-agui[demo]'", file=sys.stderr)
        return 2
    try:
        if args.question is not None:
            return int(server.print_events(args.framework, args.question))
        app = server.build(args.framework)
    except server.FrameworkUnavailable as exc:
        print(f"moca-agui demo: {exc}", file=sys.stderr)
        return 2
    print(f"moca-agui demo ({args.framework}): http://127.0.0.1:{args.port}/", file=sys.stderr)
    server.serve(app, args.port)
    return 0


def _add_check(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from .check import add_arguments, run

    check = commands.add_parser(
        "check",
        help="check an AG-UI stream against the service rules of MOCA citations over AG-UI",
        description="Check the moca.citations events of an AG-UI stream (JSON lines or SSE) "
        "against the service rules of MOCA citations over AG-UI 0.6.0. Exit 0: no errors; "
        "1: errors; 2: the source cannot be read.",
    )
    add_arguments(check)
    check.set_defaults(handler=run)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return int(args.handler(args))
