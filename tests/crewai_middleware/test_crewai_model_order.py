"""CrewAI through the page's one line, `moca_agui.instrument(flow)` (or the crew its
`crew()` returns) behind `CitationMiddleware`: ag-ui-crewai sends each Reader call as it
finishes, under an id it makes, and the instrumented flow or crew tells the run the
order the model read the results in. Every default marker is cited in the model's
order, and never names a source the model did not number so.

Each scenario runs 20 times, as a flow and as a crew (a scenario whose calls run in
parallel waits for the other call, so the finishing order is the one asked for). The
Reader over MCP stdio is one server held open for every run; CrewAI's own MCP tools,
which spawn the server for each call (three a run), run as a flow only.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from crewai import Agent, Crew, Task
from crewai.mcp import MCPServerStdio
from crewai_support import (
    CREW,
    INVENTED,
    A,
    B,
    BeeCrew,
    ChatModel,
    Scripted,
    Turn,
    app_of,
    cited,
    crew_app,
    get_node,
    json_tool,
    post,
)
from crewai_tools import MCPServerAdapter
from mcp import StdioServerParameters

import moca_agui
from support import HANDBOOK, Call, ref

RUNS = 20


@pytest.fixture(params=["flow", "crew"])
def serve(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """How an app serving the script is made: a flow, or a crew, through `instrument`."""
    if request.param == "flow":
        return lambda script, tools, **agent: app_of(script, tools, instrumented=True, agent=agent)
    monkeypatch.setattr(
        litellm, "custom_provider_map", [{"provider": "scripted", "custom_handler": ChatModel()}]
    )
    return lambda script, tools, **agent: crew_app(
        BeeCrew(script, tools, instrumented=True, **agent)
    )


async def runs(app_for: Callable[[], Any]) -> list[list[dict[str, Any]]]:
    """`RUNS` streams, each from the app `app_for()` gives, one after the other."""
    return [await post(app_for(), thread_id=f"thread-{n}") for n in range(RUNS)]


def finishing_last(slow: str) -> Callable[..., Any]:
    """`get_node`, whose call of `slow` returns only after the other call of the same
    response has returned (or a second has passed)."""
    other_done = threading.Event()

    def get(node_id: str = "", query: str = "") -> Any:
        if node_id == slow:
            other_done.wait(1.0)
            time.sleep(0.05)  # its result is sent after the other's
        else:
            other_done.set()
        return get_node(node_id)

    return get


def sent(stream: list[dict[str, Any]]) -> list[str]:
    """The refs of the Reader results as the wire sent them."""
    return [
        json.loads(e["content"])["node"]["ref"]
        for e in stream
        if e["type"] == "TOOL_CALL_RESULT" and e["content"].startswith("{")
    ]


@pytest.mark.parametrize("slow", [A, B], ids=["a-finishes-last", "b-finishes-last"])
async def test_parallel_calls_are_cited_in_the_order_the_model_issued_them(
    serve: Callable[..., Any], slow: dict[str, Any]
) -> None:
    script: list[Turn] = [
        [Call("moca_get_node", {"node_id": ref(A)}, "ca"),
         Call("moca_get_node", {"node_id": ref(B)}, "cb")],
        "A [1]; B [2].",
    ]  # fmt: skip

    def app() -> Any:
        return serve(script, [json_tool("moca_get_node", finishing_last(ref(slow)))])

    for stream in await runs(app):
        assert sent(stream) == ([ref(B), ref(A)] if slow is A else [ref(A), ref(B)])
        assert cited(stream) == [("[1]", ref(A)), ("[2]", ref(B))]


async def test_a_search_then_a_read_of_another_node_are_cited_in_the_model_order(
    serve: Callable[..., Any],
) -> None:
    """Sequential calls of different nodes, which look like parallel ones on the wire."""

    def search(node_id: str = "", query: str = "") -> Any:
        return {"query": query, "results": [A]}

    script: list[Turn] = [
        [Call("moca_search", {"query": "hives"}, "c1")],
        [Call("moca_get_node", {"node_id": ref(B)}, "c2")],
        "A [1]; B [2].",
    ]

    def app() -> Any:
        return serve(
            script, [json_tool("moca_search", search), json_tool("moca_get_node", get_node)]
        )

    for stream in await runs(app):
        assert cited(stream) == [("[1]", ref(A)), ("[2]", ref(B))]


async def test_invented_refs_and_markers_beside_real_ones_name_nothing(
    serve: Callable[..., Any],
) -> None:
    """Two Reader calls finishing in reverse, a node only a non-Reader tool returned, a
    ref no tool returned and a marker past the model's sources: only A and B are cited."""
    c = {**B, "node": {**B["node"], "ref": ref(B).replace("b.md", "c.md")}}
    script: list[Turn] = [
        [Call("moca_get_node", {"node_id": ref(A)}, "ca"),
         Call("moca_get_node", {"node_id": ref(B)}, "cb"),
         Call("web_search", {"query": "c"}, "cc")],
        f"A [1]; B [2]; C [3], see {ref(c)}; made up [4], {INVENTED}.",
    ]  # fmt: skip

    def app() -> Any:
        tools = [
            json_tool("moca_get_node", finishing_last(ref(A))),
            json_tool("web_search", lambda **_: c),
        ]
        return serve(script, tools)

    for stream in await runs(app):
        assert cited(stream) == [("[1]", ref(A)), ("[2]", ref(B))]


#: The demo Reader's script: two parallel reads, and a marker past what it read.
PLACEMENT, REGISTRATION = HANDBOOK + "hive-placement.md", HANDBOOK + "hive-registration.md"
OVER_MCP: list[Turn] = [
    [Call("moca_get_node", {"node_id": PLACEMENT}, "c1"),
     Call("moca_get_node", {"node_id": REGISTRATION}, "c2")],
    "Placement [1]; registration [2]; not [3].",
]  # fmt: skip


@pytest.fixture(scope="module")
def reader_over_mcp() -> Iterator[list[Any]]:
    """The demo Reader's tools, a subprocess speaking MCP over stdio, held open for every
    run as a CrewAI user holds a server (crewai-tools' `MCPServerAdapter`)."""
    server = StdioServerParameters(command=sys.executable, args=["-m", "moca_agui.demo.reader"])
    with MCPServerAdapter(server) as tools:
        yield list(tools)


async def test_a_reader_over_mcp_stdio_is_cited_in_the_model_order(
    serve: Callable[..., Any], reader_over_mcp: list[Any]
) -> None:
    """ag-ui-crewai sends each call as the server answers it."""
    app = serve(OVER_MCP, reader_over_mcp)
    for stream in await runs(lambda: app):
        assert cited(stream) == [("[1]", PLACEMENT), ("[2]", REGISTRATION)]


async def test_crewais_own_mcp_tools_are_cited_in_the_model_order() -> None:
    """CrewAI's native MCP tools (`mcps=`) reach the demo Reader with a fresh server per
    call, the tools named after the server: ag-ui-crewai sends each call under that name.
    A flow only (each run spawns three servers; the crew reads the same order above)."""
    # `python` from this environment: CrewAI names the tools after the command, and
    # cuts a name over 64 characters (the model could not tell the tools apart)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    reader = MCPServerStdio(
        command="python", args=["-m", "moca_agui.demo.reader"], env={"PATH": path}
    )
    app = app_of(OVER_MCP, [], instrumented=True, agent={"mcps": [reader]})
    for stream in await runs(lambda: app):
        assert cited(stream) == [("[1]", PLACEMENT), ("[2]", REGISTRATION)]


class TwoReaders:
    """A crew of two agents, one task each, both reading the Reader: the first reads A
    and B, the second B alone, and numbers it [1] (the crew's answer is the second's)."""

    name = CREW

    def crew(self) -> Crew:
        tools = [json_tool("moca_get_node", get_node)]
        first = [[Call("moca_get_node", {"node_id": ref(A)}, "ca"),
                  Call("moca_get_node", {"node_id": ref(B)}, "cb")], "A [1]; B [2]."]  # fmt: skip
        second = [[Call("moca_get_node", {"node_id": ref(B)}, "cb")], f"B [1], see {ref(B)}."]
        agents = [
            Agent(role=f"Reader {n}", goal="Answer", backstory="A beekeeper.",
                  llm=Scripted(script=script), tools=tools, verbose=False)
            for n, script in enumerate((first, second))
        ]  # fmt: skip
        tasks = [
            Task(description="Answer: {question}", expected_output="An answer", agent=agent)
            for agent in agents
        ]
        crew = Crew(agents=agents, tasks=tasks, chat_llm="scripted/chat", verbose=False)
        return moca_agui.instrument(crew)


async def test_two_agents_reading_sources_leave_the_default_markers_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each agent numbered the sources it read itself: which one the answer's [1] names is
    not known to the run (A, in the order of the whole run), so it is left out; the
    versioned ref is cited."""
    monkeypatch.setattr(
        litellm, "custom_provider_map", [{"provider": "scripted", "custom_handler": ChatModel()}]
    )
    for stream in await runs(lambda: crew_app(TwoReaders())):
        assert cited(stream) == [(None, ref(B))]
