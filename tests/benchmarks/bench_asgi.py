"""Benchmark 8: the cost per event of `moca_agui.asgi.CitationMiddleware`.

The same realistic runs (workload.py) are served by one raw ASGI app that encodes each
event with `ag_ui.encoder.EventEncoder` and sends it as its own body message, as an
AG-UI endpoint does; a minimal in-process server takes the messages (no sockets, so the
figures are the layers' own). Side by side, in one run:

- bare: the app alone;
- floor: the app behind a layer that only decodes each SSE event into an `ag_ui.core`
  event (`TypeAdapter(Event)`) and re-encodes it: the least any SSE-level layer does;
- middleware: the app behind `CitationMiddleware`;
- cite in the app: no middleware, `moca_agui.cite` around the app's events (the bare-SDK
  adapter's one line), for comparison: what citing costs without decoding;
- encoder: `EventEncoder.encode` of each event alone, the work every AG-UI endpoint does.

Prints the ratios of wall time (medians of interleaved repeats) and of process CPU time
to bare and to the floor, and the µs per event each layer adds to bare, beside the
encoder's own µs per event.

    python tests/benchmarks/bench_asgi.py [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ag_ui.core import BaseEvent, Event
from ag_ui.encoder import EventEncoder
from pydantic import TypeAdapter
from workload import cpu, machine, runs_of, side_by_side, source, table, wall

import moca_agui
from moca_agui.asgi import CitationMiddleware

App = Callable[[Any, Any, Any], Awaitable[None]]
SCOPE = {"type": "http", "method": "POST", "path": "/", "headers": []}
EVENT: TypeAdapter[Any] = TypeAdapter(Event)


def endpoint(events: Sequence[BaseEvent], *, cited: bool = False) -> App:
    """An AG-UI endpoint streaming `events`: one encoded event per body message; `cited`:
    with `moca_agui.cite` around its events, as the bare-SDK README line does."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        encoder = EventEncoder()
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        stream = source(events)
        async for event in moca_agui.cite(stream) if cited else stream:
            body = encoder.encode(event).encode()
            await send({"type": "http.response.body", "body": body, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


def floor(app: App) -> App:
    """The least an SSE-level layer does: decode each event, re-encode it, send it."""

    async def layer(scope: Any, receive: Any, send: Any) -> None:
        encoder = EventEncoder()

        async def decoding_send(message: Any) -> None:
            body = message.get("body")
            if body:
                event = EVENT.validate_json(body.removeprefix(b"data: ").removesuffix(b"\n\n"))
                message = {**message, "body": encoder.encode(event).encode()}
            await send(message)

        await app(scope, receive, decoding_send)

    return layer


def serving(
    runs: Sequence[Sequence[BaseEvent]], wrap: Callable[[App], App] | None, *, cited: bool = False
) -> Any:
    """A server's loop over `runs`, one request each, the app wrapped by `wrap`."""
    apps = [endpoint(events, cited=cited) for events in runs]

    async def serve() -> int:
        written = 0

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Any) -> None:
            nonlocal written
            written += len(message.get("body", b""))

        for app in apps:
            await (wrap(app) if wrap else app)(dict(SCOPE), receive, send)
        return written

    return serve


def encoding(runs: Sequence[Sequence[BaseEvent]]) -> Any:
    async def encode() -> int:
        encoder = EventEncoder()
        return sum(len(encoder.encode(event)) for events in runs for event in events)

    return encode


def measure(total_events: int, repeats: int) -> list[list[str]]:
    runs = runs_of(total_events)
    events = sum(map(len, runs))
    variants = {
        "bare": serving(runs, None),
        "floor (decode + re-encode)": serving(runs, floor),
        "middleware": serving(runs, CitationMiddleware),
        "cite in the app (no middleware)": serving(runs, None, cited=True),
        "encoder alone": encoding(runs),
    }
    times = side_by_side(variants, repeats)
    bare, low = times["bare"], times["floor (decode + re-encode)"]
    rows = []
    for name, spent in times.items():
        over_bare = (wall(spent) - wall(bare)) / events * 1e6
        added = "" if name in ("bare", "encoder alone") else f"{over_bare:.2f}"
        rows.append(
            [
                f"{events:,}",
                name,
                f"{wall(spent):.3f}",
                f"{wall(spent) / events * 1e6:.2f}",
                added,
                f"**{wall(spent) / wall(bare):.3f}**",
                f"{cpu(spent) / cpu(bare):.3f}",
                f"**{wall(spent) / wall(low):.3f}**",
                f"{cpu(spent) / cpu(low):.3f}",
            ]
        )
    return rows


def main(argv: Sequence[str]) -> None:
    quick = "--quick" in argv
    sizes, repeats = ((20_000,), 3) if quick else ((100_000, 400_000), 7)
    print("## 8. The ASGI middleware's cost per event\n")
    print(machine() + "\n")
    rows = [row for size in sizes for row in measure(size, repeats if size == sizes[0] else 3)]
    header = ["events", "served", "wall s", "µs/event", "µs/event over bare"]
    header += [
        "time ratio to bare",
        "CPU ratio to bare",
        "time ratio to floor",
        "CPU ratio to floor",
    ]
    print(table(header, rows))


if __name__ == "__main__":
    main(sys.argv[1:])
