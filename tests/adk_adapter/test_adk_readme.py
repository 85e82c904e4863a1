"""The Google ADK page's diff, applied and run: the code a user ends up with cites."""

from __future__ import annotations

import pytest
from adk_support import A, Call, Reader, answer_ids, llm_agent, post
from readme_code import readme_diffs

from support import citation_events, ref

pytestmark = pytest.mark.filterwarnings("ignore:\\[EXPERIMENTAL\\]:UserWarning")


async def test_the_docs_diff_applied_gives_an_endpoint_that_cites():
    code = readme_diffs("The one line", "frameworks/adk.md")[0]
    assert "agent = moca_agui.instrument(ADKAgent(adk_agent=root_agent" in code
    script = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], [f"See {ref(A)}."]]
    namespace = {"root_agent": llm_agent(script, *Reader(A).tools)}
    exec("from fastapi import FastAPI\napp = FastAPI()\n" + code, namespace)
    stream = await post(namespace["app"], "q")
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"record": A}]
