"""`moca-agui demo`: one framework's demo service on 127.0.0.1, with the chat page.

moca-agui demo --question "Do I need to register my hives?"   # print the event stream
moca-agui demo                                               # serve the chat page

`example_main` gives each service under `examples/` the same command line.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import importlib
import json
import re
import socket
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from importlib.resources import files
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from moca_agui.adapter import pip_install
from moca_agui.check._source import run_input as check_run_input
from moca_agui.cli import port_number

from .reader import DemoReader

if TYPE_CHECKING:  # the demo extra's packages are imported where they are used, so that
    # a missing one is named with the extras to install (load_framework), not by a traceback
    from starlette.applications import Starlette
    from starlette.types import ASGIApp

__all__ = [
    "FRAMEWORKS",
    "FrameworkUnavailable",
    "PortUnavailable",
    "ask",
    "build",
    "demo_app",
    "example_main",
    "listen",
    "load_framework",
    "missing_extras",
    "print_events",
    "print_stream",
    "run_input",
    "serve",
    "served",
]

#: `--framework` choices: module under `moca_agui.demo.frameworks`, and the extra it needs.
FRAMEWORKS: dict[str, tuple[str, str]] = {
    "ag-ui": ("ag_ui", "demo"),
    "langgraph": ("langgraph", "langgraph,demo"),
    "pydantic-ai": ("pydantic_ai", "pydantic-ai,demo"),
    "llama-index": ("llama_index", "llama-index,demo"),
    "ag2": ("ag2", "ag2,demo"),
    "strands": ("strands", "strands,demo"),
    "agent-framework": ("agent_framework", "agent-framework,demo"),
    "adk": ("adk", "adk,demo"),
    "agentcore": ("agentcore", "agentcore,demo"),
    "claude-sdk": ("claude_sdk", "claude-sdk,demo"),
    "crewai": ("crewai", "crewai,demo"),
}
#: The modules of each extra that the demo services import (load_framework checks them).
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "demo": ("starlette", "fastapi", "uvicorn", "httpx", "mcp"),
    "langgraph": ("ag_ui_langgraph", "langgraph"),
    "pydantic-ai": ("pydantic_ai",),
    "llama-index": ("llama_index.core", "llama_index.protocols.ag_ui"),
    "ag2": ("ag2",),
    "strands": ("strands", "ag_ui_strands"),
    "agent-framework": ("agent_framework", "agent_framework_ag_ui"),
    "adk": ("google.adk", "ag_ui_adk"),
    "agentcore": ("bedrock_agentcore", "strands", "ag_ui_strands"),
    "claude-sdk": ("claude_agent_sdk", "ag_ui_claude_sdk"),
    "crewai": ("crewai", "ag_ui_crewai"),
}
_JS = "text/javascript; charset=utf-8"
#: The npm package's files the page loads, served under /moca-agui/ (the wheel ships them).
PACKAGE_FILES = ("index.js", "dom.js", "view.js", "styles.css")
#: The name of a module of the npm package's `markers/`, which index.js imports.
_MARKER_MODULE = re.compile(r"[a-z][a-z0-9-]*\.js")
#: path -> (file under the demo's package, media type)
_STATIC = {
    "/": ("static/index.html", "text/html; charset=utf-8"),
    "/app.js": ("static/app.js", _JS),
    "/style.css": ("static/style.css", "text/css; charset=utf-8"),
}
# The page loads nothing remote and runs no inline script; record fields are data.
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class FrameworkUnavailable(RuntimeError):
    """The demo service of a framework cannot be loaded; the message names the fix."""


class PortUnavailable(RuntimeError):
    """The port cannot be listened on; the message names `--port`."""


def load_framework(name: str) -> Callable[..., ASGIApp]:
    """The `build_app(reader, **cite_options)` of one framework's demo service."""
    if name not in FRAMEWORKS:
        raise FrameworkUnavailable(
            f"unknown framework {name!r}; choose one of {', '.join(FRAMEWORKS)}"
        )
    module_name, extra = FRAMEWORKS[name]
    qualified = f"moca_agui.demo.frameworks.{module_name}"
    if not _importable(qualified):
        raise FrameworkUnavailable(
            f"this moca-agui has no demo service for {name} yet ({qualified})"
        )
    if missing := missing_modules(extra):  # named with the extras that bring them
        raise FrameworkUnavailable(
            f"the {name} demo needs {', '.join(missing)}: {pip_install(extra)}"
        )
    try:
        module = importlib.import_module(qualified)
    except ModuleNotFoundError as exc:
        if exc.name == qualified:
            raise FrameworkUnavailable(
                f"this moca-agui has no demo service for {name} yet ({qualified})"
            ) from exc
        raise FrameworkUnavailable(
            f"the {name} demo needs {exc.name or 'a missing package'}: {pip_install(extra)}"
        ) from exc
    except ImportError as exc:
        raise FrameworkUnavailable(f"the {name} demo: {exc} ({pip_install(extra)})") from exc
    build_app: Callable[..., ASGIApp] = module.build_app
    return build_app


def missing_extras(extras: str, exc: ImportError | None = None) -> NoReturn:
    """Exit as every example does when a piece of its page's install line (`extras`, e.g.
    "pydantic-ai,demo") is missing, whether its imports failed (`exc`) or its command line
    found it: status 2, one line naming the modules and the install line."""
    missing = missing_modules(extras) or [exc.name if exc and exc.name else "a module"]
    prog = Path(sys.argv[0]).name
    print(f"{prog}: needs {', '.join(missing)}: {pip_install(extras)}", file=sys.stderr)
    raise SystemExit(2)


def missing_modules(extras: str) -> list[str]:
    """The modules of `extras` (e.g. "pydantic-ai,demo") that cannot be imported here."""
    return [
        module
        for extra in extras.split(",")
        for module in EXTRA_MODULES.get(extra, ())
        if not _importable(module)
    ]


def _importable(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module set to None
        return False


def demo_app(service: ASGIApp) -> Starlette:
    """The chat page (GET `/`, its script and style) in front of the AG-UI `service`."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    async def static(request: Request) -> Response:
        name, media_type = _STATIC[request.url.path]
        body = files("moca_agui.demo").joinpath(name).read_bytes()
        return Response(body, media_type=media_type, headers=_page_headers())

    async def package_file(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in PACKAGE_FILES:
            return Response(status_code=404, headers=_page_headers())
        media_type = "text/css; charset=utf-8" if name.endswith(".css") else _JS
        return Response(moca_agui_file(name), media_type=media_type, headers=_page_headers())

    async def marker_module(request: Request) -> Response:  # what index.js imports
        name = request.path_params["name"]
        try:
            body = moca_agui_file(f"markers/{name}") if _MARKER_MODULE.fullmatch(name) else None
        except FileNotFoundError:
            body = None
        if body is None:
            return Response(status_code=404, headers=_page_headers())
        return Response(body, media_type=_JS, headers=_page_headers())

    async def no_icon(request: Request) -> Response:  # browsers ask; the page has none
        return Response(status_code=204, headers=_page_headers())

    routes: list[Route | Mount] = [Route(path, static, methods=["GET"]) for path in _STATIC]
    routes.append(Route("/moca-agui/{name}", package_file, methods=["GET"]))
    routes.append(Route("/moca-agui/markers/{name}", marker_module, methods=["GET"]))
    routes.append(Route("/favicon.ico", no_icon, methods=["GET"]))
    routes.append(Mount("", app=service))
    return Starlette(routes=routes)


def moca_agui_file(name: str) -> bytes:
    """A file of the npm package (one of PACKAGE_FILES, or `markers/{module}.js`), which the
    page loads; FileNotFoundError if there is none. Its client rules, views and styles are the
    package's own. A wheel ships them in `moca_agui/js/`; an editable install from a clone
    reads them from the clone's `js/`."""
    parts = name.split("/")
    shipped = files("moca_agui").joinpath("js", *parts)
    if shipped.is_file():
        return shipped.read_bytes()
    clone = Path(str(files("moca_agui.demo"))).parents[1].joinpath("js", *parts)
    return clone.read_bytes()


def _page_headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": _CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }


def run_input(question: str) -> dict[str, Any]:
    """A RunAgentInput (wire form) with one user message, fresh ids."""
    return check_run_input(question, "moca-agui-demo")


async def ask(app: ASGIApp, question: str, *, path: str = "/") -> AsyncIterator[str]:
    """Serve `app` on 127.0.0.1 (a free port), POST `question` to `path`, and yield the JSON
    of each event of the SSE answer, as the service wrote it."""
    import httpx

    async with served(app) as base_url, httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        headers = {"Accept": "text/event-stream"}
        async with client.stream(
            "POST", path, json=run_input(question), headers=headers
        ) as response:
            response.raise_for_status()
            data: list[str] = []
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                elif not line and data:
                    yield "\n".join(data)
                    data = []
            if data:
                yield "\n".join(data)


class served:
    """`async with served(app) as base_url`: uvicorn on 127.0.0.1 for the block's time."""

    def __init__(self, app: ASGIApp) -> None:
        import uvicorn

        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> str:
        self._task = asyncio.create_task(self._server.serve())
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise RuntimeError("the demo server stopped before it started")
            await asyncio.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aexit__(self, *exc_info: object) -> None:
        self._server.should_exit = True
        if self._task is not None:
            await self._task


def listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:`port` (0: any free port), for `serve`.

    Bound here, before anything is printed, so a port in use is one clear line.
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            reason = "is already in use"
        else:
            reason = f"cannot be listened on ({exc.strerror or exc})"
        raise PortUnavailable(
            f"port {port} on 127.0.0.1 {reason}; choose another with --port "
            "(--port 0 takes any free port)"
        ) from None
    return listener


def serve(app: ASGIApp, listener: socket.socket) -> None:
    """Serve `app` on the `listener` from `listen` until interrupted."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, log_level="info"))
    server.run(sockets=[listener])


def build(framework: str, reader: DemoReader | None = None, **cite_options: Any) -> ASGIApp:
    """The demo app of `framework`: its AG-UI service behind the chat page."""
    return demo_app(load_framework(framework)(reader or DemoReader(), **cite_options))


def print_events(framework: str, question: str) -> int:
    """Ask `framework`'s demo one question and print each event as one JSON line; 0 if the
    run finished."""
    return print_stream(build(framework), question)


def print_stream(app: ASGIApp, question: str, *, path: str = "/") -> int:
    """POST `question` to `path` of `app` served on 127.0.0.1 and print each event of the
    answer as one JSON line; 0 if the run finished."""

    async def run() -> int:
        finished = 0
        async for event in ask(app, question, path=path):
            print(event, flush=True)
            finished = finished or int(json.loads(event).get("type") == "RUN_FINISHED")
        return finished

    return 0 if asyncio.run(run()) else 1


def example_main(
    app: ASGIApp,
    description: str,
    *,
    path: str = "/",
    extras: str = "demo",
    argv: Sequence[str] | None = None,
) -> int:
    """The command line of an example service, the same for every example.

    `--question Q` prints the event stream of one question as JSON lines, as `moca-agui
    demo --question` does; without it the app serves its AG-UI endpoint, POST `path`, on
    127.0.0.1 (`--port`, default 8000). `extras` is the install line the example's page
    gives (e.g. "pydantic-ai,demo"): a module of it missing, it exits naming that line.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--question", help="ask this, print the event stream as JSON lines")
    parser.add_argument(
        "--port", type=port_number, default=8000, help="port on 127.0.0.1 (default: 8000)"
    )
    args = parser.parse_args(argv)
    if missing_modules(extras):
        missing_extras(extras)
    if args.question is not None:
        return print_stream(app, args.question, path=path)
    try:
        listener = listen(args.port)
    except PortUnavailable as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2
    with listener:
        port = listener.getsockname()[1]
        print(f"AG-UI endpoint: POST http://127.0.0.1:{port}{path}", file=sys.stderr)
        serve(app, listener)
    return 0
