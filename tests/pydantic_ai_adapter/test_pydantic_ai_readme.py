"""The Pydantic AI page's diff, applied and run: the code a user ends up with cites."""

from __future__ import annotations

from pai_support import A, Call, Reader, agent, answer_ids, dispatch_app, post, scripted
from readme_code import readme_diffs, run_block

from moca_agui.demo.reader import DemoReader
from support import HANDBOOK, assert_valid_stream, citation_events, ref


async def test_the_docs_diff_applied_gives_an_endpoint_that_cites():
    code = readme_diffs("The one line", "frameworks/pydantic-ai.md")[0]
    assert "AGUIAdapter = moca_agui.instrument(AGUIAdapter)" in code
    model = scripted([[Call("moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]])
    namespace = {"agent": agent(model, *Reader(A).tools)}
    exec(
        "from fastapi import FastAPI, Request\nfrom fastapi.responses import Response\n"
        "app = FastAPI()\n" + code,
        namespace,
    )
    stream = await post(namespace["app"], "q")
    assert_valid_stream(stream)
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"record": A}]


async def test_the_docs_reader_block_cites_compact_results_through_the_toolset():
    """ "Connecting a real Reader" for Pydantic AI, run as written against the demo Reader
    over MCP stdio: compact search results become records through `reader_lookup`."""
    model = scripted(
        [
            [Call("moca_search", {"query": "register hives", "limit": 2})],
            ["Register every apiary [1]; mind the footpaths [2]."],
        ]
    )
    names = await run_block("## Pydantic AI (`MCPToolset`)", "reader.md")
    agent = names["support_agent"](model)
    stream = await post(dispatch_app(names["AGUIAdapter"], agent), "q")
    (result,) = [e for e in stream if e["type"] == "TOOL_CALL_RESULT"]
    assert '"node"' not in result["content"]  # compact results: no record in sight
    (value,) = citation_events(stream)
    reader = DemoReader()
    assert value["citations"] == [
        {"marker": "[1]", "record": reader.get(HANDBOOK + "hive-registration.md")},
        {"marker": "[2]", "record": reader.get(HANDBOOK + "hive-placement.md")},
    ]
