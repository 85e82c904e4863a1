"""The `moca-agui` command line: its version, usage errors that name the command, ports
checked before anything is served, and the demo Reader's own `--help`."""

from __future__ import annotations

import importlib.metadata
import socket
import subprocess
import sys

import pytest

import moca_agui
from moca_agui.cli import main
from support import MOCA_AGUI


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL
    )


def test_the_version_is_the_installed_distributions() -> None:
    assert moca_agui.__version__ == importlib.metadata.version("moca-agui")
    done = run(MOCA_AGUI, "--version")
    assert (done.returncode, done.stdout) == (0, f"moca-agui {moca_agui.__version__}\n")


@pytest.mark.parametrize("command", ["demo", "check"])
def test_an_unknown_flag_of_a_command_prints_that_commands_usage(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [command, "--bogus"] if command == "demo" else [command, "-", "--bogus"]
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: moca-agui {command} [-h]")
    assert err.endswith(f"moca-agui {command}: error: unrecognized arguments: --bogus\n")


def test_an_unknown_flag_without_a_command_prints_the_top_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--bogus"])
    assert capsys.readouterr().err.endswith("moca-agui: error: unrecognized arguments: --bogus\n")


@pytest.mark.parametrize("port", ["99999", "-1", "eighty"])
def test_a_port_out_of_range_is_a_usage_error(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "--port", port])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: moca-agui demo")
    assert err.splitlines()[-1] == (
        f"moca-agui demo: error: argument --port: {port if port != 'eighty' else repr(port)} "
        "is not a port number (0 to 65535)"
    )


def test_a_busy_port_is_one_line_naming_port_before_any_banner() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run(MOCA_AGUI, "demo", "--port", str(port))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"moca-agui demo: port {port} on 127.0.0.1 is already in use; choose another with "
        "--port (--port 0 takes any free port)\n"
    )


def test_the_demo_reader_explains_itself() -> None:
    done = run(sys.executable, "-m", "moca_agui.demo.reader", "--help")
    assert done.returncode == 0, done.stderr
    help_text = done.stdout
    assert help_text.startswith("usage: python -m moca_agui.demo.reader [-h]")
    assert "MCP server over stdio" in help_text
    assert "an MCP client starts it as a subprocess" in help_text
    assert '{"command": "python", "args": ["-m", "moca_agui.demo.reader"]}' in help_text
    assert "MultiServerMCPClient" in help_text and "MCPToolset" in help_text
    bogus = run(sys.executable, "-m", "moca_agui.demo.reader", "--bogus")
    assert bogus.returncode == 2
    assert bogus.stderr.splitlines()[-1].endswith("unrecognized arguments: --bogus")


def test_the_demo_reader_started_on_a_terminal_says_it_waits_for_a_client() -> None:
    """Started by hand it is not hung: it says it is an MCP server waiting on stdin."""
    import os
    import pty

    leader, follower = pty.openpty()
    reader = subprocess.Popen(
        [sys.executable, "-m", "moca_agui.demo.reader"],
        stdin=follower, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    os.close(follower)
    try:
        assert reader.stderr is not None
        assert reader.stderr.readline() == (
            "moca_agui.demo.reader: an MCP server on stdio, waiting for an MCP client; "
            "Ctrl-C stops it (--help: how to connect)\n"
        )
    finally:
        reader.terminate()
        reader.wait(timeout=30)
        os.close(leader)
