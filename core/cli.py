"""The `moca-agui` command."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__
from .plugins.install import pip_install


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="moca-agui",
        description="MOCA citations over AG-UI: run the offline demo, check a service's stream.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_demo(commands)
    _add_check(commands)
    return parser


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535)") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535)")
    return port


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
        help="the agent framework of the service (default: ag-ui, the bare SDK; an unknown "
        "name lists the others)",
    )
    demo.add_argument(
        "--port",
        type=port_number,
        default=8000,
        help="port of the chat page on 127.0.0.1 (default: 8000; 0: any free port)",
    )
    demo.set_defaults(handler=_demo, parser=demo)


def _demo(args: argparse.Namespace) -> int:
    try:  # the demo needs the demo extra (fastapi, uvicorn, httpx, mcp): import it here
        server = importlib.import_module("moca_agui.demo.server")
    except ImportError as exc:
        print(f"moca-agui demo: {exc}; {pip_install('demo')}", file=sys.stderr)
        return 2
    try:
        if args.question is not None:
            return int(server.print_events(args.framework, args.question))
        listener = server.listen(args.port)
    except (server.FrameworkUnavailable, server.PortUnavailable) as exc:
        print(f"moca-agui demo: {exc}", file=sys.stderr)
        return 2
    with listener:
        try:
            app = server.build(args.framework)
        except server.FrameworkUnavailable as exc:
            print(f"moca-agui demo: {exc}", file=sys.stderr)
            return 2
        port = listener.getsockname()[1]
        print(f"moca-agui demo ({args.framework}): http://127.0.0.1:{port}/", file=sys.stderr)
        server.serve(app, listener)
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
    check.set_defaults(handler=run, parser=check)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # parse_args would report them with the top-level usage, not the command's
        getattr(args, "parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:  # Ctrl-C: stop quietly, with the shell's code for SIGINT
        print(f"moca-agui {args.command}: interrupted", file=sys.stderr)
        return 130
