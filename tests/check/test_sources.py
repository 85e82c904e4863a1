"""`moca-agui check` reading its source: a stream that breaks off, or a URL written without
its scheme, is "cannot read the source", exit 2, one line and never a traceback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from moca_agui.cli import main

EVENT = json.dumps({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
SSE_EVENT = f"data: {EVENT}\n\n".encode()
HALF_EVENT = b'data: {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "del'
OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"

Answer = Callable[[socket.socket, threading.Event], None]


def _read_request(connection: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        data += connection.recv(65536)
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += connection.recv(65536)


@contextmanager
def loopback(answer: Answer) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 that reads one request, then writes `answer`."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            _read_request(connection)
            answer(connection, done)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        done.set()
        thread.join(10)
        listener.close()


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def cut_mid_chunk(connection: socket.socket, done: threading.Event) -> None:
    connection.sendall(OK + b"Transfer-Encoding: chunked\r\n\r\n" + chunk(SSE_EVENT))
    connection.sendall(b"%x\r\n" % 200 + HALF_EVENT)  # promises 200 bytes, sends fewer


def invalid_chunking(connection: socket.socket, done: threading.Event) -> None:
    connection.sendall(OK + b"Transfer-Encoding: chunked\r\n\r\n" + chunk(SSE_EVENT) + b"zz\r\n")


def short_of_its_length(connection: socket.socket, done: threading.Event) -> None:
    connection.sendall(OK + b"Content-Length: 5000\r\n\r\n" + SSE_EVENT + HALF_EVENT)


def closed_mid_event(connection: socket.socket, done: threading.Event) -> None:
    # No length and no chunks: the body ends where the connection closes, mid-event.
    connection.sendall(OK + b"Connection: close\r\n\r\n" + SSE_EVENT + HALF_EVENT)


def closed_without_answer(connection: socket.socket, done: threading.Event) -> None:
    pass


def stalls(connection: socket.socket, done: threading.Event) -> None:
    connection.sendall(OK + b"Transfer-Encoding: chunked\r\n\r\n" + chunk(SSE_EVENT))
    done.wait(30)  # until the checker has given up


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (cut_mid_chunk, "the answer broke off after"),
        (invalid_chunking, "the answer broke off after"),
        (short_of_its_length, "the answer broke off after"),
        (closed_mid_event, "the stream ends in the middle of event 1"),
        (closed_without_answer, "Remote end closed connection without response"),
        (stalls, "no answer within 0.5 s"),
    ],
    ids=["mid-chunk", "invalid-chunking", "short-of-length", "mid-event", "no-answer", "timeout"],
)
def test_a_stream_that_breaks_off_cannot_be_read(
    answer: Answer, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with loopback(answer) as url:
        assert main(["check", url, "--timeout", "0.5" if answer is stalls else "10"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"moca-agui check: cannot read {url}: {why}")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_the_installed_command_prints_one_line_for_a_cut_stream() -> None:
    command = [str(Path(sys.executable).with_name("moca-agui")), "check"]
    with loopback(cut_mid_chunk) as url:
        done = subprocess.run(
            [*command, url], capture_output=True, text=True, timeout=60, check=False
        )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"moca-agui check: cannot read {url}: the answer broke off")
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("source", ["127.0.0.1:8000", "localhost:8000/agent", "[::1]:8000"])
def test_host_and_port_without_a_scheme_suggests_the_url(
    source: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check", source]) == 2
    assert capsys.readouterr().err == (
        f"moca-agui check: cannot read {source}: no such file; did you mean http://{source}?\n"
    )


def test_a_file_named_like_host_and_port_is_read_as_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "capture:1").write_text(EVENT + "\n")
    assert main(["check", "capture:1"]) == 0
    assert "did you mean" not in capsys.readouterr().err
