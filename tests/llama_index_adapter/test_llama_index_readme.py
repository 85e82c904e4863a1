"""The LlamaIndex page's diff, applied and run: the code a user ends up with cites."""

from __future__ import annotations

from fastapi import FastAPI
from li_support import Call, Turn, post, returning, scripted_llm, streamed_ids
from readme_code import readme_diffs

from support import citation_events, record, ref

A = record("a.md")


async def test_the_docs_diff_applied_gives_an_endpoint_that_cites() -> None:
    [code] = readme_diffs("The one line", "frameworks/llama-index.md")
    assert "workflow_factory=moca_agui.instrument(workflow_factory)" in code
    llm = scripted_llm(
        Turn(calls=(Call("moca_get_node", "c1", {"node_id": ref(A)}),)), Turn(text="See [1].")
    )
    namespace = {
        "app": FastAPI(),
        "llm": llm,
        "moca_search": returning("moca_search", {"query": "q", "results": []}),
        "moca_get_node": returning("moca_get_node", A),
    }
    exec(code, namespace)
    stream = await post(namespace["app"])
    [value] = citation_events(stream)
    assert value["messageId"] == streamed_ids(stream)[-1]
    assert value["citations"] == [{"marker": "[1]", "record": A}]
