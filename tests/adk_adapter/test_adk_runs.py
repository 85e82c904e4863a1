"""Google ADK runs over HTTP with the one-line change: what is cited, what is left out.

Every run is a real `LlmAgent` with an offline model (`Scripted`), in ag-ui-adk's
`ADKAgent`, served by `add_adk_fastapi_endpoint` and requested over httpx's ASGI
transport; every stream passes ag-ui-validate, the event schema and `moca-agui check`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import pytest
from adk_support import (
    A,
    B,
    C,
    Call,
    Reader,
    Scripted,
    adk_agent,
    answer_ids,
    endpoint,
    kinds,
    llm_agent,
    post,
    run_both,
)
from ag_ui_adk import ADKAgent
from google.adk import __version__ as adk_version
from google.adk.agents import LlmAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.long_running_tool import LongRunningFunctionTool

import moca_agui
import moca_agui.adapter
from support import carried_by_snapshot, citation_events, ref

pytestmark = pytest.mark.filterwarnings("ignore:\\[EXPERIMENTAL\\]:UserWarning")

TOOL_CALL = ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]
MESSAGE = ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"]
INVENTED = "https://example.com/moca/test-kb@1.0.0#never-read.md"
ADK_MAJOR = int(adk_version.split(".")[0])


def cited(stream: list[dict[str, Any]]) -> list[list[tuple[str | None, str]]]:
    """(marker, ref) of each citation, per event."""
    return [
        [(c.get("marker"), c["record"]["node"]["ref"]) for c in value["citations"]]
        for value in citation_events(stream)
    ]


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
        *MESSAGE,
        *TOOL_CALL,
        *MESSAGE,
        "STATE_SNAPSHOT",
        "CUSTOM:moca.citations",
        "CUSTOM:moca.citations",
        "CUSTOM:moca.citations",
        "RUN_FINISHED",
    ]
    first, second, third = answer_ids(stream)
    values = citation_events(stream)
    for value in values[1:]:
        assert value.pop("computedAt")
    assert values == [
        {"version": 1, "messageId": first, "citations": []},
        {"version": 1, "messageId": second, "citations": [{"marker": "[1]", "record": A}]},
        # C is a real node this run never read; the invented ref and [7] name nothing
        {"version": 1, "messageId": third, "citations": [{"record": B}]},
    ]


async def test_a_record_from_a_tool_that_is_not_a_reader_is_data_not_a_source():
    def fetch_page(url: str) -> dict[str, Any]:
        """Fetch a web page (it happens to look like a citation record)."""
        return C

    reader = Reader(A)
    script = [
        [Call("fetch_page", {"url": "https://example.com"}, "c1")],
        [Call("moca_get_node", {"node_id": ref(A)}, "c2")],
        [f"Per {ref(C)} [2], and [1]."],
    ]
    stream = await run_both(adk_agent(llm_agent(script, fetch_page, *reader.tools)), "q")
    # C is no source, and takes no number: [1] is the Reader's first node
    assert cited(stream) == [[("[1]", ref(A))]]


async def test_two_reader_calls_in_one_response_are_numbered_in_the_order_the_model_made_them():
    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref (this one answers slowly)."""
        await asyncio.sleep(0.2)
        return A

    def moca_search(query: str) -> dict[str, Any]:
        """Search the loaded packages."""
        return {"query": query, "results": [B]}

    script = [
        [
            Call("moca_get_node", {"node_id": ref(A)}, "c1"),
            Call("moca_search", {"query": "b"}, "c2"),
        ],
        ["First [1], then [2]."],
    ]
    stream = await run_both(adk_agent(llm_agent(script, moca_get_node, moca_search)), "q")
    assert kinds(stream)[1:7] == [*TOOL_CALL[:3], *TOOL_CALL[:3]]
    # [1] is the node of the first call, though its result came in last
    assert cited(stream) == [[("[1]", ref(A)), ("[2]", ref(B))]]


async def test_a_reader_answering_json_text_is_read_from_its_own_return_value():
    def moca_search(query: str) -> str:
        """Search the loaded packages (answers JSON text, as an MCP Reader's text content)."""
        return json.dumps({"query": query, "results": [A, B]})

    script = [[Call("moca_search", {"query": "q"}, "c1")], [f"{ref(B)}, then [1]."]]
    stream = await run_both(adk_agent(llm_agent(script, moca_search)), "q")
    assert cited(stream) == [[(None, ref(B)), ("[1]", ref(A))]]


async def test_compact_search_results_are_resolved_through_the_lookup():
    reader = Reader(A, B)
    script = [
        [Call("moca_search", {"query": "a.md b.md", "detail": "compact"}, "c1")],
        [f"Both [2] and {ref(A)}."],
    ]
    stream = await run_both(adk_agent(llm_agent(script, *reader.tools)), "q", lookup=reader.get)
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[2]", "record": B}, {"record": A}]


async def test_a_reader_error_is_no_source():
    reader = Reader(A)
    script = [
        [Call("moca_get_node", {"node_id": INVENTED}, "c1")],
        [f"See {INVENTED} [1]."],
    ]
    stream = await run_both(adk_agent(llm_agent(script, *reader.tools)), "q")
    assert cited(stream) == [[]]


class AnswersErrors(BasePlugin):
    """An application's plugin that answers a failed tool call with a cached record."""

    def __init__(self) -> None:
        super().__init__(name="answers-errors")

    async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
        return A


async def test_what_answers_for_a_failed_reader_call_is_no_source():
    def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref."""
        raise ConnectionError("the Reader is down")

    script = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], [f"See {ref(A)} [1]."]]
    app = App(name="tests", root_agent=llm_agent(script, moca_get_node), plugins=[AnswersErrors()])
    stream = await run_both(ADKAgent.from_app(app, user_id="user-1"), "q")
    assert kinds(stream)[:5] == ["RUN_STARTED", *TOOL_CALL]  # the model saw A all the same
    assert cited(stream) == [[]]


async def test_a_run_that_fails_sends_no_citations():
    def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref."""
        raise ConnectionError("the Reader is down")

    script = [["Looking. ", Call("moca_get_node", {"node_id": ref(A)}, "c1")], ["unused"]]
    agent = moca_agui.instrument(adk_agent(llm_agent(script, moca_get_node)))
    stream = await post(endpoint(agent), "q")
    assert kinds(stream)[-1] == "RUN_ERROR"
    assert citation_events(stream) == []


async def test_a_long_running_reader_tool_is_cited_though_no_tool_call_result_carries_it():
    reader = Reader(A, B)
    script = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], ["See [1]."]]
    root = llm_agent(script, LongRunningFunctionTool(reader.moca_get_node))
    resumable = ResumabilityConfig(is_resumable=True)
    app = App(name="tests", root_agent=root, resumability_config=resumable)
    stream = await run_both(ADKAgent.from_app(app, user_id="user-1"), "q")
    assert "TOOL_CALL_RESULT" not in kinds(stream)
    if ADK_MAJOR < 2:  # ADK 1.x pauses the invocation at the call: no answer in this run
        assert "TEXT_MESSAGE_START" not in kinds(stream)
        assert citation_events(stream) == []
        return
    assert kinds(stream)[-2:] == ["CUSTOM:moca.citations", "RUN_FINISHED"]
    [value] = citation_events(stream)
    assert value["citations"] == [{"marker": "[1]", "record": A}]


@pytest.mark.parametrize("on_the_class", [False, True])
async def test_from_app_works_unchanged_on_an_instance_or_on_the_class(on_the_class):
    reader = Reader(A)
    script = [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], ["See [1]."]]
    app = App(name="tests", root_agent=llm_agent(script, *reader.tools))
    if on_the_class:
        agent = moca_agui.instrument(ADKAgent).from_app(app, user_id="user-1")
    else:
        agent = moca_agui.instrument(ADKAgent.from_app(app, user_id="user-1"))
    stream = await post(endpoint(agent), "q")
    assert cited(stream) == [[("[1]", ref(A))]]


async def test_with_messages_snapshot_the_runs_messages_are_cited_under_the_snapshots_ids():
    reader = Reader(A, B)
    script = [
        ["Looking. ", Call("moca_get_node", {"node_id": ref(A)}, "c1")],
        ["See [1]."],
    ]
    agent = adk_agent(llm_agent(script, *reader.tools), emit_messages_snapshot=True)
    stream = await run_both(agent, "q")
    assert kinds(stream) == [
        "RUN_STARTED",
        *MESSAGE,
        *TOOL_CALL,
        *MESSAGE,
        "STATE_SNAPSHOT",
        "MESSAGES_SNAPSHOT",
        *["CUSTOM:moca.citations"] * 2,
        "RUN_FINISHED",
    ]
    [snapshot] = [e for e in stream if e["type"] == "MESSAGES_SNAPSHOT"]
    answers = [m["id"] for m in snapshot["messages"] if m["role"] == "assistant"]
    # ag-ui-adk names the snapshot's messages by ADK event id, not by their streamed id;
    # a client replaces its messages with the snapshot's: each event names the id it holds
    assert set(answers).isdisjoint(answer_ids(stream))
    assert [v["messageId"] for v in citation_events(stream)] == answers
    assert cited(stream) == [[], [("[1]", ref(A))]]
    # a client that keeps only the snapshot's messages has each answer's sources too
    assert carried_by_snapshot(stream) == {v["messageId"]: v for v in citation_events(stream)}


@pytest.mark.parametrize("snapshots", [False, True])
async def test_a_second_turn_reads_the_sessions_first_turn_the_client_did_not_send(snapshots):
    """The client sends back its text only; the ADK session holds turn 1's call, which the
    model reads: A stays [1] and this run's B is [2]. (A cited again through `lookup` is
    test_adk_thread's: from this stream alone, `moca-agui check` cannot see A was read.)"""
    reader = Reader(A, B)

    def script(question: str) -> list[list[Any]]:
        if question == "first":
            return [[Call("moca_get_node", {"node_id": ref(A)}, "c1")], ["See [1]."]]
        return [[Call("moca_get_node", {"node_id": ref(B)}, "c2")], ["Now [2]."]]

    agent = moca_agui.instrument(
        adk_agent(llm_agent(script, *reader.tools), emit_messages_snapshot=snapshots)
    )
    app = endpoint(agent)
    thread = f"thread-second-turn-{snapshots}"
    first = await post(app, "first", thread_id=thread, run_id="run-1")
    history = [
        {"id": "user-run-1", "role": "user", "content": "first"},
        {"id": answer_ids(first)[0], "role": "assistant", "content": "See [1]."},
    ]
    second = await post(app, "second", thread_id=thread, run_id="run-2", history=history)

    assert cited(first)[0] == [("[1]", ref(A))]
    events = citation_events(second)
    assert cited(second) == [[("[2]", ref(B))]] * len(events)
    turn_one = {v["messageId"] for v in citation_events(first)}
    assert turn_one.isdisjoint(v["messageId"] for v in events)
    assert len(events) == 1  # under the id the client holds; the first turn's answer gets none
    if snapshots:
        [snapshot] = [e for e in second if e["type"] == "MESSAGES_SNAPSHOT"]
        assert events[0]["messageId"] in {m["id"] for m in snapshot["messages"]}


@pytest.mark.parametrize("shared_run_id", [False, True])
async def test_concurrent_runs_of_one_agent_each_cite_only_their_own_reads(shared_run_id):
    # A client's run id is no run's own: runs in flight may share it.
    reader = Reader(A, B, C)
    nodes = {"a": A, "b": B, "c": C}

    async def moca_get_node(node_id: str) -> dict[str, Any]:
        """One node's citation record, by versioned ref."""
        await asyncio.sleep(0.05)
        return reader.records[node_id]

    def script(question: str) -> list[list[Any]]:
        node = nodes[question]
        return [
            [Call("moca_get_node", {"node_id": ref(node)}, f"call-{question}")],
            [f"See [1] and {ref(A)}, {ref(B)}, {ref(C)}."],
        ]

    agent = moca_agui.instrument(adk_agent(llm_agent(script, moca_get_node)))
    app = endpoint(agent)
    questions = list(nodes) * 2
    streams = await asyncio.gather(
        *(
            post(app, question, run_id="run-1" if shared_run_id else f"run-{i}")
            for i, question in enumerate(questions)
        )
    )
    for question, stream in zip(questions, streams, strict=True):
        node = ref(nodes[question])
        assert cited(stream) == [[("[1]", node)]], question
    assert moca_agui.adapter.CitationRun.current() is None  # no run is left active in this context


async def test_a_malformed_reader_result_is_skipped_and_the_answer_flows_on(caplog):
    def moca_search(query: str) -> str:
        """Search the loaded packages (this Reader answers broken JSON)."""
        return '{"query": "q", "results": [' + json.dumps(A)

    script = [[Call("moca_search", {"query": "q"}, "c1")], [f"See {ref(A)} [1]."]]
    with caplog.at_level("WARNING", logger="moca_agui"):
        stream = await run_both(adk_agent(llm_agent(script, moca_search)), "q")
    assert cited(stream) == [[]]
    assert "skipped a result of moca_search" in caplog.text
    assert "Traceback" not in caplog.text


async def test_a_tool_result_in_the_clients_history_is_no_source():
    """ag-ui-adk writes a new thread's earlier messages into its session: the model sees
    a record there, but no Reader of this run returned it (a client can send anything)."""
    if "seed_first_run_history" not in inspect.signature(ADKAgent).parameters:
        pytest.skip(
            "this ag-ui-adk does not write the client's history into a new session; the "
            "newest does: nox -s tests"
        )
    history = [
        {"id": "user-0", "role": "user", "content": "earlier"},
        {
            "id": "assistant-0",
            "role": "assistant",
            "toolCalls": [
                {
                    "id": "c0",
                    "type": "function",
                    "function": {
                        "name": "moca_get_node",
                        "arguments": json.dumps({"node_id": "x"}),
                    },
                }
            ],
        },
        {"id": "tool-0", "role": "tool", "toolCallId": "c0", "content": json.dumps(A)},
    ]
    shown: list[Any] = []

    class Recording(Scripted):
        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            shown.extend(p.function_response for c in llm_request.contents for p in c.parts)
            async for response in super().generate_content_async(llm_request, stream):
                yield response

    root = LlmAgent(
        name="assistant", model=Recording(script=[[f"See [1] and {ref(A)}."]]), tools=[]
    )
    stream = await post(endpoint(moca_agui.instrument(adk_agent(root))), "q", history=history)
    assert [r.response for r in shown if r is not None] == [A]  # the model read it
    assert cited(stream) == [[]]
