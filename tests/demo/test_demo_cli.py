"""`moca-agui demo`: one question over real HTTP as JSON lines, each framework's service,
and the chat page served on 127.0.0.1."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest

from moca_agui.adapter import pip_install
from moca_agui.check import check_events
from moca_agui.demo.model import KNOWN_QUESTIONS
from moca_agui.demo.server import (
    EXTRA_MODULES,
    FRAMEWORKS,
    FrameworkUnavailable,
    ask,
    build,
    load_framework,
)
from support import ROOT, assert_valid_stream, citation_events, parse_sse, run_input

MOCA_AGUI = str(Path(sys.executable).with_name("moca-agui"))
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"
QUESTIONS = [*KNOWN_QUESTIONS, "Where can hives stand near a footpath?"]


def test_one_question_prints_the_wire_stream_and_exits_0() -> None:
    done = subprocess.run(
        [MOCA_AGUI, "demo", "--question", "Do I need to register my hives?"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["type"] for e in events] == [
        "RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "CUSTOM",
        "RUN_FINISHED",
    ]  # fmt: skip
    assert all("message_id" not in line and "null" not in line for line in lines)  # wire form
    assert_valid_stream(events)
    assert check_events(events) == []
    (value,) = citation_events(events)
    assert [(c["marker"], c["record"]["node"]["ref"]) for c in value["citations"]] == [
        ("[1]", HANDBOOK + "hive-registration.md"),
        ("[2]", HANDBOOK + "hive-placement.md"),
    ]


def _readme_section(title: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_quickstart_is_a_clone_then_one_line_for_the_demo_one_for_the_tests() -> None:
    """moca-agui has no release on PyPI: a clone and a venv, then the demo with its extra
    only, then the tests as CI runs them (nox installs what each session needs)."""
    clone, demo, tests = re.findall(r"```bash\n(.*?)```", _readme_section("Quickstart"), re.S)
    assert clone == (
        "git clone https://github.com/openmoca/moca-agui && cd moca-agui\n"
        "python3 -m venv .venv && . .venv/bin/activate\n"
    )
    assert demo == (
        "pip install -e '.[demo]' && "
        'moca-agui demo --question "Do I need to register my hives?"\n'
    )
    assert tests == "pip install nox && python -m nox\n"
    install = _readme_section("Install")
    assert "no release on PyPI yet" in install
    assert "pip install -e '.[all]'" in install


def _stream(framework: str, question: str) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        return [json.loads(event) async for event in ask(build(framework), question)]

    return asyncio.run(run())


def _refs(events: list[dict[str, Any]]) -> list[list[tuple[str | None, str]]]:
    return [
        [(c.get("marker"), c["record"]["node"]["ref"]) for c in value["citations"]]
        for value in citation_events(events)
    ]


def _extras_in_all() -> set[str]:
    """The extras `[all]` holds, from pyproject.toml: `moca-agui[a,b,...]`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    [everything] = project["optional-dependencies"]["all"]
    return set(everything.split("[", 1)[1].rstrip("]").split(","))


def _require_demo(framework: str) -> None:
    """A framework's demo module must exist. One whose extra `[all]` leaves out (its pins
    conflict with the others) is tested in its own nox session: skipped here without it."""
    module, extras = FRAMEWORKS[framework]
    assert importlib.util.find_spec(f"moca_agui.demo.frameworks.{module}") is not None
    try:
        load_framework(framework)
    except FrameworkUnavailable:
        if set(extras.split(",")) <= _extras_in_all():
            raise
        pytest.skip(f"{framework} is apart from [all]: nox -s tests-{framework} tests its demo")


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_each_frameworks_demo_stream_passes_the_checker(framework: str) -> None:
    _require_demo(framework)
    for question in QUESTIONS:
        events = _stream(framework, question)
        errors = [str(f) for f in check_events(events) if f.level == "error"]
        assert errors == [], (framework, question)
        # every framework's service answers alike: the same sources, markers and order
        assert _refs(events) == _refs(_stream("ag-ui", question)), (framework, question)
        assert_valid_stream(events)
        assert _cited_ids(events) <= _shown_ids(events), (framework, question)


def _cited_ids(events: list[dict[str, Any]]) -> set[str]:
    return {value["messageId"] for value in citation_events(events)}


def _shown_ids(events: list[dict[str, Any]]) -> set[str]:
    """Ids of the assistant messages with text a client shows: those of the last
    MESSAGES_SNAPSHOT if there is one (it replaces the client's messages; a model that does
    not stream has its text there only), and those streamed after it."""
    text = ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK")
    kinds = [e["type"] for e in events]
    last = (
        len(kinds) - kinds[::-1].index("MESSAGES_SNAPSHOT") if "MESSAGES_SNAPSHOT" in kinds else 0
    )
    streamed = {e.get("messageId") for e in events[last:] if e["type"] in text and e.get("delta")}
    if not last:
        return streamed
    snapshot = events[last - 1]["messages"]
    return streamed | {m["id"] for m in snapshot if m["role"] == "assistant" and m.get("content")}


def test_a_framework_without_its_demo_or_extra_names_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(FrameworkUnavailable, match="choose one of ag-ui, langgraph"):
        load_framework("langroid")
    monkeypatch.delitem(sys.modules, "moca_agui.demo.frameworks.ag_ui", raising=False)
    monkeypatch.setitem(sys.modules, "fastapi", None)
    with pytest.raises(
        FrameworkUnavailable,
        match=r"needs fastapi: pip install -e '\.\[demo\]' in a clone of moca-agui "
        r"\(once released: pip install 'moca-agui\[demo\]'\)",
    ):
        load_framework("ag-ui")
    monkeypatch.setitem(FRAMEWORKS, "ag-ui", ("not_written", "demo"))
    with pytest.raises(FrameworkUnavailable, match="no demo service for ag-ui yet"):
        load_framework("ag-ui")


def test_every_extra_of_a_demo_names_the_modules_it_brings() -> None:
    """load_framework names every missing module of a framework's extra before importing."""
    extras = {extra for _, line in FRAMEWORKS.values() for extra in line.split(",")}
    assert sorted(extras - set(EXTRA_MODULES)) == []


@pytest.mark.parametrize("framework", ["agentcore", "claude-sdk"])
def test_a_demo_without_its_framework_names_all_it_needs(framework: str) -> None:
    modules = EXTRA_MODULES[framework]
    done = _without(
        modules,
        "from moca_agui.cli import main\n"
        f"sys.exit(main(['demo', '--framework', {framework!r}, '--question', 'q']))",
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"moca-agui demo: the {framework} demo needs {', '.join(modules)}: "
        f"{pip_install(framework + ',demo')}\n"
    )


def test_the_command_reports_an_unavailable_framework(monkeypatch: pytest.MonkeyPatch) -> None:
    from moca_agui.cli import main

    monkeypatch.setitem(FRAMEWORKS, "llama-index", ("not_written", "llama-index,demo"))
    assert main(["demo", "--framework", "llama-index", "--question", "x"]) == 2


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_without_a_question_it_serves_the_page_and_the_endpoint() -> None:
    port = _free_port()
    process = subprocess.Popen(
        [MOCA_AGUI, "demo", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = httpx.get(base + "/", timeout=2)
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline, "no server"
                time.sleep(0.2)
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert "default-src 'none'" in page.headers["content-security-policy"]
        assert '<script type="module" src="/app.js"></script>' in page.text
        assert "http" not in page.text.split("<body>")[0].replace("http-equiv", "")  # no remote
        assets = [("/app.js", "text/javascript"), ("/style.css", "text/css"),
                  ("/moca-agui/index.js", "text/javascript"), ("/moca-agui/dom.js",
                  "text/javascript"), ("/moca-agui/view.js", "text/javascript"),
                  ("/moca-agui/styles.css", "text/css")]  # fmt: skip
        for asset, kind in assets:
            response = httpx.get(base + asset, timeout=5)
            assert response.headers["content-type"].startswith(kind)
        # the page's client rules, views and styles are the npm package's own files, no copy
        for name in ("index.js", "dom.js", "view.js", "styles.css"):
            served = httpx.get(f"{base}/moca-agui/{name}", timeout=5).content
            assert served == (ROOT / "js" / name).read_bytes()
        assert httpx.get(base + "/moca-agui/package.json", timeout=5).status_code == 404
        for style in ("index.js", "grouped.js"):  # the marker modules index.js imports
            imported = httpx.get(f"{base}/moca-agui/markers/{style}", timeout=5)
            assert imported.headers["content-type"].startswith("text/javascript")
            assert imported.content == (ROOT / "js/markers" / style).read_bytes()
        for missing in ("none.js", "..%2Findex.js", "INDEX.JS", "numbers.css"):
            assert httpx.get(f"{base}/moca-agui/markers/{missing}", timeout=5).status_code == 404
        icon = httpx.get(base + "/favicon.ico", timeout=5)  # browsers ask for it: no 404
        assert (icon.status_code, icon.content) == (204, b"")
        body = run_input("How do I treat varroa mites?")
        answer = httpx.post(base + "/", json=body, timeout=30)
        events = parse_sse(answer.text)
        assert check_events(events) == []
        assert len(citation_events(events)) == 1
    finally:
        process.terminate()
        process.wait(10)
    assert f"http://127.0.0.1:{port}/" in (process.stderr.read() if process.stderr else "")


def _without(modules: tuple[str, ...], code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a Python where `modules` cannot be imported, as in a venv without them."""
    blocked = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    return subprocess.run(
        [sys.executable, "-c", blocked + code], capture_output=True, text=True, timeout=120
    )


def test_a_framework_venv_without_the_demo_extra_is_told_both_extras() -> None:
    """`pip install '.[pydantic-ai]'` brings no uvicorn nor httpx: the demo names the
    install line that brings them and the framework, not `[demo]` alone."""
    done = _without(
        ("uvicorn", "httpx"),
        "from moca_agui.cli import main\n"
        "sys.exit(main(['demo', '--framework', 'pydantic-ai', '--question', 'q']))",
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "moca-agui demo: the pydantic-ai demo needs uvicorn, httpx: pip install -e "
        "'.[pydantic-ai,demo]' in a clone of moca-agui (once released: pip install "
        "'moca-agui[pydantic-ai,demo]')\n"
    )


def test_the_demo_reader_without_mcp_says_so_in_one_line() -> None:
    done = _without(
        ("mcp", "mcp.types"),
        "import runpy\nrunpy.run_module('moca_agui.demo.reader', run_name='__main__')",
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr == (
        "python -m moca_agui.demo.reader: the demo's MCP server needs mcp: pip install -e "
        "'.[demo]' in a clone of moca-agui (once released: pip install 'moca-agui[demo]')\n"
    )


def test_an_example_without_a_piece_of_its_install_line_names_that_line() -> None:
    example = ROOT / "examples" / "langgraph" / "app.py"
    done = _without(
        ("uvicorn",),
        f"sys.argv = ['app.py', '--question', 'q']\nimport runpy\n"
        f"runpy.run_path({str(example)!r}, run_name='__main__')",
    )
    assert done.returncode == 2
    assert done.stderr == (
        "app.py: needs uvicorn: pip install -e '.[langgraph,demo]' in a clone of moca-agui "
        "(once released: pip install 'moca-agui[langgraph,demo]')\n"
    )


#: Each example, its page's install line, and a module of its framework (of the demo
#: extra for the bare SDK's) that the framework's own extra brings.
EXAMPLE_EXTRAS = {
    "ag_ui": ("demo", "fastapi"),
    "langgraph": ("langgraph,demo", "ag_ui_langgraph"),
    "pydantic_ai": ("pydantic-ai,demo", "pydantic_ai"),
    "llama_index": ("llama-index,demo", "llama_index"),
}


@pytest.mark.parametrize("blocked", ["framework", "uvicorn"])
@pytest.mark.parametrize("example", list(EXAMPLE_EXTRAS))
def test_every_example_missing_a_piece_of_its_install_line_exits_2_naming_it(
    example: str, blocked: str
) -> None:
    """The same status and one line whichever piece is missing (a framework's module fails
    at import, the demo's uvicorn only when the command line checks it)."""
    extras, framework_module = EXAMPLE_EXTRAS[example]
    module = framework_module if blocked == "framework" else "uvicorn"
    done = _without(
        (module,),
        f"sys.argv = ['app.py', '--question', 'q']\nimport runpy\n"
        f"runpy.run_path({str(ROOT / 'examples' / example / 'app.py')!r}, run_name='__main__')",
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"app.py: needs {module}")
    assert done.stderr.endswith(f": {pip_install(extras)}\n") and done.stderr.count("\n") == 1
