"""LangGraph with a checkpointer, when the client edits a question or regenerates an answer:
ag-ui-langgraph forks the thread at the checkpoint before that question, and the model
reads the forked thread. The run numbers that thread: every marker the model writes (from
what it was shown) is cited as the node it was shown under it, or left out, never as a
source of the discarded branch; numbered tools show the numbers the forked thread gives."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui_langgraph import LangGraphAgent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from lg_chat import Say, ScriptedChatModel, StreamingChatModel, Turn
from lg_service import agent, app_for
from shown_thread import READER_TOOLS, A, B, C, D, Steps, answer, get_node, markers_shown, read
from thread_turns import Lookup, after_run, cited, new_thread_id, post, shown_markers

import moca_agui
from support import Call, run_input


@tool
def moca_get_node(node_id: str) -> dict[str, Any]:
    """Read one node."""
    return get_node(node_id)


#: ag-ui-langgraph forks on an edited question from 0.0.43; before, it keeps the
#: checkpoint's question and the model reads the old thread (so does the run).
edits = pytest.mark.skipif(
    not hasattr(LangGraphAgent, "_detect_edited_human_message"),
    reason="this ag-ui-langgraph does not fork the thread on an edited question; the newest "
    "does: nox -s tests",
)

STEPS: Steps = {
    "q1": [read("a.md", "t1-a"), read("b.md", "t1-b"), ("a.md", "b.md")],
    "q1 edited": [read("c.md", "t1e-c"), read("a.md", "t1e-a"), ("c.md", "a.md")],
    "q2": [read("c.md", "t2-c"), ("c.md", "a.md")],
    "q2 edited": [read("d.md", "t2e-d"), ("d.md", "a.md", "b.md")],
}


class ShownModel(ScriptedChatModel):
    """Answers the thread's last question with its steps; its answer writes the markers
    the thread it was given shows it. Not streamed: only MESSAGES_SNAPSHOT carries it."""

    steps: Steps

    def turn(self, messages: list[BaseMessage]) -> Turn:
        asked = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        answered = sum(isinstance(m, AIMessage) for m in messages[asked:])
        step = self.steps[str(messages[asked].content)][answered]
        if isinstance(step, Call):
            return [step]
        shown = markers_shown(
            m.content for m in messages if isinstance(m, ToolMessage) and m.name in READER_TOOLS
        )
        return [Say(answer(step, shown))]


class StreamedShownModel(ShownModel, StreamingChatModel):
    """The same, streamed chunk by chunk."""


def serve(*, numbered: bool = False, streamed: bool = True, **options: Any) -> tuple[Any, Any]:
    """The app, and its model (a test may change its steps between runs)."""
    model = (StreamedShownModel if streamed else ShownModel)(script=[], steps=dict(STEPS))
    tools = [moca_get_node]
    return app_for(agent(model, moca_agui.numbered(tools) if numbered else tools, **options)), model


async def asked(app: Any, thread_id: str, *questions: str) -> list[dict[str, Any]]:
    """The client's thread after asking `questions`, one run each (the whole thread sent)."""
    thread: list[dict[str, Any]] = []
    for n, question in enumerate(questions, start=1):
        body = run_input(question, f"run-{n}", thread_id=thread_id, history=thread)
        thread = after_run(body["messages"], await post(app, body))
    return thread


async def edit(app: Any, questions: int, turn: int, text: str) -> list[dict[str, Any]]:
    """Ask the first `questions` questions, then edit the `turn`-th as a chat UI sends it:
    the thread up to that question, then the question (same id) with the new `text`."""
    thread_id = new_thread_id()
    thread = await asked(app, thread_id, *["q1", "q2"][:questions])
    at = [i for i, m in enumerate(thread) if m["role"] == "user"][turn - 1]
    body = run_input(text, "run-edit", thread_id=thread_id, history=thread[:at])
    body["messages"][-1]["id"] = thread[at]["id"]
    return await post(app, body)


@edits
@pytest.mark.parametrize(
    ("lookup", "streamed"),
    [(True, True), (False, True), (True, False)],
    ids=["lookup", "no-lookup", "not-streamed"],
)
async def test_an_edited_first_question_numbers_the_forked_thread(lookup: bool, streamed: bool):
    """The model reads C then A after the fork: `[1]` is C, `[2]` A; B, read only in the
    discarded branch, is no source of the forked thread."""
    app, _ = serve(streamed=streamed, **({"lookup": Lookup(A, B, C, D)} if lookup else {}))
    stream = await edit(app, 1, 1, "q1 edited")
    assert cited(stream) == [{"marker": "[1]", "record": C}, {"marker": "[2]", "record": A}]


@edits
@pytest.mark.parametrize("lookup", [True, False], ids=["lookup", "no-lookup"])
async def test_an_edited_second_question_numbers_the_forked_thread(lookup: bool):
    """After the fork the thread is turn 1 (A `[1]`, B `[2]`), then D: `[3]` is D, never C
    of the discarded branch; turn 1's sources are cited with `lookup`, else left out."""
    app, _ = serve(**({"lookup": Lookup(A, B, C, D)} if lookup else {}))
    stream = await edit(app, 2, 2, "q2 edited")
    earlier = [{"marker": "[1]", "record": A}, {"marker": "[2]", "record": B}]
    assert cited(stream) == [{"marker": "[3]", "record": D}, *(earlier if lookup else [])]


@edits
async def test_numbered_tools_show_the_forked_threads_numbers_after_an_edited_first_question():
    app, _ = serve(numbered=True)
    stream = await edit(app, 1, 1, "q1 edited")
    assert shown_markers(stream) == [["[1]"], ["[2]"]]
    assert cited(stream) == [{"marker": "[1]", "record": C}, {"marker": "[2]", "record": A}]


@edits
async def test_numbered_tools_show_the_forked_threads_numbers_after_an_edited_second_question():
    app, _ = serve(numbered=True, lookup=Lookup(A, B, C, D))
    stream = await edit(app, 2, 2, "q2 edited")
    assert shown_markers(stream) == [["[3]"]]
    assert cited(stream) == [
        {"marker": "[3]", "record": D},
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": B},
    ]


@pytest.mark.parametrize("numbered", [False, True], ids=["markers", "numbered-tools"])
async def test_a_regenerated_answer_numbers_the_thread_without_the_dropped_answer(numbered: bool):
    """A chat UI's regenerate: the thread up to the last question and an empty assistant
    placeholder (an id the checkpoint does not hold, so ag-ui-langgraph forks before the
    question). This time the model reads D: `[3]` is D, not C of the dropped answer."""
    app, model = serve(numbered=numbered, lookup=Lookup(A, B, C, D))
    thread_id = new_thread_id()
    thread = await asked(app, thread_id, "q1", "q2")
    model.steps["q2"] = STEPS["q2 edited"]
    last_question = max(i for i, m in enumerate(thread) if m["role"] == "user")
    placeholder = {"id": "regenerating", "role": "assistant", "content": ""}
    body = run_input("", "run-again", thread_id=thread_id)
    body["messages"] = [*thread[: last_question + 1], placeholder]
    stream = await post(app, body)
    assert shown_markers(stream) == ([["[3]"]] if numbered else [])
    assert cited(stream) == [
        {"marker": "[3]", "record": D},
        {"marker": "[1]", "record": A},
        {"marker": "[2]", "record": B},
    ]
