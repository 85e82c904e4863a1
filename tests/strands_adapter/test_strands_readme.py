"""The AWS Strands page's diff, applied and run: the code a user ends up with cites."""

from __future__ import annotations

from readme_code import readme_diffs
from strands_support import A, Call, ScriptedModel, answer_ids, post, reader_tools

from support import citation_events, ref


async def test_the_docs_diff_applied_gives_an_endpoint_that_cites() -> None:
    code = readme_diffs("The one line", "frameworks/strands.md")[0]
    assert 'agent = moca_agui.instrument(StrandsAgent(agent=strands_agent, name="support"))' in code
    moca_search, moca_get_node = reader_tools(A)
    script = [[Call("moca_get_node", {"node_id": ref(A)})], [f"See {ref(A)}."]]
    namespace = {
        "model": ScriptedModel(script),
        "moca_search": moca_search,
        "moca_get_node": moca_get_node,
    }
    exec("from fastapi import FastAPI\napp = FastAPI()\n" + code, namespace)
    stream = await post(namespace["app"], "q")
    [value] = citation_events(stream)
    assert value["messageId"] == answer_ids(stream)[0]
    assert value["citations"] == [{"record": A}]
