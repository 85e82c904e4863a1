"""The Microsoft Agent Framework page's diff, applied and run: the code a user ends up
with serves an endpoint that cites."""

from __future__ import annotations

import pytest
from af_support import A, Reader, answer_ids, assert_passes_every_check, call, post, say, scripted
from fastapi import FastAPI
from readme_code import readme_diffs

from moca_agui.demo.frameworks.agent_framework import endpoint_options
from support import citation_events, ref


async def test_the_docs_diff_applied_gives_an_endpoint_that_cites():
    [code] = readme_diffs("The one line", "frameworks/agent-framework.md")
    assert "agent = moca_agui.instrument(AgentFrameworkAgent(agent=chat_agent))" in code
    if "single_user" in code and not endpoint_options():
        pytest.skip(
            "this agent-framework-ag-ui takes no single_user argument; the newest does: "
            "nox -s tests-agent-framework(newest)"
        )
    reader = Reader(A)
    model = scripted([[call("moca_get_node", node_id=ref(A))], [say(f"See {ref(A)}.")]])
    namespace = {
        "app": FastAPI(),
        "client": model,
        "moca_search": reader.tools[0],
        "moca_get_node": reader.tools[1],
    }
    exec(code, namespace)
    stream = await post(namespace["app"], "q")
    assert_passes_every_check(stream)
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"record": A}]
