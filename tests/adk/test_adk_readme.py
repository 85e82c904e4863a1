"""The README's Google ADK diff, applied and run: the code a user ends up with cites."""

from __future__ import annotations

import re

import pytest
from adk_support import A, Call, Reader, answer_ids, llm_agent, post

from support import ROOT, citation_events, ref

pytestmark = pytest.mark.filterwarnings("ignore:\\[EXPERIMENTAL\\]:UserWarning")


def readme_after() -> str:
    """The 'after' side of the first diff in the README's Google ADK section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Google ADK\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```diff\n(.*?)```", section, flags=re.DOTALL)
    assert found is not None, "no diff in the README's Google ADK section"
    diff = found.group(1)
    return "".join(line[1:] + "\n" for line in diff.splitlines() if line[:1] in (" ", "+", ""))


async def test_the_readme_diff_applied_gives_an_endpoint_that_cites():
    code = readme_after()
    assert "agent = moca_agui.instrument(ADKAgent(adk_agent=root_agent" in code
    script = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], [f"See {ref(A)}."]]
    namespace = {"root_agent": llm_agent(script, *Reader(A).tools)}
    exec("from fastapi import FastAPI\napp = FastAPI()\n" + code, namespace)
    stream = await post(namespace["app"], "q")
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"record": A}]
