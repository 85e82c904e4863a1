"""Google ADK runs over HTTP with the one-line change: what is cited, what is left out.

Every run is a real `LlmAgent` with an offline model (`Scripted`), in ag-ui-adk's
`ADKAgent`, served by `add_adk_fastapi_endpoint` and requested over httpx's ASGI
transport.
"""

from __future__ import annotations

from adk_support import A, B, C, Call, Reader, adk_agent, answer_ids, kinds, llm_agent, run_both

from support import citation_events, ref

TOOL_CALL = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
MESSAGE = ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]
INVENTED = "https://example.com/moca/test-kb@1.0.0#never-read.md"


async def test_each_answer_gets_its_event_after_its_text_before_run_finished():
    reader = Reader(A, B, C)
    script = [
        ["Let me look. ", Call("moca_search", {"query": "a.md"}, "c1")],
        ["Refunds take 30 days [1]. ", Call("moca_get_node", {"node_id": ref(B)}, "c2")],
        [f"Shipping: see {ref(B)}; not {ref(C)}, not {INVENTED} [7]."],
    ]
    stream = await run_both(adk_agent(llm_agent(script, *reader.tools)), "q")

    assert kinds(stream) == [
        "RUN_STARTED",
        *MESSAGE,
        *TOOL_CALL,
        "TOOL_CALL_RESULT",
        *MESSAGE,
        *TOOL_CALL,
        "TOOL_CALL_RESULT",
        *MESSAGE,
        "STATE_SNAPSHOT",
        "CUSTOM:moca.citations",
        "CUSTOM:moca.citations",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    first, second, third = answer_ids(stream)
    values = citation_events(stream)
    for value in values:
        value.pop("computedAt", None)
    assert values == [
        {"version": 1, "messageId": first, "citations": []},
        {"version": 1, "messageId": second, "citations": [{"marker": "[1]", "record": A}]},
        # C is a real node this run never read, the invented ref and [7] name nothing
        {"version": 1, "messageId": third, "citations": [{"record": B}]},
    ]
