"""The README's AWS Strands diff, applied and run: the code a user ends up with cites."""

from __future__ import annotations

import re

from strands_support import A, Call, ScriptedModel, answer_ids, post, reader_tools

from support import ROOT, citation_events, ref


def readme_after() -> str:
    """The 'after' side of the first diff in the README's AWS Strands section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## AWS Strands\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```diff\n(.*?)```", section, flags=re.DOTALL)
    assert found is not None, "no diff in the README's AWS Strands section"
    diff = found.group(1)
    return "".join(line[1:] + "\n" for line in diff.splitlines() if line[:1] in (" ", "+", ""))


async def test_the_readme_diff_applied_gives_an_endpoint_that_cites() -> None:
    code = readme_after()
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
