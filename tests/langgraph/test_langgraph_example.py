"""examples/langgraph runs as its docstring says: the service on 127.0.0.1, then the
one-shot client printing the answer and the sources it cites."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import httpx

from support import ROOT

EXAMPLE = ROOT / "examples" / "langgraph"
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_service_and_the_client_run() -> None:
    port = _free_port()
    service = subprocess.Popen(
        [sys.executable, str(EXAMPLE / "service.py"), "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(url, timeout=2)  # any answer (GET / is 405): the service is up
                break
            except httpx.TransportError:
                pass
            assert service.poll() is None and time.monotonic() < deadline, "service did not start"
            time.sleep(0.2)
        client = subprocess.run(
            [sys.executable, str(EXAMPLE / "client.py"), "--url", url,
             "Do I need to register my hives?"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        service.terminate()
        service.wait(timeout=10)

    assert client.returncode == 0, client.stderr
    lines = client.stdout.splitlines()
    assert lines[0].startswith("Yes. Register every apiary with the town clerk")
    assert lines[2].startswith("Sources (trust as of 20")
    assert lines[3:] == [
        f"  [1] Registering your hives  {HANDBOOK}hive-registration.md",
        "      Reviewed: accurate (signed), Verified, as declared, Signed package, "
        "Evidence matched (2)",
        f"  [2] Where hives may stand  {HANDBOOK}hive-placement.md",
        "      Verified, as declared, Signed package, Evidence matched (1), "
        "Evidence not matched (1), Evidence not checked (1)",
    ]
