"""Reading what `moca-agui check` checks: a file, stdin or an http(s) answer, as events.

Any failure is a `SourceError` whose message is one line: the stream cannot be read
(missing file, not JSON, JSON nested deeper than `MAX_DEPTH`, a URL that is not one,
connection refused or cut, an answer that does not end within the timeout), never a
traceback.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

__all__ = ["MAX_DEPTH", "SourceError", "parse_stream", "read_source", "run_input"]

#: How deep the checker reads JSON: an event nested deeper (arrays and objects within each
#: other) is refused, where parsing and checking it would exhaust Python's stack.
MAX_DEPTH = 500

#: `host:port` (or `[v6]:port`) with an optional path: a URL without its scheme.
_HOST_PORT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}(/\S*)?")


class SourceError(Exception):
    """The source cannot be read as an AG-UI event stream."""


def parse_stream(text: str, *, whole: bool = False) -> list[dict[str, Any]]:
    """The events of a JSON-lines file or an SSE capture (`data:` lines); at least one.

    `whole`: the text is an entire SSE answer, so an event without the blank line that
    ends it was cut off (a file may simply lack its last newline).
    """
    lines = text.splitlines()
    if any(line.startswith("data:") for line in lines):
        chunks: list[str] = []
        data: list[str] = []
        for line in lines:
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif not line and data:
                chunks.append("\n".join(data))
                data = []
        if data:
            if whole and not text.endswith(("\n\n", "\r\n\r\n", "\r\r")):
                raise SourceError(f"the stream ends in the middle of event {len(chunks)}")
            chunks.append("\n".join(data))
    else:
        chunks = [line for line in lines if line.strip()]
    events = []
    for number, chunk in enumerate(chunks):
        deep = f"event {number} is nested deeper than {MAX_DEPTH} levels, the checker's limit"
        try:
            event = json.loads(chunk)
        except RecursionError:
            raise SourceError(deep) from None
        except ValueError as exc:
            raise SourceError(f"event {number} is not JSON: {_one_line(exc)}") from None
        if _deeper_than(event, MAX_DEPTH):
            raise SourceError(deep)
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise SourceError(f"event {number} is not an AG-UI event (an object with a type)")
        events.append(event)
    if not events:  # an empty answer or file: nothing was checked, so nothing passed
        raise SourceError("no events")
    return events


def _deeper_than(value: object, limit: int) -> bool:
    """Whether arrays and objects nest in `value` more than `limit` deep; no recursion."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def read_source(source: str, *, message: str, timeout: float) -> list[dict[str, Any]]:
    """The events of a file, `-` (stdin) or an http(s) URL; raises SourceError."""
    try:
        if source.startswith(("http://", "https://")):
            return parse_stream(_post(source, message, timeout), whole=True)
        if source == "-":
            return parse_stream(sys.stdin.read())
        with open(source, encoding="utf-8") as file:
            return parse_stream(file.read())
    except SourceError as exc:
        raise SourceError(f"cannot read {source}: {exc}") from None
    except FileNotFoundError as exc:
        if _HOST_PORT.fullmatch(source) and not os.path.exists(source):
            raise SourceError(
                f"cannot read {source}: no such file; did you mean http://{source}?"
            ) from None
        raise SourceError(f"cannot read {source}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot read {source}: {exc}") from None


def run_input(message: str, name: str = "moca-agui-check") -> dict[str, Any]:
    """A RunAgentInput (wire form) with one user message; fresh thread and run ids that
    start with `name`, so a service's log shows who asked."""
    return {
        "threadId": f"{name}-{uuid.uuid4().hex[:12]}",
        "runId": f"{name}-{uuid.uuid4().hex[:12]}",
        "state": {},
        "messages": [{"id": f"user-{uuid.uuid4().hex[:12]}", "role": "user", "content": message}],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }


def _post(url: str, message: str, timeout: float) -> str:
    """The whole answer to a POST of `message`, read within `timeout` seconds in all: a
    service that streams pings or events forever is cut off at the deadline."""
    if not math.isfinite(timeout) or timeout <= 0:
        raise SourceError(f"the timeout is {timeout!r}, not a finite number of seconds above 0")
    deadline = time.monotonic() + timeout
    try:
        request = urllib.request.Request(
            url,
            data=json.dumps(run_input(message)).encode("utf-8"),
            headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
            method="POST",
        )
        urllib.parse.urlsplit(url).port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as exc:
        raise SourceError(f"not a valid URL: {_one_line(exc)}") from None
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = bytearray()
            while chunk := _read_some(response, deadline):
                body += chunk
            if response.length:  # read1, unlike read, does not say a body fell short
                raise http.client.IncompleteRead(bytes(body), response.length)
            return body.decode("utf-8")
    except _Deadline:
        raise SourceError(f"the answer did not end within {timeout:g} s (--timeout)") from None
    except OverflowError:  # a timeout longer than a socket takes (the command refuses one)
        raise SourceError(f"a timeout of {timeout:g} s is longer than a socket takes") from None
    except TimeoutError:
        raise SourceError(f"no answer within {timeout:g} s") from None
    except http.client.IncompleteRead as exc:
        raise SourceError(f"the answer broke off after {len(exc.partial)} bytes") from None
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
        # ValueError: invalid chunking or a body that is not UTF-8 (UnicodeDecodeError)
        reason = getattr(exc, "reason", None) or exc
        raise SourceError(_one_line(reason)) from None


class _Deadline(Exception):
    """The answer goes on past the timeout."""


def _read_some(response: http.client.HTTPResponse, deadline: float) -> bytes:
    """The next bytes of `response`, waiting no later than `deadline`; b"" at its end."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Deadline
    # The socket's own timeout bounds one wait; set it to what is left of the whole read.
    sock = getattr(getattr(response.fp, "raw", None), "_sock", None)
    if sock is not None:
        sock.settimeout(left)
    try:
        return response.read1(65536)
    except TimeoutError:
        if time.monotonic() >= deadline - 0.001:
            raise _Deadline from None
        raise


def _one_line(reason: object) -> str:
    text = " ".join(str(reason).split()) or type(reason).__name__
    return text if len(text) <= 300 else text[:300] + "..."
