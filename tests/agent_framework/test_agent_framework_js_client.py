"""The Agent Framework demo's stream in the reference TypeScript client, `@ag-ui/client`.

Node runs `agui_client_run.mjs`: a real `HttpAgent` posts a question to the demo service
(uvicorn on 127.0.0.1) and reports the messages it holds afterwards (after the
MESSAGES_SNAPSHOT, which replaces them) and the `moca.citations` events it received.
Needs Node 20 and npm (`@ag-ui/client` is installed from the npm registry into a temporary
folder). Outside CI the test is skipped without them; in CI (env CI set) it fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from moca_agui.demo.frameworks.agent_framework import build_app
from moca_agui.demo.reader import DemoReader
from moca_agui.demo.server import served

SCRIPT = Path(__file__).with_name("agui_client_run.mjs")
HANDBOOK = "https://example.org/moca/fernhollow-apiary@3.0.0#"

_MISSING = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
if _MISSING:
    if os.environ.get("CI"):
        pytest.fail(f"the @ag-ui/client test needs {' and '.join(_MISSING)}", pytrace=False)
    pytest.skip(f"the @ag-ui/client test needs {' and '.join(_MISSING)}", allow_module_level=True)


@pytest.fixture(scope="module")
def client_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with @ag-ui/client 1.x installed and the client script beside it."""
    folder = tmp_path_factory.mktemp("agui-client")
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--silent", "@ag-ui/client@1"],
        cwd=folder, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    shutil.copy(SCRIPT, folder / SCRIPT.name)
    return folder


async def test_the_demo_stream_works_in_ag_ui_client(client_dir: Path) -> None:
    async with served(build_app(DemoReader())) as base_url:
        node = await asyncio.create_subprocess_exec(
            "node", SCRIPT.name, base_url + "/", "Do I need to register my hives?",
            cwd=client_dir, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(node.communicate(), timeout=120)
    assert node.returncode == 0, err.decode()
    held = json.loads(out)
    assert held["order"][-2:] == ["CUSTOM", "RUN_FINISHED"]
    [value] = held["citations"]
    [message] = [m for m in held["messages"] if m["id"] == value["messageId"]]
    assert message["role"] == "assistant" and "[1]" in message["content"]
    assert [(c["marker"], c["record"]["node"]["ref"]) for c in value["citations"]] == [
        ("[1]", HANDBOOK + "hive-registration.md"),
        ("[2]", HANDBOOK + "hive-placement.md"),
    ]
