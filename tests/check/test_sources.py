"""`moca-agui check` reading its source: a stream that breaks off, or a URL written without
its scheme, is "cannot read the source", exit 2, one line and never a traceback."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from moca_agui.cli import main
from support import record

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
        (stalls, "the answer did not end within 0.5 s (--timeout)"),
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


# -- every input ends in one line: nesting, bad URLs and timeouts, Ctrl-C, control characters


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


DEEP = "nested deeper than 500 levels, the checker's limit"


@pytest.mark.parametrize(
    ("text", "event"),
    [
        (nested(100_000) + "\n", 0),  # a JSON-lines file of one 100,000-level line
        (
            f"{EVENT}\n"
            + json.dumps({"type": "CUSTOM", "name": "x", "value": 0}).replace(
                "0}", nested(5_000) + "}"
            )
            + "\n",
            1,
        ),  # a 5,000-level value
        (f"data: {EVENT}\n\ndata: {nested(50_000)}\n\n", 1),  # 50,000 levels in SSE data
        (
            json.dumps({"type": "CUSTOM", "name": "x", "value": 0}).replace("0}", nested(500) + "}")
            + "\n",
            0,
        ),  # 501 levels with the event object
    ],
    ids=["line-100000", "value-5000", "sse-50000", "just-over-the-limit"],
)
def test_json_nested_too_deep_is_one_line_stating_the_limit(
    text: str, event: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "deep.jsonl"
    capture.write_text(text)
    assert main(["check", str(capture)]) == 2
    assert capsys.readouterr() == (
        "",
        f"moca-agui check: cannot read {capture}: event {event} is {DEEP}\n",
    )


def test_json_at_the_nesting_limit_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "deep.jsonl"
    value = nested(499)  # 500 levels with the event object
    capture.write_text(json.dumps({"type": "CUSTOM", "name": "x", "value": 0}).replace(
        "0}", value + "}") + "\n")  # fmt: skip
    assert main(["check", str(capture)]) == 0
    assert capsys.readouterr().out.endswith(f"0 error(s), 1 warning(s) in 1 events: {capture}\n")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://[::1", "not a valid URL: Invalid IPv6 URL"),
        ("http://[::1/x", "not a valid URL: Invalid IPv6 URL"),
        ("http://127.0.0.1:99999/", "not a valid URL: Port out of range 0-65535"),
        ("http://127.0.0.1:x/", "not a valid URL: Port could not be cast to integer value as 'x'"),
    ],
)
def test_a_url_that_is_not_one_is_one_line(
    url: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", url]) == 2
    assert capsys.readouterr() == ("", f"moca-agui check: cannot read {url}: {why}\n")


@pytest.mark.parametrize(
    "timeout", ["inf", "1e309", "-inf", "nan", "0", "-1", "soon", "1e300", "1000000.5"]
)
def test_a_timeout_that_is_not_finite_seconds_is_a_usage_error(
    timeout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["check", "http://127.0.0.1:9/", f"--timeout={timeout}"])
    assert stopped.value.code == 2
    why = "is not a number of seconds" if timeout == "soon" else (
        "is not a number of seconds above 0 and at most 1000000"
    )  # fmt: skip
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"moca-agui check: error: argument --timeout: {timeout!r} {why}"
    )


def pings_forever(connection: socket.socket, done: threading.Event) -> None:
    connection.sendall(OK + b"Transfer-Encoding: chunked\r\n\r\n" + chunk(SSE_EVENT))
    for _ in range(6000):  # 5 minutes at most, far past any timeout the tests give
        if done.wait(0.05):
            return
        try:
            connection.sendall(chunk(b": ping\n\n"))
        except OSError:
            return  # the checker hung up


def events_forever(connection: socket.socket, done: threading.Event) -> None:
    connection.sendall(OK + b"Transfer-Encoding: chunked\r\n\r\n")
    for _ in range(6000):
        if done.wait(0.05):
            return
        try:
            connection.sendall(chunk(SSE_EVENT * 10))
        except OSError:
            return


@pytest.mark.parametrize("answer", [pings_forever, events_forever], ids=["pings", "events"])
def test_the_timeout_bounds_the_whole_read_of_a_url(
    answer: Answer, capsys: pytest.CaptureFixture[str]
) -> None:
    with loopback(answer) as url:
        assert main(["check", url, "--timeout", "1"]) == 2
    assert capsys.readouterr() == (
        "",
        f"moca-agui check: cannot read {url}: the answer did not end within 1 s (--timeout)\n",
    )


def test_ctrl_c_while_streaming_exits_quietly_with_130() -> None:
    started = threading.Event()

    def answer(connection: socket.socket, done: threading.Event) -> None:
        started.set()
        pings_forever(connection, done)

    command = [str(Path(sys.executable).with_name("moca-agui")), "check"]
    with loopback(answer) as url:
        checker = subprocess.Popen(
            [*command, url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert started.wait(60)
            checker.send_signal(signal.SIGINT)
            out, err = checker.communicate(timeout=60)
        finally:
            checker.kill()
    assert (checker.returncode, out, err) == (130, "", "moca-agui check: interrupted\n")


HOSTILE_TEXT = "\x1b[2K\x07\rok\u202e\x9b"
CONTROLS = set("\x1b\x07\r\u202e\x9b")


def test_control_characters_are_escaped_in_everything_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = record("a.md")
    rec["node"]["ref"] += HOSTILE_TEXT
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "See [1]."},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "CUSTOM", "name": "moca.citations",
         "value": {"version": 1, "messageId": "m1", "citations": [{"record": rec}]}},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]  # fmt: skip
    capture = tmp_path / f"capture{HOSTILE_TEXT}.jsonl"
    capture.write_text("".join(json.dumps(e) + "\n" for e in events))
    escaped = "\\x1b[2K\\x07\\x0dok\\u202e\\x9b"
    assert main(["check", str(capture)]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == len(out.splitlines()) and out.endswith(
        f"in 6 events: {tmp_path}/capture{escaped}.jsonl\n"
    )
    assert f"({rec['node']['ref'].replace(HOSTILE_TEXT, escaped)})" in out
    assert not set(out) & CONTROLS  # none of them raw
    assert main(["check", str(capture), "--json"]) == 1
    out = capsys.readouterr().out
    assert "\\u001b[2K\\u0007\\rok\\u202e\\u009b" in out and not set(out) & CONTROLS
    assert json.loads(out)["findings"][0]["message"].count(HOSTILE_TEXT) == 1
    missing = tmp_path / f"missing{HOSTILE_TEXT}"
    assert main(["check", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"moca-agui check: cannot read {tmp_path}/missing{escaped}: ")
    assert err.count("\n") == 1 and not set(err) & CONTROLS
